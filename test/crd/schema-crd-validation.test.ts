import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { FieldError } from '../../src/api/errors.ts';
import { fieldErrorText } from '../../src/api/errors.ts';
import { validateCrdSchema, type CrdSchemaOptions } from '../../src/crd/schema/crd-validation.ts';
import { optionsForUpdate, unrecognizedFormats } from '../../src/crd/schema/crd-ratchets.ts';
import { nonStructuralSchemaCondition } from '../../src/crd/schema/non-structural-condition.ts';
import type { JSONSchemaProps } from '../../src/crd/schema/types.ts';

// upstream's validation_test.go runs these with validationOptions' zero value plus what a case sets.
const ZERO: CrdSchemaOptions = {
  path: 'spec.validation',
  allowDefaults: false,
  requireValidPropertyType: false,
  requireStructuralSchema: false,
  requirePrunedDefaults: false,
  requireAtomicSetType: false,
  requireMapListKeysMapSetValidation: false,
};
// What a new v1 CRD is validated with.
const CREATE: CrdSchemaOptions = { path: 'spec.validation' };

type Match = [type: FieldError['type'], field: string];
const P = 'spec.validation.openAPIV3Schema';

function matches(errs: FieldError[]): Match[] {
  return errs.map((e) => [e.type, e.field] as Match).sort();
}

function check(schema: JSONSchemaProps, opts: CrdSchemaOptions, expected: Match[]): FieldError[] {
  const errs = validateCrdSchema(schema, opts);
  assert.deepEqual(matches(errs), [...expected].sort(), errs.map((e) => `${e.field}: ${fieldErrorText(e)}`).join('\n'));
  return errs;
}

const text = (e: FieldError) => `${e.field}: ${fieldErrorText(e)}`;

const invalid = (f: string): Match => ['FieldValueInvalid', f];
const required = (f: string): Match => ['FieldValueRequired', f];
const forbidden = (f: string): Match => ['FieldValueForbidden', f];
const unsupported = (f: string): Match => ['FieldValueNotSupported', f];
const typeInvalid = (f: string): Match => ['FieldValueTypeInvalid', f];

// TestValidateCustomResourceDefinitionValidation
test('crd schema: root type with and without the status subresource', () => {
  check({ type: 'string' }, ZERO, []);
  const [e] = check({ type: 'string' }, { ...ZERO, statusSubresourceEnabled: true }, [invalid(`${P}.type`)]);
  assert.equal(text(e!), `${P}.type: Invalid value: "string": only "object" is allowed as the type at the root of the schema if the status subresource is enabled`);
});

test('crd schema: with status, anyOf at the root is refused with the whole schema printed as Go prints the internal type', () => {
  const [e] = check({ anyOf: [{ description: 'First schema' }, { description: 'Second schema' }] }, { ...ZERO, statusSubresourceEnabled: true }, [invalid(P)]);
  assert.match(
    fieldErrorText(e!),
    /^Invalid value: \{"ID":"","Schema":"","Ref":null,"Description":"","Type":"",.*"AnyOf":\[\{"ID":"",.*"Description":"First schema".*"XValidations":null\}: only \[Description Type Format Title Maximum ExclusiveMaximum Minimum ExclusiveMinimum MaxLength MinLength Pattern MaxItems MinItems UniqueItems MultipleOf Required Items Properties ExternalDocs Example XPreserveUnknownFields XValidations\] fields are allowed at the root of the schema if the status subresource is enabled$/,
  );
});

test('crd schema: every keyword allowed at a status-enabled root', () => {
  const schema: JSONSchemaProps = {
    description: 'This is a description',
    type: 'object',
    format: 'date-time',
    title: 'This is a title',
    maximum: 10,
    exclusiveMaximum: true,
    minimum: 1,
    exclusiveMinimum: true,
    maxLength: 10,
    minLength: 1,
    pattern: '^[a-z]$',
    maxItems: 10,
    minItems: 1,
    uniqueItems: false,
    multipleOf: 2,
    required: ['foo'],
    properties: { foo: { type: 'string' } },
    externalDocs: { description: 'x', url: 'https://example.com' },
    example: { foo: 'bar' },
    'x-kubernetes-preserve-unknown-fields': true,
  };
  check(schema, { ...ZERO, statusSubresourceEnabled: true }, []);
});

test('crd schema: null types, nullable', () => {
  const [e] = check({ properties: { null: { type: 'null' } } }, ZERO, [forbidden(`${P}.properties[null].type`)]);
  assert.equal(fieldErrorText(e!), 'Forbidden: type cannot be set to null, use nullable as an alternative');
  const [n] = check({ type: 'object', nullable: true }, ZERO, [forbidden(`${P}.nullable`)]);
  assert.equal(fieldErrorText(n!), 'Forbidden: nullable cannot be true at the root');
  check({ properties: { nullable: { nullable: true } } }, ZERO, []);
  check({ properties: { object: { type: 'object', nullable: true }, array: { type: 'array', nullable: true }, number: { type: 'number', nullable: true } } }, ZERO, []);
});

test('crd schema: must be structural', () => {
  const [e] = check({}, { ...ZERO, requireStructuralSchema: true }, [required(`${P}.type`)]);
  assert.equal(fieldErrorText(e!), 'Required value: must not be empty at the root');
  check({ type: 'object' }, { ...ZERO, requireStructuralSchema: true }, []);
});

test('crd schema: valid property types', () => {
  check({ type: 'object' }, { ...ZERO, requireValidPropertyType: true, requireStructuralSchema: true }, []);
  const errs = check({ type: 'null' }, { ...ZERO, requireValidPropertyType: true, requireStructuralSchema: true }, [
    unsupported(`${P}.type`),
    forbidden(`${P}.type`),
    invalid(`${P}.type`),
  ]);
  assert.deepEqual(errs.map(text).sort(), [
    `${P}.type: Forbidden: type cannot be set to null, use nullable as an alternative`,
    `${P}.type: Invalid value: "null": must be object at the root`,
    `${P}.type: Unsupported value: "null": supported values: "array", "boolean", "integer", "number", "object", "string"`,
  ]);
  check({ type: 'bogus' }, { ...ZERO, requireValidPropertyType: true, requireStructuralSchema: true }, [unsupported(`${P}.type`), invalid(`${P}.type`)]);
});

test('crd schema: x-kubernetes-list-type and list-map-keys', () => {
  const [e] = check({ type: 'object', 'x-kubernetes-list-type': 'set' }, ZERO, [invalid(`${P}.type`)]);
  assert.equal(fieldErrorText(e!), 'Invalid value: "object": must be array if x-kubernetes-list-type is specified');
  check({ 'x-kubernetes-list-type': 'set' }, ZERO, [required(`${P}.type`)]);
  const [u] = check({ type: 'array', 'x-kubernetes-list-type': 'invalid' }, ZERO, [unsupported(`${P}.x-kubernetes-list-type`)]);
  assert.equal(fieldErrorText(u!), 'Unsupported value: "invalid": supported values: "atomic", "set", "map"');
  check({ type: 'array', 'x-kubernetes-list-type': 'set', 'x-kubernetes-list-map-keys': ['key'] }, ZERO, [invalid(`${P}.x-kubernetes-list-type`)]);
  check({ 'x-kubernetes-list-map-keys': ['key'] }, ZERO, [required(`${P}.x-kubernetes-list-type`)]);
  check({ type: 'array', 'x-kubernetes-list-type': 'map' }, ZERO, [required(`${P}.x-kubernetes-list-map-keys`), required(`${P}.items`)]);
  check({ type: 'array', 'x-kubernetes-list-type': 'map', 'x-kubernetes-list-map-keys': ['key'] }, ZERO, [required(`${P}.items`)]);
  check({ type: 'array', 'x-kubernetes-list-type': 'map', 'x-kubernetes-list-map-keys': ['key'], items: [{ type: 'string' }, { type: 'integer' }] }, ZERO, [
    forbidden(`${P}.items`),
    invalid(`${P}.items`),
  ]);
  const [t] = check({ type: 'array', 'x-kubernetes-list-type': 'map', 'x-kubernetes-list-map-keys': ['key'], items: { type: 'string' } }, ZERO, [invalid(`${P}.items.type`)]);
  assert.equal(fieldErrorText(t!), `Invalid value: "string": must be object if parent array's x-kubernetes-list-type is map`);
  const [k] = check({ type: 'array', 'x-kubernetes-list-type': 'map', 'x-kubernetes-list-map-keys': ['key'], items: { type: 'object' } }, ZERO, [invalid(`${P}.x-kubernetes-list-map-keys`)]);
  assert.equal(fieldErrorText(k!), 'Invalid value: ["key"]: entries must all be names of item properties');
  check({ type: 'array', 'x-kubernetes-list-type': 'map', 'x-kubernetes-list-map-keys': ['key'], items: { type: 'object', properties: { key: { type: 'object' } } } }, ZERO, [
    invalid(`${P}.items.properties[key].type`),
  ]);
  check({ type: 'array', 'x-kubernetes-list-type': 'map', 'x-kubernetes-list-map-keys': ['key', 'key'], items: { type: 'object', properties: { key: { type: 'string' } } } }, ZERO, [
    invalid(`${P}.x-kubernetes-list-map-keys`),
  ]);
  check({ type: 'array', 'x-kubernetes-list-type': 'map', 'x-kubernetes-list-map-keys': ['keyA', 'keyB'], items: { type: 'object', properties: { keyA: { type: 'string' }, keyB: { type: 'integer' } } } }, ZERO, []);
  // A map-list key named like an Object.prototype member is still looked up as a property.
  check({ type: 'array', 'x-kubernetes-list-type': 'map', 'x-kubernetes-list-map-keys': ['constructor'], items: { type: 'object' } }, ZERO, [invalid(`${P}.x-kubernetes-list-map-keys`)]);
});

test('crd schema: sets need atomic items', () => {
  check({ type: 'array', 'x-kubernetes-list-type': 'atomic', items: { type: 'string' } }, ZERO, []);
  check({ type: 'array', 'x-kubernetes-list-type': 'atomic', items: { type: 'object', properties: {} } }, ZERO, []);
  check({ type: 'array', 'x-kubernetes-list-type': 'set', items: { type: 'string' } }, ZERO, []);
  check({ type: 'array', 'x-kubernetes-list-type': 'set', items: { type: 'object', 'x-kubernetes-map-type': 'atomic', properties: { foo: { type: 'string' } } } }, ZERO, []);
  const atomic = { ...ZERO, requireAtomicSetType: true };
  const [g] = check({ type: 'array', 'x-kubernetes-list-type': 'set', items: { type: 'object', 'x-kubernetes-map-type': 'granular', properties: { foo: { type: 'string' } } } }, atomic, [
    invalid(`${P}.items.x-kubernetes-map-type`),
  ]);
  // Upstream prints the items' list-type here, unset: null.
  assert.equal(fieldErrorText(g!), 'Invalid value: null: must be atomic as item of a list with x-kubernetes-list-type=set');
  check({ type: 'array', 'x-kubernetes-list-type': 'set', items: { type: 'object', properties: { foo: { type: 'string' } } } }, atomic, [invalid(`${P}.items.x-kubernetes-map-type`)]);
  check({ type: 'array', 'x-kubernetes-list-type': 'set', items: { type: 'array', 'x-kubernetes-list-type': 'atomic', items: { type: 'string' } } }, atomic, []);
  check({ type: 'array', 'x-kubernetes-list-type': 'set', items: { type: 'array', items: { type: 'string' } } }, atomic, []);
  const [l] = check({ type: 'array', 'x-kubernetes-list-type': 'set', items: { type: 'array', 'x-kubernetes-list-type': 'set', items: { type: 'string' } } }, atomic, [
    invalid(`${P}.items.x-kubernetes-list-type`),
  ]);
  assert.equal(fieldErrorText(l!), 'Invalid value: "set": must be atomic as item of a list with x-kubernetes-list-type=set');
});

test('crd schema: x-kubernetes-map-type', () => {
  check({ type: 'array', 'x-kubernetes-map-type': 'granular' }, ZERO, [invalid(`${P}.type`)]);
  check({ 'x-kubernetes-map-type': 'granular' }, ZERO, [required(`${P}.type`)]);
  check({ type: 'array', 'x-kubernetes-map-type': 'atomic' }, ZERO, [invalid(`${P}.type`)]);
  check({ 'x-kubernetes-map-type': 'atomic' }, ZERO, [required(`${P}.type`)]);
  const [e] = check({ type: 'object', 'x-kubernetes-map-type': 'badMapType' }, ZERO, [unsupported(`${P}.x-kubernetes-map-type`)]);
  assert.equal(fieldErrorText(e!), 'Unsupported value: "badMapType": supported values: "atomic", "granular"');
  check({ type: 'object', 'x-kubernetes-map-type': 'granular' }, ZERO, []);
  check({ type: 'object', 'x-kubernetes-map-type': 'atomic' }, ZERO, []);
});

test('crd schema: map-list keys are required or defaulted, never nullable', () => {
  const o = { ...ZERO, requireMapListKeysMapSetValidation: true };
  const mapList = (items: JSONSchemaProps, keys = ['key']): JSONSchemaProps => ({ type: 'array', 'x-kubernetes-list-type': 'map', 'x-kubernetes-list-map-keys': keys, items });
  const [e] = check(mapList({ type: 'object', properties: { key: { type: 'string' } } }), o, [required(`${P}.items.properties[key].default`)]);
  assert.equal(fieldErrorText(e!), 'Required value: this property is in x-kubernetes-list-map-keys, so it must have a default or be a required property');
  check(mapList({ type: 'object', required: ['key'], properties: { key: { type: 'string' } } }), o, []);
  check(mapList({ type: 'object', properties: { key: { type: 'string', default: 'stuff' } } }), { ...o, allowDefaults: true }, []);
  check(mapList({ type: 'object', properties: { key: { type: 'string', nullable: true } } }), o, [required(`${P}.items.properties[key].default`), forbidden(`${P}.items.properties[key].nullable`)]);
  const errs = check(mapList({ type: 'object', nullable: true, properties: { key: { type: 'string' } } }), o, [forbidden(`${P}.items.nullable`), required(`${P}.items.properties[key].default`)]);
  assert.ok(errs.map(text).includes(`${P}.items.nullable: Forbidden: cannot be nullable when x-kubernetes-list-type is map`));
  check(
    mapList({ type: 'object', required: ['a', 'c'], properties: { key: { type: 'string' }, a: { type: 'string' }, b: { type: 'string', default: 'stuff' }, c: { type: 'int' } } }, ['a']),
    o,
    [forbidden(`${P}.items.properties[b].default`)],
  );
  check({ type: 'array', 'x-kubernetes-list-type': 'set', items: { nullable: true } }, o, [forbidden(`${P}.items.nullable`)]);
  check({ type: 'array', 'x-kubernetes-list-type': 'set', items: { nullable: false } }, o, []);
});

test('crd schema: the static rules of x-kubernetes-validations', () => {
  const value = (rules: JSONSchemaProps['x-kubernetes-validations']): JSONSchemaProps => ({ type: 'object', properties: { value: { type: 'integer', 'x-kubernetes-validations': rules } } });
  const at = `${P}.properties[value].x-kubernetes-validations`;
  const rq = check(value([{ rule: '', message: 'something' }, { rule: '   ', message: 'something' }]), ZERO, [required(`${at}[0].rule`), required(`${at}[1].rule`)]);
  assert.equal(fieldErrorText(rq[0]!), 'Required value: rule is not specified');
  check(value([{ rule: 'self >= 0 &&\nself <= 100', message: 'value must be between 0 and 100 (inclusive)' }]), ZERO, []);
  const errs = check(
    value([
      { rule: 'self >= 0 &&\nself <= 100' },
      { rule: 'self == 50', message: 'value requirements:\nmust be >= 0\nmust be <= 100 ' },
      { rule: 'self == 50', message: ' ' },
    ]),
    ZERO,
    [required(`${at}[0].message`), invalid(`${at}[1].message`), invalid(`${at}[2].message`)],
  );
  assert.deepEqual(errs.map(fieldErrorText), [
    'Required value: message must be specified if rule contains line breaks',
    'Invalid value: "value requirements:\\nmust be >= 0\\nmust be <= 100 ": must not contain line breaks',
    'Invalid value: " ": must be non-empty if specified',
  ]);
  const reason = check(value([{ rule: 'true', reason: 'FieldValueBogus' }]), ZERO, [unsupported(`${at}[0].reason`)]);
  assert.equal(fieldErrorText(reason[0]!), 'Unsupported value: "FieldValueBogus": supported values: "FieldValueDuplicate", "FieldValueForbidden", "FieldValueInvalid", "FieldValueRequired"');
  check(value([{ rule: 'true', messageExpression: '  ' }]), ZERO, [required(`${at}[0].messageExpression`)]);
});

test('crd schema: a rule fieldPath must name a field of the node', () => {
  const s: JSONSchemaProps = {
    type: 'object',
    properties: {
      spec: {
        type: 'object',
        properties: { a: { type: 'string' }, m: { type: 'object', additionalProperties: { type: 'string' } } },
        'x-kubernetes-validations': [
          { rule: 'true', fieldPath: '.a' },
          { rule: 'true', fieldPath: ".m['x.y']" },
          { rule: 'true', fieldPath: '.b' },
          { rule: 'true', fieldPath: '  ' },
          { rule: 'true', fieldPath: '.a\n' },
        ],
      },
    },
  };
  const at = `${P}.properties[spec].x-kubernetes-validations`;
  const errs = check(s, ZERO, [invalid(`${at}[2].fieldPath`), invalid(`${at}[3].fieldPath`), invalid(`${at}[3].fieldPath`), invalid(`${at}[4].fieldPath`), invalid(`${at}[4].fieldPath`)]);
  assert.ok(errs.map(text).includes(`${at}[2].fieldPath: Invalid value: ".b": must be a valid path`));
  assert.ok(errs.map(text).includes(`${at}[3].fieldPath: Invalid value: "  ": must be non-empty if specified`));
  assert.ok(errs.map(text).includes(`${at}[4].fieldPath: Invalid value: ".a\\n": must not contain line breaks`));
});

// TestValidateCustomResourceDefinition (schema parts), with the options of a new v1 CRD.
test('crd schema: x-kubernetes-preserve-unknown-fields: false is refused', () => {
  const errs = check({ type: 'object', properties: { foo: { type: 'string', 'x-kubernetes-preserve-unknown-fields': false } } }, CREATE, [
    invalid(`${P}.properties[foo].x-kubernetes-preserve-unknown-fields`),
  ]);
  assert.equal(fieldErrorText(errs[0]!), 'Invalid value: false: must be true or undefined');
});

test('crd schema: an embedded resource without preserve-unknown-fields needs properties', () => {
  const errs = check(
    { type: 'object', 'x-kubernetes-preserve-unknown-fields': true, properties: { nil: { type: 'object', 'x-kubernetes-embedded-resource': true }, empty: { type: 'object', 'x-kubernetes-embedded-resource': true, properties: {} } } },
    CREATE,
    [required(`${P}.properties[nil].properties`), required(`${P}.properties[empty].properties`)],
  );
  assert.equal(fieldErrorText(errs[0]!), 'Required value: must not be empty if x-kubernetes-embedded-resource is true without x-kubernetes-preserve-unknown-fields');
});

test('crd schema: no embedded resource inside resource meta', () => {
  const nested = { type: 'object', 'x-kubernetes-embedded-resource': true, 'x-kubernetes-preserve-unknown-fields': true } as const;
  check(
    {
      type: 'object',
      properties: {
        embedded: {
          type: 'object',
          'x-kubernetes-embedded-resource': true,
          properties: { metadata: { ...nested }, apiVersion: { type: 'string', properties: { foo: { ...nested } } }, kind: { type: 'string', properties: { foo: { ...nested } } } },
        },
      },
    },
    CREATE,
    [
      forbidden(`${P}.properties[embedded].properties[metadata].x-kubernetes-embedded-resource`),
      forbidden(`${P}.properties[embedded].properties[apiVersion].properties[foo].x-kubernetes-embedded-resource`),
      forbidden(`${P}.properties[embedded].properties[kind].properties[foo].x-kubernetes-embedded-resource`),
    ],
  );
});

test('crd schema: defaults need a structural schema first', () => {
  check({ properties: { a: { default: 42.0 } } }, CREATE, [required(`${P}.properties[a].type`), required(`${P}.type`)]);
  check({ type: 'object', properties: { a: { type: 'number', default: 42.0 } } }, CREATE, []);
});

test('crd schema: defaults in junctors are not structural', () => {
  const errs = check(
    { type: 'object', properties: { a: { type: 'number', not: { default: 42 }, anyOf: [{ default: 42 }], allOf: [{ default: 42 }], oneOf: [{ default: 42 }] } } },
    CREATE,
    [forbidden(`${P}.properties[a].not.default`), forbidden(`${P}.properties[a].allOf[0].default`), forbidden(`${P}.properties[a].anyOf[0].default`), forbidden(`${P}.properties[a].oneOf[0].default`)],
  );
  // Structural errors come sorted by their text.
  assert.deepEqual(errs.map(text), [
    `${P}.properties[a].allOf[0].default: Forbidden: must be undefined to be structural`,
    `${P}.properties[a].anyOf[0].default: Forbidden: must be undefined to be structural`,
    `${P}.properties[a].not.default: Forbidden: must be undefined to be structural`,
    `${P}.properties[a].oneOf[0].default: Forbidden: must be undefined to be structural`,
  ]);
});

test('crd schema: invalid defaults', () => {
  const str = { type: 'string' } as const;
  const errs = check(
    {
      type: 'object',
      properties: {
        a: { type: 'object', properties: { foo: str }, default: { foo: 'abc', bar: 42 } },
        b: { type: 'object', properties: { foo: str }, default: { foo: 'abc' } },
        c: { type: 'object', properties: { foo: str }, default: { foo: 42 } },
        d: { type: 'object', properties: { good: { type: 'string', pattern: 'a' }, bad: { type: 'string', pattern: 'b' } }, default: { good: 'a', bad: 'a' } },
        e: {
          type: 'object',
          'x-kubernetes-preserve-unknown-fields': true,
          properties: {
            preserveUnknownFields: { type: 'object', default: { foo: 'abc', bar: 42 } },
            nestedProperties: { type: 'object', properties: { foo: str }, default: { foo: 'abc', bar: 42 } },
          },
        },
        'embedded-fine': { type: 'object', 'x-kubernetes-embedded-resource': true, properties: { foo: str }, default: { foo: 'abc', apiVersion: 'foo/v1', kind: 'v1', metadata: { name: 'foo' } } },
        'embedded-preserve': {
          type: 'object',
          'x-kubernetes-embedded-resource': true,
          'x-kubernetes-preserve-unknown-fields': true,
          properties: { foo: str },
          default: { foo: 'abc', apiVersion: 'foo/v1', kind: 'v1', metadata: { name: 'foo' }, bar: 42 },
        },
        'embedded-preserve-unpruned-objectmeta': {
          type: 'object',
          'x-kubernetes-embedded-resource': true,
          'x-kubernetes-preserve-unknown-fields': true,
          properties: { foo: str },
          // Unknown metadata fields are pruned when the schema is served, not refused here.
          default: { foo: 'abc', apiVersion: 'foo/v1', kind: 'v1', metadata: { name: 'foo', unspecified: 'bar' }, bar: 42 },
        },
      },
    },
    CREATE,
    [
      invalid(`${P}.properties[a].default`),
      typeInvalid(`${P}.properties[c].default.foo`),
      invalid(`${P}.properties[d].default.bad`),
      invalid(`${P}.properties[e].properties[preserveUnknownFields].default`),
      invalid(`${P}.properties[e].properties[nestedProperties].default`),
    ],
  );
  const t = errs.map(text);
  assert.ok(t.includes(`${P}.properties[a].default: Invalid value: {"bar":42,"foo":"abc"}: must not have unknown fields`), t.join('\n'));
  assert.ok(t.includes(`${P}.properties[c].default.foo: Invalid value: "integer": foo in body must be of type string: "integer"`), t.join('\n'));
  assert.ok(t.includes(`${P}.properties[d].default.bad: Invalid value: "a": bad in body should match 'b'`), t.join('\n'));
});

test('crd schema: additionalProperties at an embedded resource root', () => {
  const errs = check(
    {
      type: 'object',
      properties: {
        embedded1: { type: 'object', 'x-kubernetes-embedded-resource': true, additionalProperties: { type: 'string' } },
        embedded2: { type: 'object', 'x-kubernetes-embedded-resource': true, 'x-kubernetes-preserve-unknown-fields': true, additionalProperties: { type: 'string' } },
      },
    },
    CREATE,
    [forbidden(`${P}.properties[embedded1].additionalProperties`), required(`${P}.properties[embedded1].properties`), forbidden(`${P}.properties[embedded2].additionalProperties`)],
  );
  assert.ok(errs.map(text).includes(`${P}.properties[embedded2].additionalProperties: Forbidden: must not be used if x-kubernetes-embedded-resource is set`));
});

test('crd schema: metadata defaults: forbidden at the top, validated as ObjectMeta when embedded', () => {
  const v = (i: number) => `spec.versions[${i}].schema`;
  const at = (i: number) => `spec.versions[${i}].schema.openAPIV3Schema`;
  const v1 = validateCrdSchema(
    {
      type: 'object',
      properties: {
        metadata: { type: 'object', default: { name: 'foo' } },
        embedded: { type: 'object', 'x-kubernetes-embedded-resource': true, properties: { metadata: { type: 'object', default: { name: 'foo', unknown: 42 } } } },
      },
    },
    { path: v(0) },
  );
  assert.deepEqual(v1.map(text), [`${at(0)}.properties[metadata].default: Forbidden: must not be set in top-level metadata`]);
  const v2 = validateCrdSchema(
    {
      type: 'object',
      properties: {
        metadata: { type: 'object', properties: { name: { type: 'string', default: 'foo' } } },
        embedded: {
          type: 'object',
          'x-kubernetes-embedded-resource': true,
          properties: {
            apiVersion: { type: 'string', default: 'v1' },
            kind: { type: 'string', default: 'Pod' },
            metadata: { type: 'object', properties: { name: { type: 'string', default: 'foo' } } },
          },
        },
      },
    },
    { path: v(1) },
  );
  assert.deepEqual(v2.map(text), [`${at(1)}.properties[metadata].properties[name].default: Forbidden: must not be set in top-level metadata`]);
  const v3 = validateCrdSchema(
    {
      type: 'object',
      properties: {
        embedded: {
          type: 'object',
          'x-kubernetes-embedded-resource': true,
          properties: {
            apiVersion: { type: 'string', default: 'v1' },
            kind: { type: 'string', default: '%' },
            metadata: { type: 'object', default: { labels: { bar: 'x y' } } },
          },
        },
      },
    },
    { path: v(2) },
  );
  assert.deepEqual(matches(v3), [invalid(`${at(2)}.properties[embedded].properties[kind].default`), invalid(`${at(2)}.properties[embedded].properties[metadata].default`)].sort());
  assert.ok(
    v3.map(text).includes(
      `${at(2)}.properties[embedded].properties[kind].default: Invalid value: "%": must result in valid metadata: kind: Invalid value: "%": may have mixed case, but should otherwise match: a DNS-1035 label must consist of lower case alphanumeric characters or '-', start with an alphabetic character, and end with an alphanumeric character (e.g. 'my-name',  or 'abc-123', regex used for validation is '[a-z]([-a-z0-9]*[a-z0-9])?')`,
    ),
    v3.map(text).join('\n'),
  );
  const v4 = validateCrdSchema(
    {
      type: 'object',
      properties: {
        embedded: {
          type: 'object',
          'x-kubernetes-embedded-resource': true,
          properties: {
            metadata: {
              type: 'object',
              properties: { name: { type: 'string', default: 42 }, labels: { type: 'object', properties: { bar: { type: 'string', default: 42 } } } },
            },
          },
        },
      },
    },
    { path: v(3) },
  );
  assert.deepEqual(matches(v4), [
    invalid(`${at(3)}.properties[embedded].properties[metadata].properties[labels].properties[bar].default`),
    invalid(`${at(3)}.properties[embedded].properties[metadata].properties[name].default`),
  ]);
  assert.ok(
    v4.map(text).includes(`${at(3)}.properties[embedded].properties[metadata].properties[name].default: Invalid value: 42: must result in valid metadata: metadata: Invalid value: {"name":42}: json: cannot unmarshal number into Go struct field ObjectMeta.name of type string`),
    v4.map(text).join('\n'),
  );
});

test('crd schema: no default under additionalProperties inside metadata', () => {
  const [e] = check(
    {
      type: 'object',
      properties: {
        embedded: {
          type: 'object',
          'x-kubernetes-embedded-resource': true,
          properties: { metadata: { type: 'object', properties: { annotations: { type: 'object', additionalProperties: { type: 'string', default: 'abc' } } } } },
        },
      },
    },
    CREATE,
    [forbidden(`${P}.properties[embedded].properties[metadata].properties[annotations].additionalProperties.default`)],
  );
  assert.equal(fieldErrorText(e!), 'Forbidden: must not be set inside additionalProperties applying to object metadata');
});

test('crd schema: embedded metadata defaults that are fine', () => {
  check(
    {
      type: 'object',
      properties: {
        embedded: { type: 'object', 'x-kubernetes-embedded-resource': true, properties: { metadata: { type: 'object', default: { name: 'foo' } } } },
        'allowed-object-defaults': {
          type: 'object',
          'x-kubernetes-embedded-resource': true,
          properties: { something: { type: 'string' } },
          default: { apiVersion: 'v1', kind: 'Pod', metadata: { name: 'foo', unknown: 42 } },
        },
        'allowed-spanning-object-defaults': {
          type: 'object',
          properties: { embedded: { type: 'object', 'x-kubernetes-embedded-resource': true, properties: { something: { type: 'string' } } } },
          default: { embedded: { apiVersion: 'v1', kind: 'Pod', metadata: { name: 'foo', unknown: 42 } } },
        },
      },
    },
    CREATE,
    [],
  );
});

test('crd schema: metadata at the root may only restrict name and generateName', () => {
  check({ type: 'object', properties: { metadata: { type: 'object', properties: { name: { type: 'string', maxLength: 10 }, generateName: { type: 'string' } } } } }, CREATE, []);
  const [e] = check({ type: 'object', properties: { metadata: { type: 'object', properties: { labels: { type: 'object' } } } } }, CREATE, [forbidden(`${P}.properties[metadata]`)]);
  assert.equal(fieldErrorText(e!), 'Forbidden: must not specify anything other than name and generateName, but metadata is implicitly specified');
  check({ type: 'object', properties: { metadata: { type: 'object', description: 'x' } } }, CREATE, [forbidden(`${P}.properties[metadata]`)]);
  const [t] = check({ type: 'object', properties: { metadata: { type: 'string' } } }, CREATE, [invalid(`${P}.properties[metadata].type`)]);
  assert.equal(fieldErrorText(t!), 'Invalid value: "string": must be object');
});

test('crd schema: metadata in a junctor is refused', () => {
  const errs = validateCrdSchema({ type: 'object', properties: { metadata: { type: 'object' } }, anyOf: [{ properties: { metadata: {} } }] }, CREATE);
  assert.ok(errs.map(text).includes(`${P}.anyOf[0].properties[metadata]: Forbidden: must not be specified in a nested context`), errs.map(text).join('\n'));
});

test('crd schema: uniqueItems and the refused keywords', () => {
  const errs = check(
    { type: 'object', properties: { a: { type: 'array', items: { type: 'string' }, uniqueItems: true }, b: { type: 'object', id: 'x', $ref: '#/x', patternProperties: { x: {} }, definitions: { y: {} }, dependencies: { z: ['q'] }, additionalItems: false } } },
    ZERO,
    [
      forbidden(`${P}.properties[a].uniqueItems`),
      forbidden(`${P}.properties[b].id`),
      forbidden(`${P}.properties[b].$ref`),
      forbidden(`${P}.properties[b].patternProperties`),
      forbidden(`${P}.properties[b].definitions`),
      forbidden(`${P}.properties[b].dependencies`),
      forbidden(`${P}.properties[b].additionalItems`),
    ],
  );
  assert.ok(errs.map(text).includes(`${P}.properties[a].uniqueItems: Forbidden: uniqueItems cannot be set to true since the runtime complexity becomes quadratic`));
});

test('crd schema: properties and additionalProperties exclude each other (except additionalProperties: true)', () => {
  const [e] = check({ type: 'object', properties: { a: { type: 'object', properties: { x: { type: 'string' } }, additionalProperties: { type: 'string' } } } }, CREATE, [
    forbidden(`${P}.properties[a].additionalProperties`),
  ]);
  assert.equal(fieldErrorText(e!), 'Forbidden: additionalProperties and properties are mutual exclusive');
  check({ type: 'object', properties: { a: { type: 'object', properties: { x: { type: 'string' } }, additionalProperties: true } } }, CREATE, []);
});

test('crd schema: a schema the structural form cannot hold reports the conversion error only when nothing else is wrong', () => {
  // items as a list: refused per node; the conversion error would repeat it.
  check({ type: 'object', properties: { a: { type: 'array', items: [{ type: 'string' }] } } }, CREATE, [forbidden(`${P}.properties[a].items`)]);
});

test('crd schema: x-kubernetes-int-or-string patterns are structural', () => {
  check({ type: 'object', properties: { a: { 'x-kubernetes-int-or-string': true } } }, CREATE, []);
  check({ type: 'object', properties: { a: { 'x-kubernetes-int-or-string': true, anyOf: [{ type: 'integer' }, { type: 'string' }] } } }, CREATE, []);
  check({ type: 'object', properties: { a: { 'x-kubernetes-int-or-string': true, allOf: [{ anyOf: [{ type: 'integer' }, { type: 'string' }] }, { pattern: 'x' }] } } }, CREATE, []);
  const errs = check({ type: 'object', properties: { a: { 'x-kubernetes-int-or-string': true, anyOf: [{ type: 'string' }, { type: 'integer' }] } } }, CREATE, [
    forbidden(`${P}.properties[a].anyOf[0].type`),
    forbidden(`${P}.properties[a].anyOf[1].type`),
  ]);
  assert.equal(fieldErrorText(errs[0]!), 'Forbidden: must be empty to be structural');
  check({ type: 'object', properties: { a: { 'x-kubernetes-int-or-string': true, 'x-kubernetes-preserve-unknown-fields': true } } }, CREATE, [
    invalid(`${P}.properties[a].x-kubernetes-preserve-unknown-fields`),
  ]);
});

test('crd schema: CEL hooks run only on structural schemas and error-free subtrees', () => {
  const seen: string[] = [];
  const cel = {
    validateRules: (site: { path: { toString(): string }; uncorrelatablePath: unknown }) => {
      seen.push(`${String(site.path)} ${site.uncorrelatablePath === undefined ? '' : String(site.uncorrelatablePath)}`.trim());
      return [];
    },
  };
  const schema: JSONSchemaProps = {
    type: 'object',
    properties: {
      ok: { type: 'object', 'x-kubernetes-validations': [{ rule: 'true' }] },
      list: { type: 'array', items: { type: 'object', 'x-kubernetes-validations': [{ rule: 'oldSelf == self' }] } },
      bad: { type: 'object', 'x-kubernetes-validations': [{ rule: 'true' }], properties: { x: { type: 'array', items: { type: 'string' }, uniqueItems: true } } },
    },
  };
  validateCrdSchema(schema, { ...CREATE, cel: cel as never });
  assert.deepEqual(seen.sort(), [`${P}.properties[list].items ${P}.properties[list]`, `${P}.properties[ok]`]);
  seen.length = 0;
  validateCrdSchema({ properties: { ok: { type: 'object', 'x-kubernetes-validations': [{ rule: 'true' }] } } }, { ...CREATE, cel: cel as never });
  assert.deepEqual(seen, []);
});

test('crd schema: update ratchets come from the stored schemas', () => {
  const nonStructural: JSONSchemaProps = { type: 'object', properties: { foo: {} } };
  const ok: JSONSchemaProps = { type: 'object', properties: { foo: { type: 'number' } } };
  assert.equal(optionsForUpdate([ok]).requireStructuralSchema, true);
  assert.equal(optionsForUpdate([nonStructural, ok]).requireStructuralSchema, false);
  // A stored non-structural schema lets the update stay non-structural.
  check({ type: 'object', properties: { foo: { description: 'b' } } }, { ...CREATE, ...optionsForUpdate([nonStructural]) }, []);
  check({ type: 'object', properties: { foo: {} } }, { ...CREATE, ...optionsForUpdate([ok]) }, [required(`${P}.properties[foo].type`)]);
  const nonAtomicSet: JSONSchemaProps = { type: 'object', properties: { bar: { type: 'array', 'x-kubernetes-list-type': 'set', items: { type: 'object', properties: {} } } } };
  assert.equal(optionsForUpdate([nonAtomicSet]).requireAtomicSetType, false);
  check(nonAtomicSet, { ...CREATE, ...optionsForUpdate([nonAtomicSet]) }, []);
  check(nonAtomicSet, { ...CREATE, ...optionsForUpdate([{ type: 'object', properties: {} }]) }, [invalid(`${P}.properties[bar].items.x-kubernetes-map-type`)]);
  const unpruned: JSONSchemaProps = { type: 'object', properties: { a: { type: 'object', properties: { foo: { type: 'string' } }, default: { foo: 'x', bar: 1 } } } };
  assert.equal(optionsForUpdate([unpruned]).requirePrunedDefaults, false);
  check(unpruned, { ...CREATE, ...optionsForUpdate([unpruned]) }, []);
  assert.equal(optionsForUpdate([{ type: 'object', properties: { a: { type: 'bogus' } } }]).requireValidPropertyType, false);
});

test('crd schema: unrecognized formats are listed for warnings', () => {
  assert.deepEqual(
    unrecognizedFormats({ type: 'object', properties: { a: { type: 'string', format: 'foo' }, b: { type: 'string', format: 'date-time' }, c: { type: 'integer', format: 'int32' }, d: { type: 'string', format: 'k8s-short-name' } } }),
    ['foo'],
  );
});

test('NonStructuralSchema condition', () => {
  assert.equal(nonStructuralSchemaCondition({ versions: [{ name: 'v1', schema: { openAPIV3Schema: { type: 'object' } } }] }), undefined);
  assert.deepEqual(nonStructuralSchemaCondition({ versions: [{ name: 'v1', schema: { openAPIV3Schema: { type: 'object', properties: { a: {}, b: {} } } } }] }), {
    type: 'NonStructuralSchema',
    status: 'True',
    reason: 'Violations',
    message:
      '[spec.versions[0].schema.openAPIV3Schema.properties[a].type: Required value: must not be empty for specified object fields, spec.versions[0].schema.openAPIV3Schema.properties[b].type: Required value: must not be empty for specified object fields]',
  });
  assert.deepEqual(nonStructuralSchemaCondition({ versions: [{ name: 'v1', schema: { openAPIV3Schema: { type: 'object', items: [{}] } } }] }), {
    type: 'NonStructuralSchema',
    status: 'True',
    reason: 'StructuralError',
    message: "failed to check validation schema for version v1: OpenAPIV3Schema 'items' must be a schema, but is an array",
  });
});
