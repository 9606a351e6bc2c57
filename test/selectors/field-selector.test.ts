import { test, describe } from 'node:test';
import assert from 'node:assert/strict';
import { ApiError } from '../../src/api/errors.ts';
import {
  METADATA_FIELDS,
  escapeFieldValue,
  exactFieldValue,
  fieldSelectorToString,
  matchesFields,
  parseFieldSelector,
  requiredName,
  requiredNamespace,
  type SelectableFields,
} from '../../src/api/selectors/field-selector.ts';

const FIELDS: SelectableFields = {
  ...METADATA_FIELDS,
  type: ['type'],
  'status.phase': ['status', 'phase'],
  'spec.unschedulable': { path: ['spec', 'unschedulable'], missing: 'false' },
};

function terms(text: string): [string, string, string][] {
  return parseFieldSelector(text, FIELDS).map((r) => [r.field, r.operator, r.value]);
}

function rejects(text: string, message: string): void {
  assert.throws(
    () => parseFieldSelector(text, FIELDS),
    (err: unknown) => {
      assert.ok(err instanceof ApiError, `expected ApiError, got ${String(err)}`);
      assert.equal(err.code, 400);
      assert.equal(err.reason, 'BadRequest');
      assert.equal(err.message, message);
      return true;
    },
  );
}

describe('field selector parsing', () => {
  test('=, == and != terms, ANDed by commas', () => {
    assert.deepEqual(terms('metadata.name=a,type==kubernetes.io/tls,status.phase!=Running'), [
      ['metadata.name', '=', 'a'],
      ['status.phase', '!=', 'Running'],
      ['type', '==', 'kubernetes.io/tls'],
    ]);
  });

  test('empty text and empty terms select everything', () => {
    assert.deepEqual(terms(''), []);
    assert.deepEqual(terms(',,metadata.name=a,'), [['metadata.name', '=', 'a']]);
  });

  test('an empty value is allowed', () => {
    assert.deepEqual(terms('status.phase='), [['status.phase', '=', '']]);
  });

  test('backslash escapes comma, equals and itself', () => {
    assert.deepEqual(terms('metadata.name=a\\,b\\=c\\\\d'), [['metadata.name', '=', 'a,b=c\\d']]);
    assert.equal(escapeFieldValue('a,b=c\\d'), 'a\\,b\\=c\\\\d');
  });

  test('the leftmost operator splits a term', () => {
    assert.deepEqual(terms('metadata.name=!x'), [['metadata.name', '=', '!x']]);
    assert.deepEqual(terms('metadata.name!=x'), [['metadata.name', '!=', 'x']]);
  });

  test('values are free text: quotes, SQL and unicode pass through unchanged', () => {
    assert.deepEqual(terms("metadata.name='); drop table objects; --"), [['metadata.name', '=', "'); drop table objects; --"]]);
    assert.deepEqual(terms('metadata.name=日本語 "q"'), [['metadata.name', '=', '日本語 "q"']]);
  });

  test('printing escapes values so the text parses back the same', () => {
    const sel = parseFieldSelector('metadata.name=a\\,b,status.phase!=x\\=y', FIELDS);
    assert.deepEqual(parseFieldSelector(fieldSelectorToString(sel), FIELDS), sel);
  });

  test('the parsed selector is frozen', () => {
    const sel = parseFieldSelector('metadata.name=a', FIELDS);
    assert.ok(Object.isFrozen(sel));
    assert.ok(Object.isFrozen(sel[0]));
  });
});

describe('field selector errors match the real server', () => {
  test('an unknown field', () => {
    rejects('spec.nodeName=a', 'field label not supported: spec.nodeName');
    rejects('metadata.name =a', 'field label not supported: metadata.name ');
    rejects('=a', 'field label not supported: ');
    rejects("x'; drop table t;--=1", "field label not supported: x'; drop table t;--");
  });

  test('properties inherited by every JS object are not fields', () => {
    rejects('__proto__=x', 'field label not supported: __proto__');
    rejects('constructor=x', 'field label not supported: constructor');
  });

  test('a term without an operator', () => {
    rejects('metadata.name', "invalid selector: 'metadata.name'; can't understand 'metadata.name'");
    rejects('type=a,b', "invalid selector: 'type=a,b'; can't understand 'b'");
  });

  test('bad escapes and unescaped characters', () => {
    rejects('metadata.name=a\\x', 'invalid field selector: invalid escape sequence: \\x');
    rejects('metadata.name=a\\', 'invalid field selector: invalid escape sequence: \\');
    // The server prints the offending rune as its code point.
    rejects('metadata.name=a=b', 'invalid field selector: unescaped character in value: 61');
    rejects('metadata.name!==a', 'invalid field selector: unescaped character in value: 61');
  });

  test('syntax errors are reported before unknown fields', () => {
    rejects('zzz=1,metadata.name=a\\q', 'invalid field selector: invalid escape sequence: \\q');
  });

  test('the unknown-field message can be chosen by the kind', () => {
    assert.throws(
      () => parseFieldSelector('spec.x=1', METADATA_FIELDS, { unsupported: (f) => `"${f}" is not a known field selector` }),
      /"spec.x" is not a known field selector/,
    );
  });
});

describe('field matching in memory', () => {
  const obj = {
    metadata: { name: 'web', namespace: 'prod' },
    type: 'Opaque',
    status: { phase: 'Running' },
    spec: { unschedulable: true },
  };
  const cases: [string, unknown, boolean][] = [
    ['', obj, true],
    ['metadata.name=web', obj, true],
    ['metadata.name==web', obj, true],
    ['metadata.name=db', obj, false],
    ['metadata.name!=db', obj, true],
    ['metadata.name!=web', obj, false],
    ['metadata.namespace=prod,metadata.name=web', obj, true],
    ['metadata.namespace=prod,metadata.name=db', obj, false],
    ['metadata.namespace=', { metadata: { name: 'node1' } }, true],
    ['metadata.namespace!=', { metadata: { name: 'node1' } }, false],
    ['status.phase=', {}, true],
    ['status.phase!=Running', {}, true],
    ['status.phase=', { status: null }, true],
    ['status.phase=', { status: { phase: { nested: 1 } } }, true],
    ['spec.unschedulable=true', obj, true],
    ['spec.unschedulable=false', { spec: {} }, true],
    ['spec.unschedulable=', { spec: {} }, false],
  ];
  for (const [sel, o, want] of cases) {
    test(`${JSON.stringify(sel)} ${want ? 'matches' : 'does not match'} ${JSON.stringify(o)}`, () => {
      assert.equal(matchesFields(parseFieldSelector(sel, FIELDS), o), want);
    });
  }
});

describe('pinned name and namespace', () => {
  test('metadata.name=x and metadata.namespace=y are found', () => {
    const sel = parseFieldSelector('metadata.namespace=ns,metadata.name==web,type=x', FIELDS);
    assert.equal(requiredName(sel), 'web');
    assert.equal(requiredNamespace(sel), 'ns');
    assert.equal(exactFieldValue(sel, 'type'), 'x');
  });

  test('!= does not pin a value', () => {
    const sel = parseFieldSelector('metadata.name!=web', FIELDS);
    assert.equal(requiredName(sel), undefined);
    assert.equal(requiredNamespace(sel), undefined);
  });
});
