import assert from 'node:assert/strict';
import { test } from 'node:test';
import { fieldErrorText, type FieldError } from '../../src/api/errors.ts';
import { coerceEmbeddedObjectMeta } from '../../src/crd/schema/objectmeta/coerce.ts';
import { getObjectMeta, roundTripObjectMeta } from '../../src/crd/schema/objectmeta/object-meta-json.ts';
import { validateEmbeddedObjectMeta, validateEmbeddedResource } from '../../src/crd/schema/objectmeta/validate.ts';
import { path } from '../../src/registry/validation/field.ts';
import type { Structural } from '../../src/crd/schema/structural.ts';
import { json, st } from './schema-fixtures.ts';

const text = (e: FieldError) => `${e.field}: ${fieldErrorText(e)}`;
const obj = (properties: Record<string, Structural>, extra: Partial<Structural> = {}) => st({ type: 'object', properties, ...extra });

// objectmeta/algorithm_test.go (TestCoerce)
const resource = (meta: string, spec = '{"unspecified": "bar"}') => `{"apiVersion": "foo/v1", "kind": "Foo", "unspecified": "bar", "metadata": {${meta}}, "spec": ${spec}}`;
const input = `{"apiVersion": "foo/v1", "kind": "Foo", "metadata": {"name": "instance", "unspecified": "bar"}, "unspecified":"bar",
  "pruned": ${resource('"name": "instance", "unspecified": "bar"')},
  "preserving": ${resource('"name": "instance", "unspecified": "bar"')},
  "nested": ${resource('"name": "instance", "unspecified": "bar"', `{"unspecified": "bar", "embedded": ${resource('"name": "instance", "unspecified": "bar"')}}`)}}`;
const coerceSchema = obj({
  pruned: obj({ spec: st({ type: 'object' }) }, { xEmbeddedResource: true }),
  preserving: st({ type: 'object', xEmbeddedResource: true, xPreserveUnknownFields: true }),
  nested: obj({ spec: obj({ embedded: obj({ spec: st({ type: 'object' }) }, { xEmbeddedResource: true }) }) }, { xEmbeddedResource: true }),
});
const expectedNested = (rootMeta: string) => `{"apiVersion": "foo/v1", "kind": "Foo", "metadata": {${rootMeta}}, "unspecified":"bar",
  "pruned": ${resource('"name": "instance"')},
  "preserving": ${resource('"name": "instance"')},
  "nested": ${resource('"name": "instance"', `{"unspecified": "bar", "embedded": ${resource('"name": "instance"')}}`)}}`;

test('coerce: embedded metadata is read as ObjectMeta, unknown fields dropped and reported', () => {
  const o = json(input);
  const r = coerceEmbeddedObjectMeta(undefined, o, coerceSchema, false, { returnUnknownFieldPaths: true });
  assert.equal(r.error, undefined);
  assert.deepEqual(o, json(expectedNested('"name": "instance", "unspecified": "bar"')));
  assert.deepEqual(r.unknownFieldPaths, ['nested.metadata.unspecified', 'nested.spec.embedded.metadata.unspecified', 'preserving.metadata.unspecified', 'pruned.metadata.unspecified']);
});

test('coerce: with the resource root included', () => {
  const o = json(input);
  const r = coerceEmbeddedObjectMeta(undefined, o, coerceSchema, true, { returnUnknownFieldPaths: true });
  assert.deepEqual(o, json(expectedNested('"name": "instance"')));
  assert.deepEqual(r.unknownFieldPaths, ['metadata.unspecified', 'nested.metadata.unspecified', 'nested.spec.embedded.metadata.unspecified', 'preserving.metadata.unspecified', 'pruned.metadata.unspecified']);
});

test('coerce: scalars and arrays without a schema are left alone', () => {
  for (const [j, s] of [['null', undefined], ['4', st()], ['[1,2]', st({ items: st() })]] as const) {
    const o = json(j);
    assert.deepEqual(coerceEmbeddedObjectMeta(undefined, o, s, false), { unknownFieldPaths: [] });
    assert.deepEqual(o, json(j));
  }
});

test('coerce: metadata without a name is fine', () => {
  const o = json('{"apiVersion": "foo/v1", "kind": "Foo", "metadata": {"name": "instance"}, "pruned": {"apiVersion": "foo/v1", "kind": "Foo", "metadata": {"namespace": "kube-system"}}}');
  const r = coerceEmbeddedObjectMeta(undefined, o, obj({ pruned: st({ type: 'object', xEmbeddedResource: true }) }), false);
  assert.equal(r.error, undefined);
  assert.deepEqual((o as { pruned: unknown }).pruned, { apiVersion: 'foo/v1', kind: 'Foo', metadata: { namespace: 'kube-system' } });
});

test('coerce: dropInvalidFields drops wrongly typed TypeMeta and ObjectMeta fields', () => {
  const o = json('{"apiVersion": "foo/v1", "kind": "Foo", "metadata": {"name": "instance"}, "pruned": {"apiVersion": 42, "kind": 42, "metadata": {"name": "instance", "namespace": ["abc"], "labels": {"foo": 42}}}}');
  const r = coerceEmbeddedObjectMeta(undefined, o, obj({ pruned: obj({ spec: st({ type: 'object' }) }, { xEmbeddedResource: true }) }), false, { dropInvalidFields: true });
  assert.equal(r.error, undefined);
  assert.deepEqual((o as { pruned: unknown }).pruned, { metadata: { name: 'instance' } });
  // A metadata that is not an object at all passes through.
  const o2 = json('{"pruned": {"apiVersion": 42, "kind": 42, "metadata": [42]}}');
  coerceEmbeddedObjectMeta(undefined, o2, obj({ pruned: st({ type: 'object', xEmbeddedResource: true }) }), false, { dropInvalidFields: true });
  assert.deepEqual(o2, { pruned: { metadata: [42] } });
});

test('coerce: without dropping, the first bad field is an error with Go decoding text', () => {
  const s = obj({ pruned: st({ type: 'object', xEmbeddedResource: true }) });
  const r = coerceEmbeddedObjectMeta(undefined, json('{"pruned": {"apiVersion": 42}}'), s, false);
  assert.equal(text(r.error!), 'pruned.apiVersion: Invalid value: 42: must be a string');
  const r2 = coerceEmbeddedObjectMeta(path('spec'), json('{"pruned": {"metadata": {"labels": {"a": 1}}}}'), s, false);
  assert.equal(text(r2.error!), 'spec.pruned.metadata: Invalid value: {"labels":{"a":1}}: json: cannot unmarshal number into Go struct field ObjectMeta.labels of type string');
});

test('coerce: ObjectMeta is written back as the server reads it', () => {
  const s = obj({ t: st({ type: 'object', xEmbeddedResource: true, xPreserveUnknownFields: true }) });
  const o = json(
    '{"t": {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "a", "namespace": "", "generation": 0, "labels": {}, "annotations": {"x": null}, "creationTimestamp": "2024-01-02T03:04:05.999+02:00", "finalizers": [], "ownerReferences": [{"name": "o"}], "deletionGracePeriodSeconds": 0}}}',
  ) as { t: { metadata: unknown } };
  coerceEmbeddedObjectMeta(undefined, o, s, false);
  assert.deepEqual(o.t.metadata, {
    name: 'a',
    creationTimestamp: '2024-01-02T01:04:05Z',
    deletionGracePeriodSeconds: 0,
    annotations: { x: '' },
    ownerReferences: [{ apiVersion: '', kind: '', name: 'o', uid: '' }],
  });
  // A null creationTimestamp, or none, goes away.
  const o2 = json('{"t": {"metadata": null}}') as { t: { metadata: unknown } };
  coerceEmbeddedObjectMeta(undefined, o2, s, false);
  assert.deepEqual(o2.t.metadata, {});
});

// objectmeta/coerce_test.go (TestGetObjectMetaWithOptions, TestGetObjectMetaNils, TestGetObjectMeta)
test('getObjectMeta: unknown and malformed fields', () => {
  const base = { name: 'my-meta', generateName: null, generation: null, labels: { foo: 'bar' } };
  const unknownAndMalformed = { metadata: { ...base, unknownField: 'foo', annotations: 11 } };
  const unknownOnly = { metadata: { ...base, unknownField: 'foo' } };
  const malformedOnly = { metadata: { ...base, annotations: 11 } };
  const err = 'json: cannot unmarshal number into Go struct field ObjectMeta.annotations of type map[string]string';
  const meta = { name: 'my-meta', creationTimestamp: null, labels: { foo: 'bar' } };
  const cases: [object, boolean, boolean, object | undefined, string[], string | undefined][] = [
    [unknownAndMalformed, false, false, undefined, [], err],
    [unknownAndMalformed, true, false, meta, [], undefined],
    [unknownAndMalformed, false, true, undefined, [], err],
    [unknownAndMalformed, true, true, meta, ['metadata.unknownField'], undefined],
    [unknownOnly, false, false, meta, [], undefined],
    [unknownOnly, true, false, meta, [], undefined],
    [unknownOnly, false, true, meta, ['metadata.unknownField'], undefined],
    [unknownOnly, true, true, meta, ['metadata.unknownField'], undefined],
    [malformedOnly, false, false, undefined, [], err],
    [malformedOnly, true, false, meta, [], undefined],
    [malformedOnly, false, true, undefined, [], err],
    [malformedOnly, true, true, meta, [], undefined],
  ];
  for (const [o, drop, unknown, expected, paths, error] of cases) {
    const got = getObjectMeta(o as Record<string, unknown>, { dropMalformedFields: drop, returnUnknownFieldPaths: unknown });
    assert.deepEqual(got.meta, expected);
    assert.deepEqual(got.unknownFields, paths);
    assert.equal(got.error, error);
  }
});

test('getObjectMeta: nulls read as zero values; names are case-sensitive', () => {
  const got = getObjectMeta({ metadata: { generateName: null, generation: null, labels: { foo: null } } }, { dropMalformedFields: true });
  assert.deepEqual(got.meta, { creationTimestamp: null, labels: { foo: '' } });
  const cased = getObjectMeta({ metadata: { name: 'good', Name: 'bad1', nAme: 'bad2', namespace: 'good', Namespace: 'bad1', creationTimestamp: 'a' } }, { dropMalformedFields: true });
  assert.deepEqual(cased.meta, { name: 'good', namespace: 'good', creationTimestamp: null });
  assert.deepEqual(getObjectMeta({ metadata: 'x' }, { dropMalformedFields: true }), { found: false, unknownFields: [], error: 'invalid metadata: expected object, got string' });
  assert.deepEqual(getObjectMeta({}), { found: false, unknownFields: [] });
});

test('roundTripObjectMeta: times in UTC to the second, zero time as null', () => {
  assert.deepEqual(roundTripObjectMeta({ creationTimestamp: '0001-01-01T00:00:00Z', deletionTimestamp: '2024-02-29T23:59:59.5-01:30' }), {
    creationTimestamp: null,
    deletionTimestamp: '2024-03-01T01:29:59Z',
  });
  assert.deepEqual(roundTripObjectMeta({ managedFields: [{ manager: 'm', operation: 'Apply', time: '2024-01-01T00:00:00Z', fieldsType: 'FieldsV1', fieldsV1: { 'f:a': {} }, bogus: 1 }] }), {
    creationTimestamp: null,
    managedFields: [{ manager: 'm', operation: 'Apply', time: '2024-01-01T00:00:00Z', fieldsType: 'FieldsV1', fieldsV1: { 'f:a': {} } }],
  });
});

// objectmeta/validation_test.go (TestValidateEmbeddedResource, TestValidate)
test('validate embedded resource: TypeMeta required, kind and ObjectMeta validated', () => {
  const v = (o: unknown) => validateEmbeddedResource(path(), o as Record<string, unknown>).map((e) => [e.type, e.field]);
  assert.deepEqual(v({}), [
    ['FieldValueRequired', 'apiVersion'],
    ['FieldValueRequired', 'kind'],
  ]);
  assert.deepEqual(v({ apiVersion: 'foo/v1', kind: 'Foo' }), []);
  assert.deepEqual(v({ apiVersion: 'foo/v1', kind: 'foo.bar-com' }), [['FieldValueInvalid', 'kind']]);
  assert.deepEqual(v({ apiVersion: 'foo/v1', kind: 'Foo', metadata: { namespace: 'kube-system' } }), []);
  assert.deepEqual(v({ apiVersion: 'foo/v1', kind: 'Foo', metadata: { name: 'foo' } }), []);
  const errs = validateEmbeddedResource(path(), { apiVersion: 'foo/v1', kind: 'Foo', metadata: { name: '..', namespace: '$$$', labels: { '#': '#' }, annotations: { '#': '#' } } });
  assert.deepEqual(
    errs.map((e) => [e.type, e.field]),
    [
      ['FieldValueInvalid', 'metadata.name'],
      ['FieldValueInvalid', 'metadata.namespace'],
      ['FieldValueInvalid', 'metadata.labels'],
      ['FieldValueInvalid', 'metadata.labels'],
      ['FieldValueInvalid', 'metadata.annotations'],
    ],
  );
  assert.equal(text(errs[0]!), `metadata.name: Invalid value: "..": may not be '..'`);
  const bad = validateEmbeddedResource(path('x'), { apiVersion: 'a/b/c', kind: '', metadata: 5 });
  assert.deepEqual(bad.map(text), [
    'x.apiVersion: Invalid value: "a/b/c": unexpected GroupVersion string: a/b/c',
    'x.kind: Invalid value: "": must not be empty',
    'x.metadata: Invalid value: 5: json: cannot unmarshal number into Go value of type v1.ObjectMeta',
  ]);
});

test('validate embedded ObjectMeta: walks properties, items and additionalProperties', () => {
  const s = st({
    properties: {
      embedded: st({ xEmbeddedResource: true }),
      nested: st({ xEmbeddedResource: true, properties: { embedded: st({ xEmbeddedResource: true }) } }),
      items: st({ items: st({ xEmbeddedResource: true }) }),
      additionalProperties: st({ additionalProperties: { bool: true, structural: st({ xEmbeddedResource: true }) } }),
    },
  });
  const run = (j: string, root = false) => validateEmbeddedObjectMeta(undefined, json(j), s, root).map((e) => `${e.type} ${e.field}`).sort();
  assert.deepEqual(run('{}'), []);
  assert.deepEqual(run('{}', true), ['FieldValueRequired apiVersion', 'FieldValueRequired kind']);
  assert.deepEqual(run('{"embedded": {}}'), ['FieldValueRequired embedded.apiVersion', 'FieldValueRequired embedded.kind']);
  assert.deepEqual(run('{"nested": {"embedded": {}}}'), ['FieldValueRequired nested.apiVersion', 'FieldValueRequired nested.embedded.apiVersion', 'FieldValueRequired nested.embedded.kind', 'FieldValueRequired nested.kind']);
  assert.deepEqual(run('{"items": [{}]}'), ['FieldValueRequired items[0].apiVersion', 'FieldValueRequired items[0].kind']);
  assert.deepEqual(run('{"additionalProperties": {"foo":{}}}'), ['FieldValueRequired additionalProperties[foo].apiVersion', 'FieldValueRequired additionalProperties[foo].kind']);
});

test('validate embedded ObjectMeta: generation, finalizers, owner references, managed fields', () => {
  const errs = validateEmbeddedResource(path('t'), {
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: {
      generateName: 'a/',
      generation: -1,
      finalizers: ['bad finalizer', 'orphan', 'foregroundDeletion'],
      ownerReferences: [{ apiVersion: 'v1', kind: 'Event', name: 'e', uid: 'u' }],
      managedFields: [{ manager: 'm', operation: 'Bogus' }],
    },
  });
  assert.deepEqual(errs.map((e) => e.field), [
    't.metadata.generateName',
    't.metadata.generation',
    't.metadata.ownerReferences',
    't.metadata.finalizers',
    't.metadata.finalizers',
    't.metadata.managedFields[0].operation',
  ]);
  assert.equal(text(errs[1]!), 't.metadata.generation: Invalid value: -1: must be greater than or equal to 0');
  assert.equal(text(errs[4]!), 't.metadata.finalizers: Invalid value: []string{"bad finalizer", "orphan", "foregroundDeletion"}: finalizer orphan and foregroundDeletion cannot be both set');
});
