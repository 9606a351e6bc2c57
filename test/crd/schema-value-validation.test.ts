import assert from 'node:assert/strict';
import { test } from 'node:test';
import { fieldErrorText, type FieldError } from '../../src/api/errors.ts';
import { toStructural } from '../../src/crd/schema/convert.ts';
import { validateValue, ValueValidator } from '../../src/crd/schema/value-validation/validator.ts';
import type { JSONSchemaProps } from '../../src/crd/schema/types.ts';

const text = (e: FieldError) => `${e.field}: ${fieldErrorText(e)}`;

function errorsOf(schema: JSONSchemaProps, obj: unknown, old?: unknown): string[] {
  const errs = validateValue(obj, toStructural(schema), old === undefined ? {} : { old });
  return errs.map(text).sort();
}

function cases(schema: JSONSchemaProps, valid: unknown[], failing: [unknown, string[]][]): void {
  for (const obj of valid) assert.deepEqual(errorsOf(schema, obj), [], JSON.stringify(obj));
  for (const [obj, expected] of failing) assert.deepEqual(errorsOf(schema, obj), [...expected].sort(), JSON.stringify(obj));
}

const withField = (field: JSONSchemaProps): JSONSchemaProps => ({ type: 'object', properties: { field } });

// apiextensions-apiserver pkg/apiserver/validation/validation_test.go (TestValidateCustomResource)
test('value validation: !nullable', () => {
  cases(withField({ type: 'object', nullable: false }), [{}, { field: {} }], [
    [{ field: 'foo' }, ['field: Invalid value: "string": field in body must be of type object: "string"']],
    [{ field: 42 }, ['field: Invalid value: "integer": field in body must be of type object: "integer"']],
    [{ field: true }, ['field: Invalid value: "boolean": field in body must be of type object: "boolean"']],
    [{ field: 1.2 }, ['field: Invalid value: "number": field in body must be of type object: "number"']],
    [{ field: [] }, ['field: Invalid value: "array": field in body must be of type object: "array"']],
    [{ field: null }, ['field: Invalid value: "null": field in body must be of type object: "null"']],
  ]);
});

test('value validation: nullable', () => {
  cases(withField({ type: 'object', nullable: true }), [{}, { field: {} }, { field: null }], [
    [{ field: 'foo' }, ['field: Invalid value: "string": field in body must be of type object: "string"']],
    [{ field: 42 }, ['field: Invalid value: "integer": field in body must be of type object: "integer"']],
    [{ field: [] }, ['field: Invalid value: "array": field in body must be of type object: "array"']],
  ]);
});

test('value validation: nullable and no type', () => {
  cases(withField({ nullable: true }), [{}, { field: {} }, { field: null }, { field: 'foo' }, { field: 42 }, { field: true }, { field: 1.2 }, { field: [] }], []);
});

test('value validation: x-kubernetes-int-or-string', () => {
  const t = (v: string) => `field: Invalid value: "${v}": field in body must be of type integer,string: "${v}"`;
  cases(withField({ 'x-kubernetes-int-or-string': true }), [{}, { field: 42 }, { field: 'foo' }], [
    [{ field: null }, [t('null')]],
    [{ field: true }, [t('boolean')]],
    [{ field: 1.2 }, [t('number')]],
    [{ field: {} }, [t('object')]],
    [{ field: [] }, [t('array')]],
  ]);
  cases(withField({ nullable: true, 'x-kubernetes-int-or-string': true }), [{}, { field: 42 }, { field: 'foo' }, { field: null }], [[{ field: true }, [t('boolean')]]]);
});

test('value validation: int-or-string with a user anyOf reports the best branch and a root composite error', () => {
  const t = (v: string) => [
    '<nil>: Invalid value: "": "field" must validate at least one schema (anyOf)',
    `field: Invalid value: "${v}": field in body must be of type integer,string: "${v}"`,
    `field: Invalid value: "${v}": field in body must be of type integer: "${v}"`,
  ];
  cases(withField({ nullable: true, 'x-kubernetes-int-or-string': true, anyOf: [{ type: 'integer' }, { type: 'string' }] }), [{}, { field: null }, { field: 42 }, { field: 'foo' }], [
    [{ field: true }, t('boolean')],
    [{ field: 1.2 }, t('number')],
    [{ field: {} }, t('object')],
    [{ field: [] }, t('array')],
  ]);
  const all = (v: string) => ['<nil>: Invalid value: "": "field" must validate all the schemas (allOf). None validated', ...t(v)];
  cases(withField({ nullable: true, 'x-kubernetes-int-or-string': true, allOf: [{ anyOf: [{ type: 'integer' }, { type: 'string' }] }] }), [{}, { field: null }, { field: 42 }, { field: 'foo' }], [
    [{ field: true }, all('boolean')],
    [{ field: 1.2 }, all('number')],
  ]);
});

test('value validation: required fields', () => {
  cases({ type: 'object', required: ['field'], properties: { field: { type: 'object', required: ['nested'], properties: { nested: {} } } } }, [], [
    [{ test: 'a' }, ['field: Required value']],
    [{ field: {} }, ['field.nested: Required value']],
  ]);
});

test('value validation: enum', () => {
  const schema: JSONSchemaProps = {
    type: 'object',
    properties: {
      field: {
        type: 'object',
        required: ['nestedint', 'nestedstring'],
        properties: { nestedint: { type: 'integer', enum: [1, 2] }, nestedstring: { type: 'string', enum: ['a', 'b'] } },
      },
    },
  };
  cases(schema, [{ field: { nestedint: 1, nestedstring: 'b' } }], [
    [{ field: {} }, ['field.nestedint: Required value', 'field.nestedstring: Required value']],
    [
      { field: { nestedint: 'x', nestedstring: true } },
      [
        'field.nestedint: Invalid value: "string": field.nestedint in body must be of type integer: "string"',
        'field.nestedint: Unsupported value: "x": supported values: "1", "2"',
        'field.nestedstring: Invalid value: "boolean": field.nestedstring in body must be of type string: "boolean"',
        'field.nestedstring: Unsupported value: true: supported values: "a", "b"',
      ],
    ],
  ]);
});

test('value validation: an invalid pattern fails every value with the compile error', () => {
  cases(withField({ type: 'string', pattern: '+' }), [], [[{ field: 'foo' }, ["field: Invalid value: \"foo\": field in body should match '+, but pattern is invalid: error parsing regexp: missing argument to repetition operator: `+`'"]]]);
});

test('value validation: maxProperties, maxItems, maxLength', () => {
  cases({ type: 'object', properties: { fieldX: { type: 'object', maxProperties: 2 } } }, [], [[{ fieldX: { a: true, b: true, c: true } }, ['fieldX: Too many: 3: must have at most 2 items']]]);
  cases({ type: 'object', properties: { fieldX: { type: 'array', maxItems: 2 } } }, [], [[{ fieldX: ['a', 'b', 'c'] }, ['fieldX: Too many: 3: must have at most 2 items']]]);
  // maxLength counts characters, the message says bytes (as upstream).
  cases({ type: 'object', properties: { fieldX: { type: 'string', maxLength: 2 } } }, [{ fieldX: 'éé' }], [[{ fieldX: 'abc' }, ['fieldX: Too long: may not be more than 2 bytes']]]);
});

test('value validation: k8s-short-name and k8s-long-name formats', () => {
  cases({ type: 'object', properties: { fieldX: { type: 'string', format: 'k8s-long-name' } } }, [{ fieldX: 'a.b' }], [[{ fieldX: 'a.-' }, ['fieldX: Invalid value: "a.-": fieldX in body must be of type k8s-long-name: "a.-"']]]);
  cases({ type: 'object', properties: { fieldX: { type: 'string', format: 'k8s-short-name' } } }, [{ fieldX: 'a' }], [[{ fieldX: 'a-' }, ['fieldX: Invalid value: "a-": fieldX in body must be of type k8s-short-name: "a-"']]]);
});

test('value validation: items and properties named "items" (TestItemsProperty)', () => {
  cases({ properties: { spec: { properties: { replicas: { type: 'integer' } } } } }, [{ spec: { replicas: 1, items: ['1', '2'] } }], []);
  cases({ properties: { secrets: { type: 'array', items: { type: 'string' } } } }, [{ secrets: ['1', '2'] }], [[{ secrets: ['1', 2] }, ['secrets[1]: Invalid value: "integer": secrets[1] in body must be of type string: "integer"']]]);
});

// kube-openapi's numeric and string validators, as custom resources see them.
test('value validation: numbers: bounds, exclusive bounds, multipleOf', () => {
  const s = withField({ type: 'integer', minimum: 1, maximum: 10 });
  cases(s, [{ field: 1 }, { field: 10 }], [
    [{ field: 0 }, ['field: Invalid value: 0: field in body should be greater than or equal to 1']],
    [{ field: 11 }, ['field: Invalid value: 11: field in body should be less than or equal to 10']],
  ]);
  cases(withField({ type: 'number', exclusiveMinimum: true, minimum: 0.5, exclusiveMaximum: true, maximum: 1.5 }), [{ field: 1.2 }], [
    [{ field: 0.5 }, ['field: Invalid value: 0.5: field in body should be greater than 0.5']],
    [{ field: 1.5 }, ['field: Invalid value: 1.5: field in body should be less than 1.5']],
    // An integer meets the int64 bound (1): 1 is not less than 1.
    [{ field: 1 }, ['field: Invalid value: 1: field in body should be less than 1']],
  ]);
  // An integer is checked against the int64 bound: maximum 5.5 bounds integers at 5.
  cases(withField({ type: 'number', maximum: 5.5 }), [{ field: 5 }, { field: 5.5 }], [[{ field: 6 }, ['field: Invalid value: 6: field in body should be less than or equal to 5']]]);
  cases(withField({ type: 'number', multipleOf: 3 }), [{ field: 9 }, { field: 1.5e1 }], [[{ field: 10 }, ['field: Invalid value: 10: field in body should be a multiple of 3']]]);
  cases(withField({ type: 'number', multipleOf: 0.1 }), [{ field: 0.3 }], [[{ field: 0.35 }, ['field: Invalid value: 0.35: field in body should be a multiple of 0.1']]]);
  // An integer never passes a fractional multipleOf: its int64 factor is 0.
  cases(withField({ type: 'number', multipleOf: 0.5 }), [{ field: 1.5 }], [[{ field: 2 }, ['field: Invalid value: 0: factor MultipleOf declared for field must be positive: 0']]]);
  // A float that is a JSON integer passes type integer.
  cases(withField({ type: 'integer' }), [{ field: 3 }], [[{ field: 3.5 }, ['field: Invalid value: "number": field in body must be of type integer: "number"']]]);
  // Large floats print as Go's %v does.
  cases(withField({ type: 'number', maximum: 1e6 }), [], [[{ field: 1234567.5 }, ['field: Invalid value: 1.2345675e+06: field in body should be less than or equal to 1e+06']]]);
});

test('value validation: strings: min length, pattern, formats', () => {
  cases(withField({ type: 'string', minLength: 3, pattern: '^a' }), [{ field: 'abc' }], [
    [{ field: 'ab' }, ['field: Invalid value: "ab": field in body should be at least 3 chars long']],
    [{ field: 'bcd' }, ["field: Invalid value: \"bcd\": field in body should match '^a'"]],
  ]);
  cases(withField({ type: 'string', format: 'date-time' }), [{ field: '2024-01-01T00:00:00Z' }], [[{ field: 'yesterday' }, ['field: Invalid value: "yesterday": field in body must be of type date-time: "yesterday"']]]);
  // Formats 1.34 does not support are not checked.
  cases(withField({ type: 'string', format: 'int32' }), [{ field: 'anything' }], []);
  cases(withField({ type: 'string', format: 'bogus' }), [{ field: 'anything' }], []);
  // RE2, not JavaScript regexes: \d is ASCII only, $ is the end of the text.
  cases(withField({ type: 'string', pattern: '^\\d+$' }), [{ field: '123' }], [[{ field: '١٢٣' }, ["field: Invalid value: \"١٢٣\": field in body should match '^\\d+$'"]]]);
});

test('value validation: arrays: items, minItems, uniqueItems', () => {
  cases(withField({ type: 'array', minItems: 2, items: { type: 'string' } }), [{ field: ['a', 'b'] }], [
    [{ field: ['a'] }, ['field: Invalid value: 1: field in body should have at least 2 items']],
    [{ field: ['a', 3] }, ['field[1]: Invalid value: "integer": field[1] in body must be of type string: "integer"']],
  ]);
  cases(withField({ type: 'array', uniqueItems: true, items: { type: 'object' } }), [{ field: [{ a: 1 }, { a: 2 }] }], [[{ field: [{ a: 1 }, { a: 1 }] }, ['field: Invalid value: "": field in body shouldn\'t contain duplicates']]]);
});

test('value validation: objects: minProperties, additionalProperties', () => {
  cases(withField({ type: 'object', minProperties: 1 }), [{ field: { a: 1 } }], [[{ field: {} }, ['field: Invalid value: 0: field in body should have at least 1 properties']]]);
  cases(withField({ type: 'object', additionalProperties: { type: 'integer' } }), [{ field: { a: 1 } }], [[{ field: { a: 'x' } }, ['field.a: Invalid value: "string": .a in body must be of type integer: "string"'.replace('.a in', 'field.a in')]]]);
  cases(withField({ type: 'object', additionalProperties: false }), [{ field: {} }], [[{ field: { a: 1 } }, ['field: Invalid value: "a": field.a in body is a forbidden property']]]);
});

test('value validation: oneOf and not', () => {
  const s = withField({ type: 'integer', oneOf: [{ minimum: 0 }, { maximum: 10 }] });
  cases(s, [{ field: -5 }, { field: 20 }], [[{ field: 5 }, ['<nil>: Invalid value: "": "field" must validate one and only one schema (oneOf). Found 2 valid alternatives']]]);
  cases(withField({ type: 'string', not: { enum: ['x'] } }), [{ field: 'y' }], [[{ field: 'x' }, ['<nil>: Invalid value: "": "field" must not validate the schema (not)']]]);
});

test('value validation: enum quirks of Go conversion; null never matches', () => {
  cases(withField({ enum: ['A', 1] }), [{ field: 'A' }, { field: 1 }, { field: 65 }, { field: 1.7 }], [
    [{ field: 'B' }, ['field: Unsupported value: "B": supported values: "A", "1"']],
    [{ field: null }, ['field: Unsupported value: null: supported values: "A", "1"']],
  ]);
  cases(withField({ enum: [{ a: 1 }, [1, 2]] }), [{ field: { a: 1 } }, { field: [1, 2] }], [[{ field: { a: 2 } }, ['field: Unsupported value: {"a":2}: supported values: "{\\"a\\":1}", "[1,2]"']]]);
});

test('value validation: the status subresource validates under its root path', () => {
  const s = toStructural({ type: 'object', properties: { status: { type: 'object', properties: { n: { type: 'integer' } }, anyOf: [{ required: ['n'] }] } } });
  const errs = validateValue({ m: 1 }, s.properties!.status!, { root: 'status' });
  assert.deepEqual(errs.map(text), ['status: Invalid value: "": "" must validate at least one schema (anyOf)', 'status.n: Required value']);
});

// Ratcheting (CRDValidationRatcheting, GA in 1.33): ratcheting_test.go and the correlation rules.
test('ratcheting: unchanged invalid values pass an update, changed ones do not', () => {
  const medium: JSONSchemaProps = { type: 'number', minimum: 50, maximum: 10000 };
  const obj: JSONSchemaProps = { type: 'object', properties: { zero: { type: 'number', minimum: 0, maximum: 0 }, small: { type: 'number', maximum: 50 }, medium, large: { type: 'number', minimum: 10000 } } };
  const s = toStructural(obj);
  const v = new ValueValidator(s);
  assert.deepEqual(v.validate({ small: 500 }, { old: { small: 500 } }), []);
  assert.deepEqual(v.validate({ small: 501 }, { old: { small: 501, medium: 500 } }), []);
  assert.deepEqual(v.validate({ small: 500 }, { old: { small: 501 } }).map(text), ['small: Invalid value: 500: small in body should be less than or equal to 50']);
  // Without the old object it is an error.
  assert.equal(v.validate({ small: 500 }).length, 1);
  const nested = toStructural({ type: 'object', properties: { nested: obj } });
  assert.deepEqual(validateValue({ nested: { small: 500 } }, nested, { old: { nested: { small: 500 } } }), []);
  assert.deepEqual(validateValue({ nested: { small: 501 } }, nested, { old: { nested: { small: 501, medium: 500 } } }), []);
  assert.equal(validateValue({ nested: { small: 500 } }, nested, { old: { nested: { small: 501 } } }).length, 1);
  const scalar = toStructural(medium);
  assert.deepEqual(validateValue(1, scalar, { old: 1 }), []);
  assert.equal(validateValue(1, scalar, { old: 2 }).length, 1);
});

test('ratcheting: map-list items pair by key; atomic list items do not', () => {
  const s = toStructural({
    type: 'object',
    properties: {
      maps: { type: 'array', 'x-kubernetes-list-type': 'map', 'x-kubernetes-list-map-keys': ['name'], items: { type: 'object', required: ['name'], properties: { name: { type: 'string' }, v: { type: 'integer', maximum: 1 } } } },
      atomic: { type: 'array', items: { type: 'object', properties: { v: { type: 'integer', maximum: 1 } } } },
    },
  });
  // Reordered but unchanged map items ratchet; a new bad item does not.
  assert.deepEqual(validateValue({ maps: [{ name: 'b', v: 1 }, { name: 'a', v: 5 }] }, s, { old: { maps: [{ name: 'a', v: 5 }, { name: 'b', v: 1 }] } }), []);
  assert.deepEqual(
    validateValue({ maps: [{ name: 'a', v: 5 }, { name: 'c', v: 7 }] }, s, { old: { maps: [{ name: 'a', v: 5 }] } }).map(text),
    ['maps[1].v: Invalid value: 7: maps[1].v in body should be less than or equal to 1'],
  );
  // An unchanged atomic list compares as a whole; a changed one reports every bad item.
  assert.deepEqual(validateValue({ atomic: [{ v: 5 }] }, s, { old: { atomic: [{ v: 5 }] } }), []);
  assert.deepEqual(validateValue({ atomic: [{ v: 5 }, { v: 0 }] }, s, { old: { atomic: [{ v: 5 }] } }).map(text), ['atomic[0].v: Invalid value: 5: atomic[0].v in body should be less than or equal to 1']);
});

test('ratcheting: fields the schema does not specify make an object "changed"', () => {
  const s = toStructural({ type: 'object', properties: { spec: { type: 'object', 'x-kubernetes-preserve-unknown-fields': true, properties: { v: { type: 'integer', maximum: 1 } }, minProperties: 3 } } });
  // spec.v is unchanged: its error ratchets. spec itself has an unspecified field: never unchanged.
  const errs = validateValue({ spec: { v: 5, free: 1 } }, s, { old: { spec: { v: 5, free: 1 } } });
  assert.deepEqual(errs.map(text), ['spec: Invalid value: 2: spec in body should have at least 3 properties']);
});
