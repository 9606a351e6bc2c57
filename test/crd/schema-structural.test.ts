import assert from 'node:assert/strict';
import { test } from 'node:test';
import { fieldErrorText, type FieldError } from '../../src/api/errors.ts';
import { toStructural, tryToStructural, StructuralConversionError } from '../../src/crd/schema/convert.ts';
import { validateStructural } from '../../src/crd/schema/validate-structural.ts';
import { unfold, stripNullable, stripValueValidations, deepCopyStructural } from '../../src/crd/schema/transform.ts';
import { emptyNested } from '../../src/crd/schema/convert.ts';
import type { NestedValueValidation, Structural } from '../../src/crd/schema/structural.ts';
import type { JSONSchemaProps } from '../../src/crd/schema/types.ts';
import { st } from './schema-fixtures.ts';

const text = (e: FieldError) => `${e.field}: ${fieldErrorText(e)}`;
const errorsOf = (props: JSONSchemaProps, opts = {}) => validateStructural(undefined, toStructural(props), opts).map(text);

test('toStructural: keeps what a structural schema can hold', () => {
  const s = toStructural({
    type: 'object',
    description: 'd',
    properties: {
      spec: {
        type: 'object',
        nullable: true,
        default: { a: 1 },
        'x-kubernetes-map-type': 'atomic',
        properties: { a: { type: 'integer', minimum: 0, enum: [1, 2], 'x-kubernetes-validations': [{ rule: 'self > 0' }] } },
      },
      list: { type: 'array', 'x-kubernetes-list-type': 'map', 'x-kubernetes-list-map-keys': ['k'], items: { type: 'object', properties: { k: { type: 'string' } } } },
      map: { type: 'object', additionalProperties: { type: 'string' } },
      closed: { type: 'object', additionalProperties: false },
      free: { 'x-kubernetes-preserve-unknown-fields': true, 'x-kubernetes-embedded-resource': true, type: 'object' },
      ios: { 'x-kubernetes-int-or-string': true, anyOf: [{ type: 'integer' }, { type: 'string' }] },
    },
    example: { ignored: true },
  });
  assert.equal(s.type, 'object');
  assert.equal(s.description, 'd');
  const spec = s.properties!.spec!;
  assert.deepEqual([spec.nullable, spec.default, spec.xMapType], [true, { a: 1 }, 'atomic']);
  assert.deepEqual(spec.properties!.a!.valueValidation, { minimum: 0, enum: [1, 2] });
  assert.deepEqual(spec.properties!.a!.xValidations, [{ rule: 'self > 0' }]);
  assert.deepEqual([s.properties!.list!.xListType, s.properties!.list!.xListMapKeys], ['map', ['k']]);
  assert.equal(s.properties!.map!.additionalProperties!.structural!.type, 'string');
  assert.deepEqual(s.properties!.closed!.additionalProperties, { bool: false });
  assert.deepEqual([s.properties!.free!.xPreserveUnknownFields, s.properties!.free!.xEmbeddedResource], [true, true]);
  const ios = s.properties!.ios!;
  assert.equal(ios.xIntOrString, true);
  assert.deepEqual(ios.valueValidation!.anyOf!.map((n) => n.forbiddenGenerics.type), ['integer', 'string']);
  // A null default is no default.
  assert.equal(toStructural({ type: 'object', default: null }).default, undefined);
});

test('toStructural: refuses what a structural schema cannot hold, with upstream texts', () => {
  const refused: [JSONSchemaProps, string][] = [
    [{ items: [{}] }, "OpenAPIV3Schema 'items' must be a schema, but is an array"],
    [{ id: 'x' }, "OpenAPIV3Schema 'id' is not supported"],
    [{ $schema: 'x' }, "OpenAPIV3Schema 'schema' is not supported"],
    [{ $ref: '#/x' }, "OpenAPIV3Schema '$ref' is not supported"],
    [{ patternProperties: { x: {} } }, "OpenAPIV3Schema 'patternProperties' is not supported"],
    [{ dependencies: { x: ['y'] } }, "OpenAPIV3Schema 'dependencies' is not supported"],
    [{ additionalItems: false }, "OpenAPIV3Schema 'additionalItems' is not supported"],
    [{ definitions: { x: {} } }, "OpenAPIV3Schema 'definitions' is not supported"],
    [{ 'x-kubernetes-preserve-unknown-fields': false }, "internal error: 'x-kubernetes-preserve-unknown-fields' must be true or undefined"],
    [{ properties: { a: { allOf: [{ items: [{}] }] } } }, "OpenAPIV3Schema 'items' must be a schema, but is an array"],
  ];
  for (const [props, message] of refused) {
    assert.throws(() => toStructural(props), (e: unknown) => e instanceof StructuralConversionError && e.message === message, message);
    assert.deepEqual(tryToStructural(props), { error: message });
  }
});

test('validateStructural: types at every level', () => {
  assert.deepEqual(errorsOf({}), ['type: Required value: must not be empty at the root']);
  assert.deepEqual(errorsOf({ type: 'object', properties: { a: {}, b: { type: 'array' }, c: { type: 'array', items: {} } } }), [
    'properties[a].type: Required value: must not be empty for specified object fields',
    'properties[b].items: Required value: must be specified',
    'properties[c].items.type: Required value: must not be empty for specified array items',
  ]);
  assert.deepEqual(errorsOf({ type: 'string' }), ['type: Invalid value: "string": must be object at the root']);
  assert.deepEqual(errorsOf({ type: 'object', properties: { free: { 'x-kubernetes-preserve-unknown-fields': true }, ios: { 'x-kubernetes-int-or-string': true } } }), []);
  assert.deepEqual(errorsOf({ type: 'object', additionalProperties: { type: 'string' } }), ['additionalProperties: Forbidden: must not be used at the root']);
});

test('validateStructural: embedded resources', () => {
  assert.deepEqual(errorsOf({ type: 'object', properties: { e: { 'x-kubernetes-embedded-resource': true, 'x-kubernetes-preserve-unknown-fields': true } } }), [
    'properties[e].type: Required value: must be object if x-kubernetes-embedded-resource is true',
  ]);
  assert.deepEqual(errorsOf({ type: 'object', properties: { e: { type: 'string', 'x-kubernetes-embedded-resource': true, 'x-kubernetes-preserve-unknown-fields': true } } }), [
    'properties[e].type: Invalid value: "string": must be object if x-kubernetes-embedded-resource is true',
  ]);
  assert.deepEqual(
    errorsOf({ type: 'object', properties: { e: { type: 'object', 'x-kubernetes-embedded-resource': true, properties: { kind: { type: 'integer' }, apiVersion: { type: 'boolean' }, metadata: { type: 'string' } } } } }),
    [
      'properties[e].properties[apiVersion].type: Invalid value: "boolean": must be string',
      'properties[e].properties[kind].type: Invalid value: "integer": must be string',
      'properties[e].properties[metadata].type: Invalid value: "string": must be object',
    ],
  );
  assert.deepEqual(errorsOf({ type: 'object', properties: { i: { 'x-kubernetes-int-or-string': true, 'x-kubernetes-embedded-resource': true } } }), [
    'properties[i].properties: Required value: must not be empty if x-kubernetes-embedded-resource is true without x-kubernetes-preserve-unknown-fields',
    'properties[i].type: Required value: must be object if x-kubernetes-embedded-resource is true',
    'properties[i].x-kubernetes-embedded-resource: Invalid value: true: must be false if x-kubernetes-int-or-string is true',
  ]);
  // Nested (not embedded) apiVersion/kind/metadata are ordinary fields.
  assert.deepEqual(errorsOf({ type: 'object', properties: { x: { type: 'object', properties: { kind: { type: 'integer' }, metadata: { type: 'object', properties: { foo: { type: 'string' } } } } } } }), []);
});

test('validateStructural: metadata at the root restricts only name and generateName (TestValidateStructuralMetadataInvariants)', () => {
  for (const type of ['object', 'array', 'number', 'integer', 'boolean', 'string']) {
    const errs = errorsOf({ type: 'object', properties: { metadata: { type, ...(type === 'array' ? { items: { type: 'string' } } : {}) } } });
    assert.equal(errs.length === 0, type === 'object', `${type}: ${errs.join('; ')}`);
  }
  const objectMetaFields = ['name', 'generateName', 'namespace', 'selfLink', 'uid', 'resourceVersion', 'generation', 'creationTimestamp', 'deletionTimestamp', 'deletionGracePeriodSeconds', 'labels', 'annotations', 'ownerReferences', 'finalizers', 'managedFields'];
  for (const f of objectMetaFields) {
    const errs = errorsOf({ type: 'object', properties: { metadata: { type: 'object', properties: { [f]: { type: 'string' } } } } });
    assert.equal(errs.length === 0, f === 'name' || f === 'generateName', `${f}: ${errs.join('; ')}`);
  }
  assert.deepEqual(errorsOf({ type: 'object', properties: { metadata: { type: 'object', properties: { name: { type: 'string', maxLength: 3 }, generateName: { type: 'string' } } } } }), []);
  // Anything else on metadata itself is forbidden.
  const others: JSONSchemaProps[] = [
    { description: 'x' },
    { title: 'x' },
    { nullable: true },
    { 'x-kubernetes-preserve-unknown-fields': true },
    { 'x-kubernetes-map-type': 'atomic' },
    { maxProperties: 3 },
    { required: ['name'] },
    { 'x-kubernetes-validations': [{ rule: 'true' }] },
    { additionalProperties: { type: 'string' } },
  ];
  for (const extra of others) {
    const errs = errorsOf({ type: 'object', properties: { metadata: { type: 'object', ...extra } } });
    assert.ok(errs.includes('properties[metadata]: Forbidden: must not specify anything other than name and generateName, but metadata is implicitly specified'), `${JSON.stringify(extra)}: ${errs.join('; ')}`);
  }
});

test('validateStructural: nothing but value validation in junctors (TestValidateNestedValueValidationComplete)', () => {
  const forbiddenInJunctor: [JSONSchemaProps, string][] = [
    [{ type: 'string' }, 'type: Forbidden: must be empty to be structural'],
    [{ default: 'x' }, 'default: Forbidden: must be undefined to be structural'],
    [{ title: 'x' }, 'title: Forbidden: must be empty to be structural'],
    [{ description: 'x' }, 'description: Forbidden: must be empty to be structural'],
    [{ nullable: true }, 'nullable: Forbidden: must be false to be structural'],
    [{ 'x-kubernetes-preserve-unknown-fields': true }, 'x-kubernetes-preserve-unknown-fields: Forbidden: must be false to be structural'],
    [{ 'x-kubernetes-embedded-resource': true }, 'x-kubernetes-embedded-resource: Forbidden: must be false to be structural'],
    [{ 'x-kubernetes-int-or-string': true }, 'x-kubernetes-int-or-string: Forbidden: must be false to be structural'],
    [{ 'x-kubernetes-list-map-keys': ['a'] }, 'x-kubernetes-list-map-keys: Forbidden: must be empty to be structural'],
    [{ 'x-kubernetes-list-type': 'atomic' }, 'x-kubernetes-list-type: Forbidden: must be undefined to be structural'],
    [{ 'x-kubernetes-map-type': 'atomic' }, 'x-kubernetes-map-type: Forbidden: must be undefined to be structural'],
    [{ 'x-kubernetes-validations': [{ rule: 'true' }] }, 'x-kubernetes-validations: Forbidden: must be empty to be structural'],
    [{ additionalProperties: { minLength: 1 } }, 'additionalProperties: Forbidden: must be undefined to be structural'],
  ];
  for (const [nested, message] of forbiddenInJunctor) {
    for (const junctor of ['allOf', 'anyOf', 'oneOf'] as const) {
      const errs = errorsOf({ type: 'object', properties: { a: { type: 'object', additionalProperties: { type: 'string' } } }, [junctor]: [{ properties: { a: nested } }] });
      assert.ok(errs.includes(`${junctor}[0].properties[a].${message}`), `${junctor} ${JSON.stringify(nested)}: ${errs.join('; ')}`);
    }
    const not = errorsOf({ type: 'object', not: nested });
    assert.ok(not.includes(`not.${message}`), `not ${JSON.stringify(nested)}: ${not.join('; ')}`);
  }
  // Options widen this, as upstream's ValidationOptions do.
  const opts = { allowNestedXValidations: true, allowNestedAdditionalProperties: true };
  const errs = errorsOf({ type: 'object', properties: { a: { type: 'object', additionalProperties: { type: 'string' } } }, allOf: [{ properties: { a: { 'x-kubernetes-validations': [{ rule: 'true' }], additionalProperties: { minLength: 1 } } } }] }, opts);
  assert.deepEqual(errs, []);
  // CEL stays forbidden in anyOf/oneOf/not whatever the options.
  assert.deepEqual(errorsOf({ type: 'object', anyOf: [{ 'x-kubernetes-validations': [{ rule: 'true' }] }] }, opts), ['anyOf[0].x-kubernetes-validations: Forbidden: must be empty to be structural']);
});

test('validateStructural: completeness (TestValidateStructuralCompleteness)', () => {
  const s = (extra: Partial<Structural>, vv: NestedValueValidation) => st({ ...extra, valueValidation: { allOf: [vv] } });
  const minLen = (): NestedValueValidation => ({ ...emptyNested(), minLength: 2 });
  const withProps = (props: Record<string, NestedValueValidation>): NestedValueValidation => ({ ...emptyNested(), properties: props });
  const ap = st({ additionalProperties: { bool: true, structural: st({ type: 'object', properties: { bar: st({ type: 'string' }) } }) } });
  const run = (schema: Structural, opts = {}) => validateStructural(undefined, schema, opts).map(text);
  assert.deepEqual(run(s(ap, withProps({ foo: minLen() })), { allowValidationPropertiesWithAdditionalProperties: true }).filter((e) => e.includes('because')), []);
  assert.ok(run(s(ap, withProps({ foo: minLen() }))).includes('properties[foo]: Required value: because it is defined in allOf[0].properties[foo]'));
  const onlyProps = st({ properties: { bar: st({ type: 'string' }) } });
  assert.ok(run(s(onlyProps, { ...emptyNested(), additionalProperties: minLen() }), { allowNestedAdditionalProperties: true }).includes('additionalProperties: Required value: because it is defined in allOf[0].additionalProperties'));
  const foo = st({ properties: { foo: st({ type: 'string' }) } });
  assert.deepEqual(run(s(foo, withProps({ foo: minLen() }))).filter((e) => e.includes('because')), []);
  assert.ok(run(s(foo, withProps({ notfoo: minLen() }))).includes('properties[notfoo]: Required value: because it is defined in allOf[0].properties[notfoo]'));
  assert.deepEqual(run(s(st({ type: 'array', items: st({ type: 'string' }) }), { ...emptyNested(), items: minLen() })).filter((e) => e.includes('because')), []);
  assert.ok(run(s(st({ type: 'object', properties: { foo: st({ type: 'string' }) } }), { ...emptyNested(), items: minLen() })).includes('items: Required value: because it is defined in allOf[0].items'));
});

test('validateStructural: the int-or-string patterns, and the pattern must compile', () => {
  assert.deepEqual(errorsOf({ type: 'object', properties: { a: { 'x-kubernetes-int-or-string': true, anyOf: [{ type: 'integer' }, { type: 'string' }] } } }), []);
  assert.deepEqual(errorsOf({ type: 'object', properties: { a: { 'x-kubernetes-int-or-string': true, allOf: [{ anyOf: [{ type: 'integer' }, { type: 'string' }] }, { maxLength: 3 }] } } }), []);
  // The anyOf pattern is only allowed with x-kubernetes-int-or-string... and exactly in that order.
  assert.deepEqual(errorsOf({ type: 'object', properties: { a: { 'x-kubernetes-int-or-string': true, anyOf: [{ type: 'integer', minimum: 1 }, { type: 'string' }] } } }), [
    'properties[a].anyOf[0].type: Forbidden: must be empty to be structural',
    'properties[a].anyOf[1].type: Forbidden: must be empty to be structural',
  ]);
  assert.deepEqual(errorsOf({ type: 'object', properties: { a: { type: 'string', pattern: '(' } } }), ['properties[a].pattern: Invalid value: "(": must be a valid regular expression, but isn\'t: error parsing regexp: missing closing ): `(`']);
  assert.deepEqual(errorsOf({ type: 'object', properties: { a: { type: 'string', allOf: [{ pattern: 'a**' }] } } }), [
    'properties[a].allOf[0].pattern: Invalid value: "a**": must be a valid regular expression, but isn\'t: error parsing regexp: invalid nested repetition operator: `**`',
  ]);
});

test('unfold: x-kubernetes-int-or-string gains its anyOf (into allOf when there is one already)', () => {
  const plain = unfold(st({ xIntOrString: true }));
  assert.deepEqual(plain.valueValidation!.anyOf!.map((n) => n.forbiddenGenerics.type), ['integer', 'string']);
  const withAnyOf = unfold(toStructural({ 'x-kubernetes-int-or-string': true, anyOf: [{ maxLength: 3 }, { minimum: 1 }] }));
  assert.equal(withAnyOf.valueValidation!.anyOf!.length, 2);
  assert.deepEqual(withAnyOf.valueValidation!.allOf![0]!.anyOf!.map((n) => n.forbiddenGenerics.type), ['integer', 'string']);
  // Already in a pattern: unchanged; and unfolding leaves the input alone.
  const patterned = toStructural({ 'x-kubernetes-int-or-string': true, anyOf: [{ type: 'integer' }, { type: 'string' }] });
  assert.deepEqual(unfold(patterned), patterned);
  const input = toStructural({ type: 'object', properties: { a: { 'x-kubernetes-int-or-string': true } } });
  unfold(input);
  assert.deepEqual(input.properties!.a!.valueValidation, {});
});

test('stripValueValidations, stripNullable and deepCopyStructural return new schemas', () => {
  const s = toStructural({ type: 'object', properties: { a: { type: 'string', nullable: true, maxLength: 3, default: 'x' } } });
  const noVV = stripValueValidations(s);
  assert.equal(noVV.properties!.a!.valueValidation, undefined);
  assert.deepEqual(s.properties!.a!.valueValidation, { maxLength: 3 });
  const notNullable = stripNullable(s);
  assert.equal(notNullable.properties!.a!.nullable, false);
  assert.equal(s.properties!.a!.nullable, true);
  const copy = deepCopyStructural(s);
  assert.deepEqual(copy, s);
  assert.notEqual(copy.properties!.a, s.properties!.a);
});
