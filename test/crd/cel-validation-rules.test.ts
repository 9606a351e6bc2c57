/**
 * How CRD validation rules report, from upstream's schema/cel/validation_test.go (1.34): rules at
 * every level of a schema (TestValidationExpressionsAtSchemaLevels, allOf), the cost budget and
 * per-call limit (TestCELValidationLimit), messageExpression (TestMessageExpression), reason and
 * fieldPath (TestReasonAndFldPath), fieldPath syntax (TestValidateFieldPath), ratcheting
 * (TestRatcheting) and optionalOldSelf (TestOptionalOldSelf*).
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import yaml from 'js-yaml';
import { fieldErrorText, type FieldError } from '../../src/api/errors.ts';
import { validFieldPath } from '../../src/crd/cel/field-path.ts';
import { compileSchemaRules, validateRules, validateWithRules, type CompiledRules } from '../../src/crd/cel/index.ts';
import { buildValidator, runValidator } from '../../src/crd/cel/validator.ts';
import { emptyNested, toStructural } from '../../src/crd/schema/convert.ts';
import type { NestedValueValidation, Structural } from '../../src/crd/schema/structural.ts';
import type { JSONSchemaProps, ValidationRule } from '../../src/crd/schema/types.ts';
import { path } from '../../src/registry/validation/field.ts';
import { arrayType, integerType, listType, mapType, objectType, primitive, stringType, withRule, withRules } from './cel-fixtures.ts';

const text = (e: FieldError) => `${e.field}: ${fieldErrorText(e)}`;
const run = (s: Structural, obj: unknown, oldObj?: unknown, budget = Number.MAX_SAFE_INTEGER, isRoot = true) => runValidator(buildValidator(s, isRoot), obj, oldObj, budget, path('root'));

/** Each expected text matches one error, and every error matches one expected text. */
function assertErrorsMatch(errors: FieldError[], expected: string[]): void {
  const unmatched = new Set(expected);
  for (const e of errors) {
    assert.equal(e.type, 'FieldValueInvalid', text(e));
    const hit = [...unmatched].find((x) => text(e).includes(x));
    assert.ok(hit !== undefined, `unexpected error ${text(e)} (expected one of ${[...unmatched].join(' | ')})`);
    unmatched.delete(hit);
  }
  assert.deepEqual([...unmatched], [], 'expected errors missing');
}

const nested = (n: Partial<NestedValueValidation>): NestedValueValidation => ({ ...emptyNested(), ...n });
const rules = (...r: ValidationRule[]) => r;

describe('rules at every level of the schema (upstream TestValidationExpressionsAtSchemaLevels)', () => {
  const noOverload = "found no matching overload for '_==_' applied to '(int, string)";
  const cases: { name: string; schema: Structural; obj: unknown; errors: string[] }[] = [
    { name: 'invalid rule under array items', obj: { f: [1] }, schema: objectType({ f: listType(withRule(integerType(), "self == 'abc'")) }), errors: [noOverload] },
    { name: 'invalid rule under array items, parent has rule', obj: { f: [1] }, schema: objectType({ f: withRule(listType(withRule(integerType(), "self == 'abc'")), '1 == 1') }), errors: [noOverload] },
    { name: 'invalid rule under additionalProperties', obj: { f: { k: 1 } }, schema: objectType({ f: mapType(withRule(integerType(), "self == 'abc'")) }), errors: [noOverload] },
    { name: 'invalid rule under additionalProperties, parent has rule', obj: { f: { k: 1 } }, schema: objectType({ f: withRule(mapType(withRule(integerType(), "self == 'abc'")), '1 == 1') }), errors: [noOverload] },
    { name: 'invalid rule under unescaped field name', obj: { f: { m: 1 } }, schema: objectType({ f: withRule(objectType({ m: integerType() }), "self.m == 'abc'") }), errors: [noOverload] },
    { name: 'invalid rule under unescaped field name, parent has rule', obj: { f: { m: 1 } }, schema: withRule(objectType({ f: withRule(objectType({ m: integerType() }), "self.m == 'abc'") }), '1 == 1'), errors: [noOverload] },
    { name: 'invalid rule under escaped field name', obj: { 'f/2': { m: 1 } }, schema: objectType({ 'f/2': withRule(objectType({ m: integerType() }), "self.m == 'abc'") }), errors: [noOverload] },
    { name: 'invalid rule under escaped field name, parent has rule', obj: { 'f/2': { m: 1 } }, schema: withRule(objectType({ 'f/2': withRule(objectType({ m: integerType() }), "self.m == 'abc'") }), '1 == 1'), errors: [noOverload] },
    { name: 'failing rule under escaped field name', obj: { 'f/2': { m: 1 } }, schema: objectType({ 'f/2': withRule(objectType({ m: integerType() }), 'self.m == 2') }), errors: ['Invalid value: "object": failed rule: self.m == 2'] },
    { name: 'invalid rule under unescapable field name', obj: { 'a@b': { m: 1 } }, schema: objectType({ 'a@b': withRule(objectType({ m: integerType() }), "self.m == 'abc'") }), errors: [noOverload] },
    { name: 'invalid rule under unescapable field name, parent has rule', obj: { 'f@2': { m: 1 } }, schema: withRule(objectType({ 'f@2': withRule(objectType({ m: integerType() }), "self.m == 'abc'") }), '1 == 1'), errors: [noOverload] },
    { name: 'failing rule under unescapable field name', obj: { 'a@b': { m: 1 } }, schema: objectType({ 'a@b': withRule(objectType({ m: integerType() }), 'self.m == 2') }), errors: ['Invalid value: "object": failed rule: self.m == 2'] },
    {
      name: "matchExpressions - 'values' must be specified when 'operator' is 'In' or 'NotIn'",
      obj: { matchExpressions: [{ key: 'tier', operator: 'In', values: [] }] },
      schema: withRule(objectType({ matchExpressions: listType(objectType({ key: stringType(), operator: stringType(), values: listType(stringType()) })) }), 'self.matchExpressions.all(rule, (rule.operator != "In" && rule.operator != "NotIn") || ((has(rule.values) && size(rule.values) > 0)))'),
      errors: ['failed rule'],
    },
    {
      name: 'matchExpressions - invalid label value',
      obj: { matchExpressions: [{ key: 'badkey!', operator: 'Exists', values: [] }] },
      schema: withRule(objectType({ matchExpressions: listType(objectType({ key: stringType(), operator: stringType(), values: listType(stringType()) })) }), 'self.matchExpressions.all(rule, size(rule.key) <= 63 && rule.key.matches("^(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?$"))'),
      errors: ['failed rule'],
    },
  ];
  const keyRules = (): NestedValueValidation[] => [
    nested({ xValidations: rules({ rule: "self.key == 'value' && self.key2 == 'value2'", message: "key must be 'value' and key2 must be 'value2'" }) }),
    nested({ xValidations: rules({ rule: 'self.key != self.key2', message: 'key must not be equal to key2' }) }),
  ];
  const keyObject = (vv: Structural['valueValidation'], withTopRule: boolean): Structural => ({ ...(withTopRule ? withRule(objectType({ key: stringType(), key2: stringType() }), 'true') : objectType({ key: stringType(), key2: stringType() })), valueValidation: vv });
  cases.push(
    { name: 'allOf rule', obj: { key: 'value', key2: 'value' }, schema: keyObject({ allOf: keyRules() }, true), errors: ["key must be 'value' and key2 must be 'value2'", 'key must not be equal to key2'] },
    { name: 'anyOf rule ignored', obj: { key: 'value', key2: 'value' }, schema: keyObject({ anyOf: keyRules() }, true), errors: [] },
    { name: 'oneOf rule ignored', obj: { key: 'value', key2: 'value' }, schema: keyObject({ oneOf: keyRules() }, true), errors: [] },
    { name: 'not rule ignored', obj: { key: 'value', key2: 'value' }, schema: keyObject({ not: keyRules()[0] }, true), errors: [] },
    {
      name: 'allOf.items',
      obj: { myList: ['value', 'value2'] },
      schema: withRule(
        objectType({
          myList: {
            ...listType(stringType()),
            valueValidation: {
              allOf: [nested({ items: nested({ xValidations: rules({ rule: 'self.size() == 5', message: 'len must be 5' }) }) }), nested({ items: nested({ xValidations: rules({ rule: 'self == "value2" || self != "value"', message: 'must be value2 or not value' }) }) })],
            },
          },
        }),
        'true',
      ),
      errors: ['must be value2 or not value', 'len must be 5'],
    },
    {
      name: 'allOf.additionalProperties',
      obj: { myProperty: { key: 'value', key2: 'value2' } },
      schema: withRule(
        objectType({
          myProperty: {
            ...mapType(stringType()),
            valueValidation: {
              allOf: [nested({ additionalProperties: nested({ xValidations: rules({ rule: 'self == "value2" || self != "value"', message: 'must be value2 or not value' }, { rule: 'self.size() == 5', message: 'len must be 5' }) }) })],
            },
          },
        }),
        'true',
      ),
      errors: ['root.myProperty[key]: Invalid value: "string": must be value2 or not value', 'root.myProperty[key2]: Invalid value: "string": len must be 5'],
    },
    {
      name: 'allOf.properties',
      obj: { key: 'value', key2: 'value2' },
      schema: keyObject(
        {
          allOf: [
            nested({
              properties: {
                key: nested({ xValidations: rules({ rule: 'self == "value2" || self != "value"', message: 'must be value2 or not value' }) }),
                key2: nested({ xValidations: rules({ rule: 'self.size() == 5', message: 'len must be 5' }) }),
              },
            }),
          ],
        },
        true,
      ),
      errors: ['root.key: Invalid value: "string": must be value2 or not value', 'root.key2: Invalid value: "string": len must be 5'],
    },
  );
  for (const c of cases) {
    it(c.name, () => assertErrorsMatch(run(c.schema, c.obj).errors, c.errors));
  }

  it('runs no allOf rule when the schema has no rule of its own (upstream NewValidator looks no further)', () => {
    const s = objectType({ key: stringType() });
    const withAllOf: Structural = { ...s, valueValidation: { allOf: [nested({ xValidations: rules({ rule: 'false', message: 'never' }) })] } };
    assert.equal(buildValidator(withAllOf, true), undefined);
  });
});

describe('the cost budget and the per-call limit (upstream TestCELValidationLimit)', () => {
  const s = withRule(objectType({ val1: integerType() }), 'self.val1 > 0');
  it('stops with one error once the budget is spent', () => {
    const r = runValidator(buildValidator(s, false), { val1: 1 }, undefined, 0, path('root'));
    assert.deepEqual(r.errors.map(text), ['root: Invalid value: "object": validation failed due to running out of cost budget, no further validation rules will be run']);
    assert.equal(r.remainingBudget, -1);
  });
  it('stops when one evaluation costs more than the per-call limit', () => {
    const r = runValidator(buildValidator(s, true, 0), { val1: 1 }, undefined, 10_000_000, path('root'));
    assert.equal(r.errors.length, 1);
    assert.equal(text(r.errors[0]!), "root: Invalid value: \"object\": 'operation cancelled: actual cost limit exceeded': no further validation rules will be run due to call cost exceeds limit for rule: self.val1 > 0");
    assert.equal(r.remainingBudget, -1);
  });
  it('runs rules and children until the budget is gone, then reports once', () => {
    const list = withRule(listType(withRule(integerType(), 'self >= 0')), 'size(self) < 100');
    const r = runValidator(buildValidator(list, false), [1, 2, 3, 4], undefined, 5, path('root'));
    assert.deepEqual(r.errors.map(text), ['root[1]: Invalid value: "integer": validation failed due to running out of cost budget, no further validation rules will be run']);
  });
});

describe('messageExpression (upstream TestMessageExpression)', () => {
  const cases: { name: string; message?: string; messageExpression: string; budget: number; perCallLimit?: number; expected: string; remaining?: number }[] = [
    { name: 'no cost error expected', messageExpression: '"static string"', budget: 300, expected: 'static string', remaining: 300 },
    { name: 'messageExpression takes precedence over message', message: 'invisible', messageExpression: '"this is messageExpression"', budget: 10_000_000, expected: 'this is messageExpression' },
    { name: 'default rule message used if messageExpression does not eval to string', messageExpression: 'true', budget: 10_000_000, expected: 'failed rule', remaining: 10_000_000 },
    { name: 'limit exceeded', messageExpression: '"string 1" + "string 2" + "string 3"', budget: 1, expected: 'messageExpression evaluation failed due to running out of cost budget', remaining: -1 },
    { name: 'messageExpression budget (str concat)', messageExpression: '"str1 " + self.str', budget: 50, expected: 'str1 a string', remaining: 46 },
    {
      name: 'runtime cost preserved if messageExpression fails during evaluation',
      message: 'message not messageExpression',
      messageExpression: '"str1 " + ["a", "b", "c", "d"][4]',
      budget: 50,
      expected: 'message not messageExpression',
      remaining: 47,
    },
    { name: 'runtime cost preserved if messageExpression fails during evaluation (no message set)', messageExpression: '"str1 " + ["a", "b", "c", "d"][4]', budget: 50, expected: 'failed rule', remaining: 47 },
    { name: 'per-call limit exceeded during messageExpression execution', messageExpression: '"string 1" + "string 2" + "string 3"', budget: 10_000_000, perCallLimit: 1, expected: 'call cost exceeds limit for messageExpression', remaining: -1 },
    { name: 'messageExpression is not allowed to generate a string with newlines', message: 'message not messageExpression', messageExpression: '"str with \\na newline"', budget: 10_000_000, expected: 'message not messageExpression' },
    { name: 'messageExpression is not allowed to generate messages >5000 characters', message: 'message not messageExpression', messageExpression: `"${'a'.repeat(5121)}"`, budget: 10_000_000, expected: 'message not messageExpression' },
    { name: 'messageExpression is not allowed to generate an empty string', message: 'message not messageExpression', messageExpression: 'string("")', budget: 10_000_000, expected: 'message not messageExpression' },
    { name: 'messageExpression is not allowed to generate a string with only spaces', message: 'message not messageExpression', messageExpression: 'string("     ")', budget: 10_000_000, expected: 'message not messageExpression' },
  ];
  for (const c of cases) {
    it(c.name, () => {
      const s = withRules(objectType({ str: stringType() }), { rule: 'false', messageExpression: c.messageExpression, ...(c.message ? { message: c.message } : {}) });
      const r = runValidator(buildValidator(s, false, c.perCallLimit), { str: 'a string' }, undefined, c.budget, path('root'));
      assert.equal(r.errors.length, 1);
      assert.ok(text(r.errors[0]!).includes(c.expected), text(r.errors[0]!));
      if (c.remaining !== undefined) assert.equal(r.remainingBudget, c.remaining);
    });
  }
  it("quotes the messageExpression as Go's %q does when the per-call limit stops it", () => {
    const s = withRules(objectType({ str: stringType() }), { rule: 'false', messageExpression: '"a" + "b"' });
    const r = runValidator(buildValidator(s, false, 0), { str: 'x' }, undefined, 100, path('root'));
    assert.equal(text(r.errors[0]!), 'root: Invalid value: "object": no further validation rules will be run due to call cost exceeds limit for messageExpression: "\\"a\\" + \\"b\\""');
  });
});

describe('reason and fieldPath (upstream TestReasonAndFldPath)', () => {
  const shape = (errs: FieldError[]) => errs.map((e) => ({ type: e.type, field: e.field })).sort((a, b) => a.field.localeCompare(b.field));
  it('reports the reason given', () => {
    const s = withRule(objectType({ f: withRules(objectType({ m: integerType() }), { rule: 'self.m == 2', reason: 'FieldValueForbidden' }) }), '1 == 1');
    assert.deepEqual(shape(run(s, { f: { m: 1 } }).errors), [{ type: 'FieldValueForbidden', field: 'root.f' }]);
  });
  it('reports Invalid by default', () => {
    const s = withRule(objectType({ f: withRules(objectType({ m: integerType() }), { rule: 'self.m == 2' }) }), '1 == 1');
    assert.deepEqual(shape(run(s, { f: { m: 1 } }).errors), [{ type: 'FieldValueInvalid', field: 'root.f' }]);
  });
  it('reports at the fieldPath given', () => {
    const s = withRule(objectType({ f: withRules(objectType({ m: integerType() }), { rule: 'self.m == 2', fieldPath: '.m', reason: 'FieldValueForbidden' }) }), '1 == 1');
    assert.deepEqual(shape(run(s, { f: { m: 1 } }).errors), [{ type: 'FieldValueForbidden', field: 'root.f.m' }]);
  });
  it('multiple rules with custom reason and field path, with their texts', () => {
    const s = withRules(
      objectType({ field1: stringType(), field2: stringType(), field3: stringType() }),
      { rule: 'self.field2 != "value2"', reason: 'FieldValueDuplicate', fieldPath: '.field2' },
      { rule: 'self.field3 != "value3"', reason: 'FieldValueRequired', fieldPath: '.field3' },
      { rule: 'self.field1 != "value1"', reason: 'FieldValueForbidden', fieldPath: '.field1' },
    );
    const errs = run(s, { field1: 'value1', field2: 'value2', field3: 'value3' }).errors;
    assert.deepEqual(errs.map(text), [
      'root.field2: Duplicate value: "object"',
      'root.field3: Required value: failed rule: self.field3 != "value3"',
      'root.field1: Forbidden: failed rule: self.field1 != "value1"',
    ]);
  });
});

describe('fieldPath syntax (upstream TestValidateFieldPath)', () => {
  const num = () => primitive('number');
  const sts = objectType({
    foo: { ...primitive('object'), additionalProperties: { bool: false, structural: objectType({ subAdd: num() }) } },
    'white space': num(),
    "'foo'bar": num(),
    a: objectType({ "foo's": num(), 'test\x07': num(), 'bb[b': num(), bbb: objectType({ c: num(), '34': num() }), 'bbb.c': objectType({ "a-b.3'4": num() }) }),
    list: listType(objectType({ a: num(), "a-b.3'4": num() })),
  });
  const cases: { name: string; fieldPath: string; err?: string; valid?: string }[] = [
    { name: 'Valid .a', fieldPath: '.a', valid: 'a' },
    { name: "Valid 'foo'bar", fieldPath: "['\\'foo\\'bar']", valid: "'foo'bar" },
    { name: "Invalid 'foo'bar", fieldPath: ".\\'foo\\'bar", err: 'does not refer to a valid field' },
    { name: 'Invalid with whitespace', fieldPath: '. a', err: 'does not refer to a valid field' },
    { name: 'Valid with whitespace inside field', fieldPath: '.white space' },
    { name: 'Valid with whitespace inside field (map syntax)', fieldPath: "['white space']" },
    { name: 'invalid dot annotation', fieldPath: '.a.bb[b', err: 'does not refer to a valid field' },
    { name: 'valid with .', fieldPath: ".a['bbb.c']", valid: 'a.bbb.c' },
    { name: 'Unclosed ]', fieldPath: ".a['bbb.c'", err: 'unexpected end of JSON path' },
    { name: 'Unexpected end of JSON path', fieldPath: '.', err: 'unexpected end of JSON path' },
    { name: 'Valid map key', fieldPath: '.foo.subAdd', valid: 'foo[subAdd]' },
    { name: 'Valid map key (map syntax)', fieldPath: ".foo['subAdd']", valid: 'foo[subAdd]' },
    { name: 'Invalid', fieldPath: ".a.foo's" },
    { name: 'Escaping', fieldPath: ".a['foo\\'s']", valid: "a.foo's" },
    { name: 'Escaping a control character', fieldPath: ".a['test\\a']", valid: 'a.test\x07' },
    { name: 'Invalid map key', fieldPath: '.a.foo', err: 'does not refer to a valid field' },
    { name: 'Malformed map key', fieldPath: '.a.bbb[0]', err: 'expected single quoted string but got 0' },
    { name: 'Valid refer for name has number', fieldPath: '.a.bbb.34' },
    { name: 'Map syntax for special field names', fieldPath: ".a.bbb['34']" },
    { name: 'Valid .list', fieldPath: '.list', valid: 'list' },
    { name: 'Invalid list index', fieldPath: '.list[0]', err: 'expected single quoted string but got 0' },
    { name: 'Invalid list reference', fieldPath: '.list. a', err: 'does not refer to a valid field' },
    { name: 'Invalid .list.a', fieldPath: ".list['a']", err: 'does not refer to a valid field' },
    { name: 'Missing leading dot', fieldPath: 'a', err: 'expected [ or . but got: a' },
    { name: 'Nonexistent field', fieldPath: '.c', err: 'does not refer to a valid field' },
    { name: 'Duplicate dots', fieldPath: '.a..b', err: 'does not refer to a valid field' },
    { name: 'object of array', fieldPath: '.list.a-b.34', err: 'does not refer to a valid field' },
    { name: 'invalid escape', fieldPath: ".a['x\\q']", err: 'invalid string literal: invalid escape char \\q' },
  ];
  for (const c of cases) {
    it(c.name, () => {
      const r = validFieldPath(c.fieldPath, sts);
      if (c.err) {
        assert.ok(r instanceof Error, 'an error');
        assert.ok(r.message.includes(c.err), r.message);
      } else {
        assert.ok(!(r instanceof Error), String(r));
        if (c.valid !== undefined) assert.equal(r.path, c.valid);
      }
    });
  }
  it('refuses array notation where it is not allowed (selectable fields)', () => {
    const r = validFieldPath(".a['bbb']", sts, false);
    assert.ok(r instanceof Error && r.message === 'array notation is not allowed');
  });
});

// ---- ratcheting ----

function mustSchema(source: string): Structural {
  return toStructural(yaml.load(source.replace(/\t/g, '  ')) as JSONSchemaProps);
}
const must = (source: string): unknown => yaml.load(source.replace(/\t/g, '  '));

describe('ratcheting (upstream TestRatcheting)', () => {
  const cases: { name: string; schema: string; oldObj: unknown; newObj: unknown; errors?: string[]; warnings?: string[]; budget?: number }[] = [
    {
      name: 'normal CEL expression',
      schema: `
type: object
properties:
  foo:
    type: string
    x-kubernetes-validations:
    - rule: self == "bar"
      message: "gotta be baz"`,
      oldObj: { foo: 'baz' },
      newObj: { foo: 'baz' },
      warnings: ['root.foo: Invalid value: "string": gotta be baz'],
    },
    {
      name: 'normal CEL expression thats a descendent of an atomic array whose parent is totally unchanged',
      schema: `
type: array
x-kubernetes-list-type: atomic
items:
  type: object
  properties:
    bar:
      type: string
      x-kubernetes-validations:
      - rule: self == "baz"
        message: "gotta be baz"`,
      oldObj: [{ bar: 'bar' }],
      newObj: [{ bar: 'bar' }],
      warnings: ['root[0].bar: Invalid value: "string": gotta be baz'],
    },
    {
      name: 'normal CEL expression thats a descendent of a set whose parent is totally unchanged',
      schema: `
type: array
x-kubernetes-list-type: set
items:
  type: number
  x-kubernetes-validations:
  - rule: int(self) % 2 == 1
    message: "gotta be odd"`,
      oldObj: [1, 2],
      newObj: [1, 2],
      warnings: ['root[1]: Invalid value: "number": gotta be odd'],
    },
    {
      name: 'normal CEL expression thats a descendent of a set and one of its siblings has changed',
      schema: `
type: object
properties:
  stringField:
    type: string
  setArray:
    type: array
    x-kubernetes-list-type: set
    items:
      type: number
      x-kubernetes-validations:
      - rule: int(self) % 2 == 1
        message: "gotta be odd"`,
      oldObj: { stringField: 'foo', setArray: [1, 3, 2] },
      newObj: { stringField: 'changed but ratcheted', setArray: [1, 3, 2] },
      warnings: ['root.setArray[2]: Invalid value: "number": gotta be odd'],
    },
    {
      name: 'descendent of a map list whose parent is unchanged',
      schema: `
type: array
x-kubernetes-list-type: map
x-kubernetes-list-map-keys: ["key"]
items:
  type: object
  properties:
    key:
      type: string
    value:
      type: string
      x-kubernetes-validations:
      - rule: self == "baz"
        message: "gotta be baz"`,
      oldObj: [
        { key: 'foo', value: 'notbaz' },
        { key: 'bar', value: 'notbaz' },
      ],
      newObj: [
        { key: 'foo', value: 'notbaz' },
        { key: 'bar', value: 'notbaz' },
        { key: 'baz', value: 'baz' },
      ],
      warnings: ['root[0].value: Invalid value: "string": gotta be baz', 'root[1].value: Invalid value: "string": gotta be baz'],
    },
    {
      name: 'descendent of a map list whose siblings have changed',
      schema: `
type: array
x-kubernetes-list-type: map
x-kubernetes-list-map-keys: ["key"]
items:
  type: object
  properties:
    key:
      type: string
    value:
      type: string
      x-kubernetes-validations:
      - rule: self == "baz"
        message: "gotta be baz"`,
      oldObj: [
        { key: 'foo', value: 'notbaz' },
        { key: 'bar', value: 'notbaz' },
      ],
      newObj: [
        { key: 'foo', value: 'baz' },
        { key: 'bar', value: 'notbaz' },
      ],
      warnings: ['root[1].value: Invalid value: "string": gotta be baz'],
    },
    {
      name: 'descendent of a map whose siblings have changed',
      schema: `
type: object
properties:
  stringField:
    type: string
  mapField:
    type: object
    properties:
      foo:
        type: string
        x-kubernetes-validations:
        - rule: self == "baz"
          message: "gotta be baz"
      mapField:
        type: object
        properties:
          bar:
            type: string
            x-kubernetes-validations:
            - rule: self == "baz"
              message: "gotta be baz"
          otherBar:
            type: string
            x-kubernetes-validations:
            - rule: self == "otherBaz"
              message: "gotta be otherBaz"`,
      oldObj: { stringField: 'foo', mapField: { foo: 'baz', mapField: { bar: 'notbaz', otherBar: 'nototherBaz' } } },
      newObj: { stringField: 'foo', mapField: { foo: 'notbaz', mapField: { bar: 'notbaz', otherBar: 'otherBaz' } } },
      errors: ['root.mapField.foo: Invalid value: "string": gotta be baz'],
      warnings: ['root.mapField.mapField.bar: Invalid value: "string": gotta be baz'],
    },
    {
      name: "we can't ratchet a normal CEL expression from an uncorrelatable part of the schema whose parent nodes has changed",
      schema: `
type: array
x-kubernetes-list-type: atomic
items:
  type: object
  properties:
    bar:
      type: string
      x-kubernetes-validations:
      - rule: self == "baz"
        message: "gotta be baz"`,
      oldObj: [{ bar: 'bar' }],
      newObj: [{ bar: 'bar' }, { bar: 'baz' }],
      errors: ['root[0].bar: Invalid value: "string": gotta be baz'],
    },
    {
      name: 'transition rules never ratchet for correlatable schemas',
      schema: `
type: object
properties:
  foo:
    type: string
    x-kubernetes-validations:
    - rule: oldSelf != "bar" && self == "baz"
      message: gotta be baz`,
      oldObj: { foo: 'bar' },
      newObj: { foo: 'bar' },
      errors: ['root.foo: Invalid value: "string": gotta be baz'],
    },
    {
      name: 'changing field path does not change ratcheting logic',
      schema: `
type: object
x-kubernetes-validations:
- rule: self.foo == "baz"
  message: gotta be baz
  fieldPath: ".foo"
properties:
  bar:
    type: string
  foo:
    type: string`,
      oldObj: { foo: 'bar' },
      newObj: { foo: 'bar', bar: 'invalid' },
      errors: ['root.foo: Invalid value: "object": gotta be baz'],
    },
    {
      name: 'cost budget errors are not ratcheted',
      schema: `
type: string
minLength: 5
x-kubernetes-validations:
- rule: self == "baz"
  message: gotta be baz`,
      oldObj: 'unchanged',
      newObj: 'unchanged',
      budget: 1,
      errors: ['validation failed due to running out of cost budget, no further validation rules will be run'],
    },
    {
      name: 'compile errors are not ratcheted',
      schema: `
type: string
x-kubernetes-validations:
- rule: asdausidyhASDNJm
  message: gotta be baz`,
      oldObj: 'unchanged',
      newObj: 'unchanged',
      errors: ["rule compile error: compilation failed: ERROR: <input>:1:1: undeclared reference to 'asdausidyhASDNJm'"],
    },
    {
      name: 'typemeta fields are not ratcheted',
      schema: `
type: object
properties:
  apiVersion:
    type: string
    x-kubernetes-validations:
    - rule: self == "v1"
  kind:
    type: string
    x-kubernetes-validations:
    - rule: self == "Pod"`,
      oldObj: { apiVersion: 'v2', kind: 'Baz' },
      newObj: { apiVersion: 'v2', kind: 'Baz' },
      errors: ['root.apiVersion: Invalid value: "string": failed rule: self == "v1"', 'root.kind: Invalid value: "string": failed rule: self == "Pod"'],
    },
    {
      name: 'nested typemeta fields may still be ratcheted',
      schema: `
type: object
properties:
  list:
    type: array
    x-kubernetes-list-type: map
    x-kubernetes-list-map-keys: ["name"]
    maxItems: 2
    items:
      type: object
      properties:
        name:
          type: string
        apiVersion:
          type: string
          x-kubernetes-validations:
          - rule: self == "v1"
        kind:
          type: string
          x-kubernetes-validations:
          - rule: self == "Pod"
  subField:
    type: object
    properties:
      apiVersion:
        type: string
        x-kubernetes-validations:
        - rule: self == "v1"
      kind:
        type: string
        x-kubernetes-validations:
        - rule: self == "Pod"
      otherField:
        type: string`,
      oldObj: must(`
subField:
  apiVersion: v2
  kind: Baz
list:
- name: entry1
  apiVersion: v2
  kind: Baz
- name: entry2
  apiVersion: v3
  kind: Bar`),
      newObj: must(`
subField:
  apiVersion: v2
  kind: Baz
  otherField: newValue
list:
- name: entry1
  apiVersion: v2
  kind: Baz
  otherField: newValue2
- name: entry2
  apiVersion: v3
  kind: Bar
  otherField: newValue3`),
      warnings: [
        'root.subField.apiVersion: Invalid value: "string": failed rule: self == "v1"',
        'root.subField.kind: Invalid value: "string": failed rule: self == "Pod"',
        'root.list[0].apiVersion: Invalid value: "string": failed rule: self == "v1"',
        'root.list[0].kind: Invalid value: "string": failed rule: self == "Pod"',
        'root.list[1].apiVersion: Invalid value: "string": failed rule: self == "v1"',
        'root.list[1].kind: Invalid value: "string": failed rule: self == "Pod"',
      ],
    },
  ];
  for (const c of cases) {
    it(c.name, () => {
      const s = mustSchema(c.schema);
      const r = runValidator(buildValidator(s, false), c.newObj, c.oldObj, c.budget ?? 10_000_000, path('root'));
      assert.equal(r.errors.length, (c.errors ?? []).length, r.errors.map(text).join('\n'));
      for (const e of c.errors ?? []) assert.ok(r.errors.some((x) => text(x).includes(e)), `error ${e} in ${r.errors.map(text).join('\n')}`);
      assert.deepEqual([...r.warnings].sort(), [...(c.warnings ?? [])].sort());
    });
  }

  it('reports ratcheted errors as warnings through validateWithRules, and creates never ratchet', () => {
    const compiled = compileSchemaRules(mustSchema(`
type: object
properties:
  spec:
    type: object
    properties:
      foo:
        type: string
        x-kubernetes-validations:
        - rule: self == "bar"
          message: gotta be bar`)) as CompiledRules;
    const warnings: string[] = [];
    const obj = { apiVersion: 'g/v1', kind: 'K', metadata: { name: 'a' }, spec: { foo: 'baz' } };
    assert.deepEqual(validateWithRules(compiled, obj, structuredClone(obj), undefined, { warnings }), []);
    assert.deepEqual(warnings, ['spec.foo: Invalid value: "string": gotta be bar']);
    assert.deepEqual(validateWithRules(compiled, obj, undefined).map(text), ['spec.foo: Invalid value: "string": gotta be bar']);
    assert.equal(validateRules(compiled, obj, undefined).remainingBudget, 10_000_000 - 2);
  });
});

describe('optionalOldSelf (upstream TestOptionalOldSelf)', () => {
  const opt = (s: Structural): Structural => ({ ...s, xValidations: (s.xValidations ?? []).map((r) => ({ ...r, optionalOldSelf: true })) });
  const foo = () => objectType({ foo: stringType() });
  const minRule = (s: Structural) => withRule(s, 'self >= 10 || (oldSelf.hasValue() && oldSelf.value() <= self)');
  const cases: { name: string; schema: Structural; obj: unknown; oldObj?: unknown; errors?: string[] }[] = [
    { name: 'allow new value if old value is null', obj: { foo: 'bar' }, schema: withRule(foo(), "self.foo == 'not bar' || !oldSelf.hasValue()") },
    { name: 'block new value if old value is not null', obj: { foo: 'invalid' }, oldObj: { foo: 'bar' }, schema: withRule(foo(), "self.foo == 'valid' || !oldSelf.hasValue()"), errors: ['failed rule'] },
    { name: 'allow invalid new value if old value is also invalid', obj: { foo: 'invalid again' }, oldObj: { foo: 'invalid' }, schema: withRule(foo(), "self.foo == 'valid' || (oldSelf.hasValue() && oldSelf.value().foo != 'valid')") },
    { name: 'allow invalid new value if old value is also invalid with chained optionals', obj: { foo: 'invalid again' }, oldObj: { foo: 'invalid' }, schema: withRule(foo(), "self.foo == 'valid' || oldSelf.foo.orValue('') != 'valid'") },
    { name: 'block invalid new value if old value is valid', obj: { foo: 'invalid' }, oldObj: { foo: 'valid' }, schema: withRule(foo(), "self.foo == 'valid' || (oldSelf.hasValue() && oldSelf.value().foo != 'valid')"), errors: ['failed rule'] },
    { name: 'create: new min or allow higher than oldValue', obj: 10, schema: minRule(integerType()) },
    { name: 'block create: new min or allow higher than oldValue', obj: 9, schema: minRule(integerType()), errors: ['failed rule'] },
    { name: 'update: new min or allow higher than oldValue', obj: 10, oldObj: 5, schema: minRule(integerType()) },
    { name: 'ratchet update: new min or allow higher than oldValue', obj: 9, oldObj: 5, schema: minRule(integerType()) },
    { name: 'ratchet noop update: new min or allow higher than oldValue', obj: 5, oldObj: 5, schema: minRule(integerType()) },
    { name: 'block update: new min or allow higher than oldValue', obj: 4, oldObj: 5, schema: minRule(integerType()), errors: ['failed rule'] },
  ];
  for (const c of cases) {
    it(c.name, () => assertErrorsMatch(run(opt(c.schema), c.obj, c.oldObj).errors, c.errors ?? []));
  }

  describe('type(oldSelf) checks work with and without an old value (TestOptionalOldSelfCheckForNull)', () => {
    const nullCases: { name: string; schema: Structural; obj: unknown; oldObj: unknown }[] = [
      { name: 'object', obj: { foo: 'bar' }, oldObj: { foo: 'baz' }, schema: withRule(foo(), '!oldSelf.hasValue() || self.foo == "bar"') },
      { name: 'object - conditional field', obj: { foo: 'bar' }, oldObj: { foo: 'baz' }, schema: withRule(foo(), 'self.foo != "bar" || oldSelf.?foo.orValue("baz") == "baz"') },
      { name: 'string', obj: 'bar', oldObj: 'baz', schema: withRule(stringType(), '\n!oldSelf.hasValue() || self == "bar"\n') },
      { name: 'integer', obj: 1, oldObj: 2, schema: withRule(integerType(), '!oldSelf.hasValue() || self == 1') },
      { name: 'number', obj: 1.1, oldObj: 2.2, schema: withRule(primitive('number'), '!oldSelf.hasValue() || self == 1.1') },
      { name: 'boolean', obj: true, oldObj: false, schema: withRule(primitive('boolean'), '!oldSelf.hasValue() || self == true') },
      { name: 'array', obj: ['bar'], oldObj: ['baz'], schema: withRule(arrayType('', undefined, stringType()), '!oldSelf.hasValue() || self[0] == "bar"') },
      { name: 'array - conditional index', obj: [], oldObj: ['baz'], schema: withRule(arrayType('', undefined, stringType()), 'self.size() > 0 || oldSelf[?0].orValue("baz") == "baz"') },
      { name: 'set-array', obj: ['bar'], oldObj: ['baz'], schema: withRule(arrayType('set', undefined, stringType()), '!oldSelf.hasValue() || self[0] == "bar"') },
      {
        name: 'map-array',
        obj: [{ key: 'foo', value: 'bar' }],
        oldObj: [{ key: 'foo', value: 'baz' }],
        schema: withRule(arrayType('map', ['key'], objectType({ key: stringType(), value: stringType() })), '!oldSelf.hasValue() || self[0].value == "bar"'),
      },
    ];
    for (const c of nullCases) {
      it(`${c.name}: null old`, () => assert.deepEqual(run(opt(c.schema), c.obj, undefined, undefined, false).errors.map(text), []));
      it(`${c.name}: non-null old`, () => assert.deepEqual(run(opt(c.schema), c.obj, c.oldObj, undefined, false).errors.map(text), []));
    }
  });

  describe('oldSelf is an optional (TestOptionalOldSelfIsOptionalType)', () => {
    const typeCases: { name: string; schema: Structural; obj: unknown; error: string }[] = [
      { name: 'forbid direct usage of optional integer', schema: withRule(integerType(), 'oldSelf + self > 5'), obj: 5, error: "no matching overload for '_+_' applied to '(optional_type(int), int)" },
      { name: 'forbid direct usage of optional string', schema: withRule(stringType(), 'oldSelf == "foo"'), obj: 'bar', error: "no matching overload for '_==_' applied to '(optional_type(string), string)" },
      { name: 'forbid direct usage of optional array', schema: withRule(arrayType('', undefined, stringType()), 'oldSelf.all(x, x == x)'), obj: ['bar'], error: "expression of type 'optional_type(list(string))' cannot be range of a comprehension" },
      { name: 'forbid direct usage of optional array element', schema: withRule(arrayType('', undefined, stringType()), 'oldSelf[0] == "foo"'), obj: ['bar'], error: "found no matching overload for '_==_' applied to '(optional_type(string), string)" },
    ];
    for (const c of typeCases) {
      it(c.name, () => assertErrorsMatch(run(opt(c.schema), c.obj, c.obj, undefined, false).errors, [c.error]));
    }
  });
});
