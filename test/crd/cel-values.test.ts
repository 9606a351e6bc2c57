/**
 * Property names as CEL identifiers (k8s.io/apiserver/pkg/cel escaping_test.go, 1.34) and custom
 * resource data as CEL values (valuesunstructured.go): schema formats, int64 range, equality of
 * objects with undeclared fields, and the schema errors that keep rules from running.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { fieldErrorText } from '../../src/api/errors.ts';
import { CelDuration, CelEvalError, CelTimestamp } from '../../src/cel/index.ts';
import { blockingError, escapeName, unescapeName } from '../../src/crd/cel/index.ts';
import { ObjectValue, toCelValue, UnknownPreserved } from '../../src/crd/cel/values.ts';
import { intOrStringType, objectType, primitive, withPreserveUnknown } from './cel-fixtures.ts';

describe('escaping property names (upstream TestEscaping)', () => {
  const cases: [string, string][] = [
    ['a.a', 'a__dot__a'],
    ['a-a', 'a__dash__a'],
    ['a__a', 'a__underscores__a'],
    ['a.-/__a', 'a__dot____dash____slash____underscores__a'],
    ['a._a', 'a__dot___a'],
    ['a__.__a', 'a__underscores____dot____underscores__a'],
    ['a___a', 'a__underscores___a'],
    ['a____a', 'a__underscores____underscores__a'],
    ['a__dot__a', 'a__underscores__dot__underscores__a'],
    ['a__underscores__a', 'a__underscores__underscores__underscores__a'],
    ...['true', 'false', 'null', 'in', 'as', 'break', 'const', 'continue', 'else', 'for', 'function', 'if', 'import', 'let', 'loop', 'package', 'namespace', 'return', 'var', 'void', 'while'].map((w): [string, string] => [w, `__${w}__`]),
    ...['has', 'all', 'exists', 'exists_one', 'filter', 'size', 'contains', 'startsWith', 'endsWith', 'matches', 'duration', 'timestamp', 'getDate', 'getMonth', '_if', '_has', '_int', '_anything'].map((w): [string, string] => [w, w]),
  ];
  for (const [plain, escaped] of cases) {
    it(`${plain} ↔ ${escaped}`, () => {
      assert.equal(escapeName(plain), escaped);
      assert.match(escaped, /^[a-zA-Z_][a-zA-Z0-9_]*$/);
      assert.equal(unescapeName(escaped), plain);
    });
  }
  for (const name of ['@', '1up', '👑', '', 'a b']) it(`${JSON.stringify(name)} cannot be escaped`, () => assert.equal(escapeName(name), undefined));
  for (const bad of ['__int__extra', '__illegal__']) it(`${bad} does not unescape`, () => assert.equal(unescapeName(bad), undefined));
});

describe('custom resource data as CEL values', () => {
  const convert = (type: string, format: string, value: unknown) => toCelValue(value, primitive(type, format));
  const evalErr = (f: () => unknown, message: string) =>
    assert.throws(f, (e: unknown) => {
      assert.ok(e instanceof CelEvalError);
      assert.equal(e.message, message);
      return true;
    });

  it('reads integers as int within int64 and numbers as double', () => {
    assert.equal(convert('integer', '', 5), 5n);
    assert.equal(convert('number', '', 5), 5);
    evalErr(() => convert('integer', '', 1.5), 'invalid data, expected int, got float64');
    evalErr(() => convert('integer', '', 2 ** 64), 'invalid data, expected int, got float64');
    evalErr(() => convert('string', '', 1), 'invalid data, expected string, got int64');
    evalErr(() => convert('boolean', '', 'x'), 'invalid data, expected bool, got string');
  });

  it('reads int-or-string as int or string only', () => {
    assert.equal(toCelValue(3, intOrStringType()), 3n);
    assert.equal(toCelValue('3%', intOrStringType()), '3%');
    evalErr(() => toCelValue(1.5, intOrStringType()), 'invalid data, expected XIntOrString value to be either a string or integer');
  });

  it('reads durations as strfmt does (Go syntax, then <n> <unit> phrases)', () => {
    const d = (s: string) => (convert('string', 'duration', s) as CelDuration).nanos;
    assert.equal(d('1h2m'), 3_720_000_000_000n);
    assert.equal(d('3 days'), 3n * 86_400_000_000_000n);
    assert.equal(d('2w 1d'), 15n * 86_400_000_000_000n);
    evalErr(() => convert('string', 'duration', 'soon'), 'Invalid duration soon: unable to parse soon as duration');
  });

  it("reads dates and date-times with strfmt's layouts", () => {
    const t = (format: string, s: string) => (convert('string', format, s) as CelTimestamp).nanos;
    const at = (iso: string) => BigInt(Date.parse(iso)) * 1_000_000n;
    assert.equal(t('date', '2011-08-18'), at('2011-08-18T00:00:00Z'));
    assert.equal(t('date-time', '2011-08-18T19:03:37.01+01:00'), at('2011-08-18T18:03:37.010Z'));
    assert.equal(t('date-time', '2011-08-18T19:03:37+0100'), at('2011-08-18T18:03:37Z'));
    assert.equal(t('date-time', '2011-08-18T19:03:37'), at('2011-08-18T19:03:37Z'));
    assert.equal(t('date-time', '2011-08-18T19:03Z'), at('2011-08-18T19:03:00Z'));
    assert.equal(t('date-time', '2011-08-18 19:03:37'), at('2011-08-18T19:03:37Z'));
    assert.equal(t('date-time', ''), 0n);
    assert.throws(() => convert('string', 'date', '2011-02-30'), /^CelEvalError: Invalid date formatted string 2011-02-30: /);
    assert.throws(() => convert('string', 'date-time', '18/08/2011'), /Invalid date-time formatted string 18\/08\/2011/);
  });

  it('reads bytes as standard base64', () => {
    assert.deepEqual([...(convert('string', 'byte', 'QUI=') as Uint8Array)], [65, 66]);
    assert.throws(() => convert('string', 'byte', 'QUI'), /Invalid byte formatted string QUI: illegal base64 data at input byte/);
    assert.throws(() => convert('string', 'byte', 'Q*I='), /illegal base64 data at input byte 1/);
  });

  it('counts undeclared fields in size() but hides them from reads', () => {
    const o = toCelValue({ known: 1, other: 2 }, withPreserveUnknown(objectType({ known: primitive('integer') }))) as ObjectValue;
    assert.equal(o.size, 2);
    assert.equal(o.get('known'), 1n);
    assert.equal(o.get('other'), undefined);
    assert.deepEqual([...o.keys()], ['known']);
  });

  it('compares values of no type as JSON', () => {
    assert.ok(new UnknownPreserved({ a: [1] }).equals(new UnknownPreserved({ a: [1] })));
    assert.ok(!new UnknownPreserved(1).equals(new UnknownPreserved('1')));
  });
});

describe('schema errors that keep rules from running (hasBlockingErr)', () => {
  it('blocks on type, required, too long, too many and unsupported errors', () => {
    for (const type of ['FieldValueTypeInvalid', 'FieldValueRequired', 'FieldValueTooLong', 'FieldValueTooMany', 'FieldValueNotSupported'] as const) {
      const e = blockingError([{ type, field: 'spec.x' }]);
      assert.ok(e);
      assert.equal(`${e.field}: ${fieldErrorText(e)}`, '<nil>: Invalid value: null: some validation rules were not checked because the object was invalid; correct the existing errors to complete validation');
    }
  });
  it('does not block on other errors', () => {
    assert.equal(blockingError([{ type: 'FieldValueInvalid', field: 'spec.x', value: 1, detail: 'd' }, { type: 'FieldValueForbidden', field: 'spec.y' }]), undefined);
  });
});
