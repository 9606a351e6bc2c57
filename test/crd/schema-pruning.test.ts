import assert from 'node:assert/strict';
import { test } from 'node:test';
import { prune } from '../../src/crd/schema/pruning.ts';
import { toStructural } from '../../src/crd/schema/convert.ts';
import type { Structural } from '../../src/crd/schema/structural.ts';
import { json, st } from './schema-fixtures.ts';

// The cases of upstream's pruning/algorithm_test.go (TestPrune): object after pruning, and the
// sorted paths reported for fieldValidation Strict/Warn.
interface Case {
  name: string;
  json: string;
  isResourceRoot?: boolean;
  schema?: Structural;
  expectedObject: string;
  expectedPruned?: string[];
}

const obj = (properties: Record<string, Structural>, extra: Partial<Structural> = {}) => st({ type: 'object', properties, ...extra });

const cases: Case[] = [
  { name: 'empty', json: 'null', expectedObject: 'null' },
  { name: 'scalar', json: '4', schema: st(), expectedObject: '4' },
  { name: 'scalar array', json: '[1,2]', schema: st({ items: st() }), expectedObject: '[1,2]' },
  {
    name: 'object array',
    json: '[{"a":1},{"b":1},{"a":1,"b":2,"c":3}]',
    schema: st({ items: st({ properties: { a: st(), c: st() } }) }),
    expectedObject: '[{"a":1},{},{"a":1,"c":3}]',
    expectedPruned: ['[1].b', '[2].b'],
  },
  {
    name: 'object array with nil schema',
    json: '[{"a":1},{"b":1},{"a":1,"b":2,"c":3}]',
    expectedObject: '[{},{},{}]',
    expectedPruned: ['[0].a', '[1].b', '[2].a', '[2].b', '[2].c'],
  },
  {
    name: 'object array object',
    json: '{"array":[{"a":1},{"b":1},{"a":1,"b":2,"c":3}],"unspecified":{"a":1},"specified":{"a":1,"b":2,"c":3}}',
    schema: st({
      properties: {
        array: st({ items: st({ properties: { a: st(), c: st() } }) }),
        specified: st({ properties: { a: st(), c: st() } }),
      },
    }),
    expectedObject: '{"array":[{"a":1},{},{"a":1,"c":3}],"specified":{"a":1,"c":3}}',
    expectedPruned: ['array[1].b', 'array[2].b', 'specified.b', 'unspecified'],
  },
  {
    name: 'nested x-kubernetes-preserve-unknown-fields',
    json: `{
      "unspecified":"bar", "alpha": "abc", "beta": 42.0, "unspecifiedObject": {"unspecified": "bar"},
      "pruning": {"unspecified": "bar", "unspecifiedObject": {"unspecified": "bar"}, "pruning": {"unspecified": "bar"}, "apiVersion": "unknown", "preserving": {"unspecified": "bar"}},
      "preserving": {"unspecified": "bar", "unspecifiedObject": {"unspecified": "bar"}, "pruning": {"unspecified": "bar"}, "preserving": {"unspecified": "bar"}, "preservingUnknownType": [{"foo":true},{"bar":true}]},
      "preservingAdditionalPropertiesNotInheritingXPreserveUnknownFields": {"foo": {"specified": {"unspecified":"bar"}, "unspecified": "bar"}},
      "preservingAdditionalPropertiesKeyPruneValues": {"foo": {"specified": {"unspecified":"bar"}, "unspecified": "bar"}}
    }`,
    schema: obj(
      {
        alpha: st({ type: 'string' }),
        beta: st({ type: 'number' }),
        pruning: obj({ preserving: st({ type: 'object', xPreserveUnknownFields: true }), pruning: st({ type: 'object' }) }),
        preserving: obj(
          {
            preserving: st({ type: 'object', xPreserveUnknownFields: true }),
            preservingUnknownType: st({ xPreserveUnknownFields: true }),
            pruning: st({ type: 'object' }),
          },
          { xPreserveUnknownFields: true },
        ),
        // x-kubernetes-preserve-unknown-fields is not inherited by the additionalProperties schema.
        preservingAdditionalPropertiesNotInheritingXPreserveUnknownFields: st({
          type: 'object',
          xPreserveUnknownFields: true,
          additionalProperties: { bool: true, structural: obj({ specified: st({ type: 'object' }) }) },
        }),
        preservingAdditionalPropertiesKeyPruneValues: st({
          type: 'object',
          additionalProperties: { bool: true, structural: obj({ specified: st({ type: 'object' }) }) },
        }),
      },
      { xPreserveUnknownFields: true },
    ),
    expectedObject: `{
      "unspecified":"bar", "alpha": "abc", "beta": 42.0, "unspecifiedObject": {"unspecified": "bar"},
      "pruning": {"pruning": {}, "preserving": {"unspecified": "bar"}},
      "preserving": {"unspecified": "bar", "unspecifiedObject": {"unspecified": "bar"}, "pruning": {}, "preserving": {"unspecified": "bar"}, "preservingUnknownType": [{"foo":true},{"bar":true}]},
      "preservingAdditionalPropertiesNotInheritingXPreserveUnknownFields": {"foo": {"specified": {}}},
      "preservingAdditionalPropertiesKeyPruneValues": {"foo": {"specified": {}}}
    }`,
    expectedPruned: [
      'preserving.pruning.unspecified',
      'preservingAdditionalPropertiesKeyPruneValues.foo.specified.unspecified',
      'preservingAdditionalPropertiesKeyPruneValues.foo.unspecified',
      'preservingAdditionalPropertiesNotInheritingXPreserveUnknownFields.foo.specified.unspecified',
      'preservingAdditionalPropertiesNotInheritingXPreserveUnknownFields.foo.unspecified',
      'pruning.apiVersion',
      'pruning.pruning.unspecified',
      'pruning.unspecified',
      'pruning.unspecifiedObject',
    ],
  },
  {
    name: 'additionalProperties with schema',
    json: '{"a":1,"b":1,"c":{"a":1,"b":2,"c":{"a":1}}}',
    schema: st({ properties: { a: st(), c: st({ additionalProperties: { bool: true, structural: st({ type: 'integer' }) } }) } }),
    expectedObject: '{"a":1,"c":{"a":1,"b":2,"c":{}}}',
    expectedPruned: ['b', 'c.c.a'],
  },
  {
    name: 'additionalProperties with bool',
    json: '{"a":1,"b":1,"c":{"a":1,"b":2,"c":{"a":1, "apiVersion": "unknown"}}}',
    schema: st({ properties: { a: st(), c: st({ additionalProperties: { bool: false } }) } }),
    expectedObject: '{"a":1,"c":{"a":1,"b":2,"c":{}}}',
    expectedPruned: ['b', 'c.c.a', 'c.c.apiVersion'],
  },
];

const embeddedJson = (root: boolean) => {
  const meta = root ? '"name": "instance", "namespace": "myns", "labels":{"foo":"bar"}, "unspecified": "bar"' : '"name": "instance", "unspecified": "bar"';
  const resource = (spec: string) => `{"apiVersion": "foo/v1", "kind": "Foo", "unspecified": "bar", "metadata": {${meta}}, "spec": ${spec}}`;
  return `{"apiVersion": "foo/v1", "kind": "Foo", "metadata": {${meta}}, "unspecified":"bar",
    "pruned": ${resource('{"unspecified": "bar"}')},
    "preserving": ${resource('{"unspecified": "bar"}')},
    "nested": ${resource(`{"unspecified": "bar", "embedded": ${resource('{"unspecified": "bar"}')}}`)}}`;
};
const embeddedExpected = (root: boolean) => {
  const meta = root ? '"name": "instance", "namespace": "myns", "labels":{"foo":"bar"}, "unspecified": "bar"' : '"name": "instance", "unspecified": "bar"';
  const pruned = (spec: string) => `{"apiVersion": "foo/v1", "kind": "Foo", "metadata": {${meta}}, "spec": ${spec}}`;
  const top = root ? `"apiVersion": "foo/v1", "kind": "Foo", "metadata": {${meta}},` : '';
  return `{${top}
    "pruned": ${pruned('{}')},
    "preserving": {"apiVersion": "foo/v1", "kind": "Foo", "unspecified": "bar", "metadata": {${meta}}, "spec": {"unspecified": "bar"}},
    "nested": ${pruned(`{"embedded": ${pruned('{}')}}`)}}`;
};
const embeddedPruned = ['nested.spec.embedded.spec.unspecified', 'nested.spec.embedded.unspecified', 'nested.spec.unspecified', 'nested.unspecified', 'pruned.spec.unspecified', 'pruned.unspecified', 'unspecified'];

cases.push(
  {
    name: 'x-kubernetes-embedded-resource',
    json: embeddedJson(false),
    schema: obj({
      pruned: obj({ spec: st({ type: 'object' }) }, { xEmbeddedResource: true }),
      preserving: st({ type: 'object', xEmbeddedResource: true, xPreserveUnknownFields: true }),
      nested: obj({ spec: obj({ embedded: obj({ spec: st({ type: 'object' }) }, { xEmbeddedResource: true }) }) }, { xEmbeddedResource: true }),
    }),
    // Not the resource root: the top-level apiVersion/kind/metadata go, unreported.
    expectedObject: embeddedExpected(false),
    expectedPruned: embeddedPruned,
  },
  {
    name: 'x-kubernetes-embedded-resource, with root=true',
    json: embeddedJson(true),
    isResourceRoot: true,
    schema: obj({
      metadata: st({ type: 'object' }),
      pruned: obj({ metadata: st({ type: 'object' }), spec: st({ type: 'object' }) }, { xEmbeddedResource: true }),
      preserving: st({ type: 'object', xEmbeddedResource: true, xPreserveUnknownFields: true }),
      nested: obj({ spec: obj({ embedded: obj({ metadata: st({ type: 'object' }), spec: st({ type: 'object' }) }, { xEmbeddedResource: true }) }) }, { xEmbeddedResource: true }),
    }),
    expectedObject: embeddedExpected(true),
    expectedPruned: embeddedPruned,
  },
);

for (const c of cases) {
  test(`prune: ${c.name}`, () => {
    const input = json(c.json);
    const pruned = prune(input, c.schema, c.isResourceRoot === true);
    assert.deepEqual(input, json(c.expectedObject));
    assert.deepEqual(pruned, c.expectedPruned ?? []);
  });
}

test('prune: the resource root keeps apiVersion, kind and metadata without a schema for them', () => {
  const o = { apiVersion: 'a/v1', kind: 'A', metadata: { name: 'x' }, spec: { foo: 1, bar: 2 }, status: {} };
  const s = toStructural({ type: 'object', properties: { spec: { type: 'object', properties: { bar: { type: 'integer' } } } } });
  assert.deepEqual(prune(o, s, true), ['spec.foo', 'status']);
  assert.deepEqual(o, { apiVersion: 'a/v1', kind: 'A', metadata: { name: 'x' }, spec: { bar: 2 } });
});

test('prune: a root without a schema keeps only TypeMeta and ObjectMeta', () => {
  const o = { apiVersion: 'a/v1', kind: 'A', metadata: {}, spec: {} };
  assert.deepEqual(prune(o, undefined, true), ['spec']);
  assert.deepEqual(o, { apiVersion: 'a/v1', kind: 'A', metadata: {} });
});

test('prune: keys that name Object.prototype members are unknown fields like any other', () => {
  const o = { spec: { constructor: 1, toString: { a: 1 }, ok: 1 } };
  const s = toStructural({ type: 'object', properties: { spec: { type: 'object', properties: { ok: { type: 'integer' } } } } });
  assert.deepEqual(prune(o, s, false), ['spec.constructor', 'spec.toString']);
  assert.deepEqual(o, { spec: { ok: 1 } });
});

test('prune: under x-kubernetes-preserve-unknown-fields items keep their unknown fields but specified ones are pruned', () => {
  const s = toStructural({
    type: 'object',
    'x-kubernetes-preserve-unknown-fields': true,
    properties: { list: { type: 'array', items: { type: 'object', properties: { inner: { type: 'object' } } } } },
  });
  const o = json('{"list":[{"free":1,"inner":{"gone":1}}]}');
  // A list's items are walked as preserving when the list itself preserves; here the list does not.
  assert.deepEqual(prune(o, s, false), ['list[0].free', 'list[0].inner.gone']);
  const s2 = toStructural({
    type: 'object',
    properties: { list: { type: 'array', 'x-kubernetes-preserve-unknown-fields': true, items: { type: 'object', properties: { inner: { type: 'object' } } } } },
  });
  const o2 = json('{"list":[{"free":1,"inner":{"gone":1}}]}');
  assert.deepEqual(prune(o2, s2, false), ['list[0].inner.gone']);
  assert.deepEqual(o2, json('{"list":[{"free":1,"inner":{}}]}'));
});
