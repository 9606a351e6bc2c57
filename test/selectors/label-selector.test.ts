import { test, describe } from 'node:test';
import assert from 'node:assert/strict';
import { ApiError } from '../../src/api/errors.ts';
import {
  labelExactValue,
  labelSelectorFromObject,
  labelSelectorToString,
  matchesLabels,
  parseLabelSelector,
  type LabelSelector,
} from '../../src/api/selectors/label-selector.ts';

/** The requirements as compact tuples, easier to compare than objects. */
function reqs(text: string): [string, string, string[]][] {
  return parseLabelSelector(text).map((r) => [r.key, r.operator, [...r.values]]);
}

/** Asserts that parsing fails as the real server does: 400 BadRequest with this message. */
function rejects(text: string, message: string | RegExp): void {
  assert.throws(
    () => parseLabelSelector(text),
    (err: unknown) => {
      assert.ok(err instanceof ApiError, `expected ApiError, got ${String(err)}`);
      assert.equal(err.code, 400);
      assert.equal(err.reason, 'BadRequest');
      assert.equal(err.status.status, 'Failure');
      if (typeof message === 'string') assert.equal(err.message, message);
      else assert.match(err.message, message);
      return true;
    },
  );
}

const KEY_NAME_ERROR =
  "name part must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric " +
  "character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]')";
const VALUE_ERROR =
  "a valid label must be an empty string or consist of alphanumeric characters, '-', '_' or '.', and must start and " +
  "end with an alphanumeric character (e.g. 'MyValue',  or 'my_value',  or '12345', regex used for validation is " +
  "'(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?')";

describe('label selector parsing', () => {
  test('every operator parses to its requirement', () => {
    assert.deepEqual(reqs('a=b'), [['a', '=', ['b']]]);
    assert.deepEqual(reqs('a==b'), [['a', '==', ['b']]]);
    assert.deepEqual(reqs('a!=b'), [['a', '!=', ['b']]]);
    assert.deepEqual(reqs('a in (c,b)'), [['a', 'in', ['b', 'c']]]);
    assert.deepEqual(reqs('a notin (b)'), [['a', 'notin', ['b']]]);
    assert.deepEqual(reqs('a'), [['a', 'exists', []]]);
    assert.deepEqual(reqs('!a'), [['a', '!', []]]);
    assert.deepEqual(reqs('a>5'), [['a', 'gt', ['5']]]);
    assert.deepEqual(reqs('a<10'), [['a', 'lt', ['10']]]);
  });

  test('comma is AND; requirements come out sorted by key', () => {
    assert.deepEqual(reqs('z=1,a,!m'), [
      ['a', 'exists', []],
      ['m', '!', []],
      ['z', '=', ['1']],
    ]);
  });

  test('whitespace around tokens is ignored', () => {
    assert.deepEqual(reqs('  a = b ,\tc\nin ( d , e ) , ! f '), [
      ['a', '=', ['b']],
      ['c', 'in', ['d', 'e']],
      ['f', '!', []],
    ]);
  });

  test('an empty selector has no requirements', () => {
    assert.deepEqual(reqs(''), []);
    assert.deepEqual(reqs('   '), []);
  });

  test('empty values: a=, in (), and empty entries in a set', () => {
    assert.deepEqual(reqs('a='), [['a', '=', ['']]]);
    assert.deepEqual(reqs('a=,b'), [
      ['a', '=', ['']],
      ['b', 'exists', []],
    ]);
    assert.deepEqual(reqs('a in ()'), [['a', 'in', ['']]]);
    assert.deepEqual(reqs('x in (foo,,baz)'), [['x', 'in', ['', 'baz', 'foo']]]);
    assert.deepEqual(reqs('x in (,a)'), [['x', 'in', ['', 'a']]]);
    assert.deepEqual(reqs('x in (a,)'), [['x', 'in', ['', 'a']]]);
  });

  test('in and notin are plain words where a key or value is expected', () => {
    assert.deepEqual(reqs('in in (in,notin)'), [['in', 'in', ['in', 'notin']]]);
    assert.deepEqual(reqs('notin=in'), [['notin', '=', ['in']]]);
  });

  test('duplicate values collapse', () => {
    assert.deepEqual(reqs('a in (b,b,c)'), [['a', 'in', ['b', 'c']]]);
  });

  test('qualified keys with a DNS prefix are accepted', () => {
    assert.deepEqual(reqs('example.com/tier=web,app.kubernetes.io/name'), [
      ['app.kubernetes.io/name', 'exists', []],
      ['example.com/tier', '=', ['web']],
    ]);
  });

  test('the parsed selector is frozen', () => {
    const sel = parseLabelSelector('a in (b,c)');
    assert.ok(Object.isFrozen(sel));
    assert.ok(Object.isFrozen(sel[0]));
    assert.ok(Object.isFrozen(sel[0]!.values));
  });

  test('printing gives the canonical form, which parses back to the same selector', () => {
    const text = 'z in (b,a),a!=1,!m,k,n>3,o<4,p==q,r=';
    const printed = labelSelectorToString(parseLabelSelector(text));
    assert.equal(printed, 'a!=1,k,!m,n>3,o<4,p==q,r=,z in (a,b)');
    assert.deepEqual(parseLabelSelector(printed), parseLabelSelector(text));
  });

  test('labelExactValue finds a single demanded value', () => {
    const sel = parseLabelSelector('a=1,b in (2),c in (3,4),d!=5');
    assert.equal(labelExactValue(sel, 'a'), '1');
    assert.equal(labelExactValue(sel, 'b'), '2');
    assert.equal(labelExactValue(sel, 'c'), undefined);
    assert.equal(labelExactValue(sel, 'd'), undefined);
    assert.equal(labelExactValue(sel, 'e'), undefined);
  });
});

describe('label selector errors match the real server', () => {
  test('a key without an operator before another word', () => {
    rejects('a b', "unable to parse requirement: found 'b', expected: in, notin, =, ==, !=, gt, lt");
    rejects('a!b', "unable to parse requirement: found '!', expected: in, notin, =, ==, !=, gt, lt");
  });

  test('an invalid key', () => {
    rejects('app:web', `unable to parse requirement: <nil>: Invalid value: "app:web": ${KEY_NAME_ERROR}`);
    rejects('-ltier=x', `unable to parse requirement: <nil>: Invalid value: "-ltier": ${KEY_NAME_ERROR}`);
    rejects('a/b/c=d', /^unable to parse requirement: <nil>: Invalid value: "a\/b\/c": a qualified name must consist/);
    rejects('/k', 'unable to parse requirement: <nil>: Invalid value: "/k": prefix part must be non-empty');
    rejects('Example.com/k', /^unable to parse requirement: <nil>: Invalid value: "Example.com\/k": prefix part a lowercase RFC 1123 subdomain/);
    rejects('a/', /^unable to parse requirement: <nil>: Invalid value: "a\/": name part must be non-empty; name part must consist/);
    rejects(`${'k'.repeat(64)}=v`, /^unable to parse requirement: <nil>: Invalid value: "k{64}": name part must be no more than 63 characters$/);
  });

  test('an invalid value', () => {
    rejects('a=b$', `unable to parse requirement: values[0][a]: Invalid value: "b$": ${VALUE_ERROR}`);
    rejects(
      `x=${'z'.repeat(64)}`,
      `unable to parse requirement: values[0][x]: Invalid value: "${'z'.repeat(64)}": must be no more than 63 characters`,
    );
    rejects('a in (ok,-bad)', `unable to parse requirement: values[0][a]: Invalid value: "-bad": ${VALUE_ERROR}`);
  });

  test('gt and lt need an integer', () => {
    rejects('a>x', `unable to parse requirement: values[0]: Invalid value: "x": for 'Gt', 'Lt' operators, the value must be an integer`);
    rejects('a<', `unable to parse requirement: values[0]: Invalid value: "": for 'Gt', 'Lt' operators, the value must be an integer`);
    rejects('a>99999999999999999999', /the value must be an integer$/);
    rejects(
      'a>x.',
      `unable to parse requirement: [values[0]: Invalid value: "x.": for 'Gt', 'Lt' operators, the value must be an integer, ` +
        `values[0][a]: Invalid value: "x.": ${VALUE_ERROR}]`,
    );
  });

  test('misplaced commas and operators', () => {
    rejects('a,', "found '', expected: identifier after ','");
    rejects(',a', "found ',', expected: !, identifier, or 'end of string'");
    rejects('a=b c', "found 'c', expected: ',' or 'end of string'");
    rejects('!a=b', "found '=', expected: ',' or 'end of string'");
    rejects('=a', "found '=', expected: !, identifier, or 'end of string'");
    rejects('!', "unable to parse requirement: found '', expected: identifier");
    rejects('a=(', "unable to parse requirement: found '(', expected: identifier");
  });

  test('malformed sets', () => {
    rejects('a in b', "unable to parse requirement: found 'b' expected: '('");
    rejects('a in (b', "unable to parse requirement: found '', expected: ',' or ')'");
    rejects('a in (b c)', "unable to parse requirement: found 'c', expected: ',' or ')'");
    rejects('a in (=)', "unable to parse requirement: found '=', expected: ',', ')' or identifier");
    rejects('a in (b,,)', "unable to parse requirement: found ')', expected: ',', or identifier");
  });

  test('quotes, SQL and non-ASCII text are rejected as keys and values', () => {
    rejects("a='x'", /^unable to parse requirement: values\[0\]\[a\]: Invalid value: "'x'": a valid label/);
    rejects("a=x');drop table objects;--", /expected: ',' or 'end of string'|Invalid value/);
    rejects("x'or'1'='1", /^unable to parse requirement: <nil>: Invalid value: "x'or'1'"/);
    rejects('ключ=v', /^unable to parse requirement: <nil>: Invalid value: "ключ": name part/);
    rejects('a=värde', /^unable to parse requirement: values\[0\]\[a\]: Invalid value: "värde"/);
    rejects('a="b\\"', /Invalid value: "\\"b\\\\\\"": a valid label/);
  });
});

describe('label matching in memory', () => {
  const labels = { app: 'web', tier: 'front', n: '7', empty: '' };
  const cases: [string, Record<string, string> | undefined, boolean][] = [
    ['', labels, true],
    ['', undefined, true],
    ['app=web', labels, true],
    ['app==web', labels, true],
    ['app=db', labels, false],
    ['missing=x', labels, false],
    ['app!=db', labels, true],
    ['app!=web', labels, false],
    ['missing!=x', labels, true],
    ['missing!=x', undefined, true],
    ['app in (db,web)', labels, true],
    ['app in (db)', labels, false],
    ['missing in (x)', labels, false],
    ['app notin (db)', labels, true],
    ['app notin (web)', labels, false],
    ['missing notin (x)', labels, true],
    ['app', labels, true],
    ['missing', labels, false],
    ['!missing', labels, true],
    ['!app', labels, false],
    ['!app', undefined, true],
    ['empty=', labels, true],
    ['empty in ()', labels, true],
    ['empty', labels, true],
    ['n>6', labels, true],
    ['n>7', labels, false],
    ['n<8', labels, true],
    ['n<7', labels, false],
    ['app>1', labels, false],
    ['missing<1', labels, false],
    ['app=web,tier=front', labels, true],
    ['app=web,tier=back', labels, false],
    // Keys that name properties every JS object inherits are still just absent labels.
    ['constructor', labels, false],
    ['!toString', labels, true],
    ['hasOwnProperty=x', labels, false],
  ];
  for (const [sel, ls, want] of cases) {
    test(`${JSON.stringify(sel)} ${want ? 'matches' : 'does not match'} ${JSON.stringify(ls)}`, () => {
      assert.equal(matchesLabels(parseLabelSelector(sel), ls), want);
    });
  }

  test('gt compares as 64-bit integers, not as text', () => {
    assert.equal(matchesLabels(parseLabelSelector('n>9'), { n: '10' }), true);
    assert.equal(matchesLabels(parseLabelSelector('n<9223372036854775807'), { n: '9223372036854775806' }), true);
    assert.equal(matchesLabels(parseLabelSelector('n>0'), { n: '9223372036854775808' }), false);
    assert.equal(matchesLabels(parseLabelSelector('n>0'), { n: '007' }), true);
    assert.equal(matchesLabels(parseLabelSelector('n>0'), { n: '1.5' }), false);
  });

  test('a null selector matches nothing', () => {
    assert.equal(matchesLabels(null, { a: 'b' }), false);
  });
});

describe('structured label selectors', () => {
  function text(sel: LabelSelector | null): string | null {
    return sel === null ? null : labelSelectorToString(sel);
  }

  test('matchLabels and matchExpressions become requirements', () => {
    const sel = labelSelectorFromObject({
      matchLabels: { app: 'web', 'example.com/x': '' },
      matchExpressions: [
        { key: 'tier', operator: 'In', values: ['b', 'a'] },
        { key: 'env', operator: 'NotIn', values: ['prod'] },
        { key: 'canary', operator: 'DoesNotExist' },
        { key: 'owner', operator: 'Exists', values: [] },
      ],
    });
    assert.equal(text(sel), 'app=web,!canary,env notin (prod),example.com/x=,owner,tier in (a,b)');
  });

  test('an empty selector selects everything, a missing one nothing', () => {
    assert.equal(text(labelSelectorFromObject({})), '');
    assert.equal(matchesLabels(labelSelectorFromObject({}), { a: 'b' }), true);
    assert.equal(labelSelectorFromObject(null), null);
    assert.equal(matchesLabels(labelSelectorFromObject(undefined), { a: 'b' }), false);
  });

  test('it agrees with the string form', () => {
    const fromObject = labelSelectorFromObject({
      matchLabels: { a: '1' },
      matchExpressions: [{ key: 'b', operator: 'NotIn', values: ['2', '3'] }],
    });
    assert.deepEqual(fromObject, parseLabelSelector('a=1,b notin (2,3)'));
  });

  function fails(obj: Parameters<typeof labelSelectorFromObject>[0], message: string | RegExp): void {
    assert.throws(
      () => labelSelectorFromObject(obj),
      (err: unknown) => {
        assert.ok(err instanceof ApiError);
        assert.equal(err.code, 400);
        if (typeof message === 'string') assert.equal(err.message, message);
        else assert.match(err.message, message);
        return true;
      },
    );
  }

  test('invalid structured selectors give the server messages', () => {
    fails({ matchExpressions: [{ key: 'a', operator: 'Gt', values: ['1'] }] }, '"Gt" is not a valid label selector operator');
    fails(
      { matchExpressions: [{ key: 'a', operator: 'In', values: [] }] },
      "values: Invalid value: []string(nil): for 'in', 'notin' operators, values set can't be empty",
    );
    fails(
      { matchExpressions: [{ key: 'a', operator: 'Exists', values: ['x'] }] },
      'values: Invalid value: []string{"x"}: values set must be empty for exists and does not exist',
    );
    fails({ matchLabels: { 'a b': 'c' } }, `key: Invalid value: "a b": ${KEY_NAME_ERROR}`);
    fails({ matchLabels: { a: "'; drop table x; --" } }, /^values\[0\]\[a\]: Invalid value: "'; drop table x; --": a valid label/);
    fails({ matchExpressions: [{ key: 'a', operator: 'In', values: ['ok', 'x y'] }] }, /^values\[1\]\[a\]: Invalid value: "x y"/);
  });
});
