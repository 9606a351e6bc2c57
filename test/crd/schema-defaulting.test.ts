import assert from 'node:assert/strict';
import { test } from 'node:test';
import { applyDefaults, pruneDefaults, pruneNonNullableNullsWithoutDefaults, DefaultPruningError } from '../../src/crd/schema/defaulting.ts';
import { toStructural } from '../../src/crd/schema/convert.ts';
import type { Structural } from '../../src/crd/schema/structural.ts';
import { json, st } from './schema-fixtures.ts';

const d = (value: unknown, extra: Partial<Structural> = {}) => st({ default: value, ...extra });

// upstream's defaulting/algorithm_test.go (TestDefault)
const defaultCases: [string, string, Structural | undefined, string][] = [
  ['empty', 'null', undefined, 'null'],
  ['scalar', '4', d('foo'), '4'],
  ['scalar array', '[1,2]', st({ items: d('foo') }), '[1,2]'],
  [
    'object array',
    '[{"a":1},{"b":1},{"c":1}]',
    st({ items: st({ properties: { a: d('A'), b: d('B'), c: d('C') } }) }),
    '[{"a":1,"b":"B","c":"C"},{"a":"A","b":1,"c":"C"},{"a":"A","b":"B","c":1}]',
  ],
  [
    'object array object',
    '{"array":[{"a":1},{"b":2}],"object":{"a":1},"additionalProperties":{"x":{"a":1},"y":{"b":2}}}',
    st({
      properties: {
        array: st({ items: st({ properties: { a: d('A'), b: d('B') } }) }),
        object: st({ properties: { a: d('N'), b: d('O') } }),
        additionalProperties: st({ additionalProperties: { bool: true, structural: st({ properties: { a: d('alpha'), b: d('beta') } }) } }),
        foo: d('bar'),
      },
    }),
    '{"array":[{"a":1,"b":"B"},{"a":"A","b":2}],"object":{"a":1,"b":"O"},"additionalProperties":{"x":{"a":1,"b":"beta"},"y":{"a":"alpha","b":2}},"foo":"bar"}',
  ],
  [
    'empty and null',
    '[{},{"a":1},{"a":0},{"a":0.0},{"a":""},{"a":null},{"a":[]},{"a":{}}]',
    st({ items: st({ properties: { a: d('A') } }) }),
    '[{"a":"A"},{"a":1},{"a":0},{"a":0.0},{"a":""},{"a":"A"},{"a":[]},{"a":{}}]',
  ],
  ['null in nullable list', '[null]', st({ nullable: true, items: st({ properties: { a: d('A') } }) }), '[null]'],
  ['null in non-nullable list', '[null]', st({ items: d('A') }), '["A"]'],
  ['null in nullable object', '{"a": null}', st({ properties: { a: d('A', { nullable: true }) } }), '{"a": null}'],
  ['null in non-nullable object', '{"a": null}', st({ properties: { a: d('A') } }), '{"a": "A"}'],
  ['null in nullable object with additionalProperties', '{"a": null}', st({ additionalProperties: { bool: true, structural: d('A', { nullable: true }) } }), '{"a": null}'],
  ['null in non-nullable object with additionalProperties', '{"a": null}', st({ additionalProperties: { bool: true, structural: d('A') } }), '{"a": "A"}'],
  ['null unknown field', '{"a": null}', st({ additionalProperties: { bool: true } }), '{"a": null}'],
];

for (const [name, input, schema, expected] of defaultCases) {
  test(`applyDefaults: ${name}`, () => {
    const obj = json(input);
    applyDefaults(obj, schema);
    assert.deepEqual(obj, json(expected));
  });
}

test('applyDefaults: defaults are copies, never shared with the schema or between objects', () => {
  const s = st({ properties: { spec: d({ list: [1] }) } });
  const a = json('{}') as { spec: { list: number[] } };
  const b = json('{}') as { spec: { list: number[] } };
  applyDefaults(a, s);
  applyDefaults(b, s);
  a.spec.list.push(2);
  assert.deepEqual(b.spec.list, [1]);
  assert.deepEqual(s.properties!.spec!.default, { list: [1] });
});

test('applyDefaults: a default object is itself defaulted below', () => {
  const s = toStructural({
    type: 'object',
    properties: { spec: { type: 'object', default: {}, properties: { replicas: { type: 'integer', default: 1 } } } },
  });
  const obj = {};
  applyDefaults(obj, s);
  assert.deepEqual(obj, { spec: { replicas: 1 } });
});

// upstream's defaulting/prunenulls_test.go
const nullCases: [string, string, Structural | undefined, string][] = [
  ['empty', 'null', undefined, 'null'],
  ['scalar', '4', d('foo'), '4'],
  ['scalar array', '[1,null]', undefined, '[1,null]'],
  [
    'object array',
    '[{"a":null},{"b":null},{"c":null},{"d":null},{"e":null}]',
    st({ items: st({ properties: { a: d('A'), b: st({ nullable: true }), c: d('C', { nullable: true }), d: st() } }) }),
    '[{"a":null},{"b":null},{"c":null},{},{"e":null}]',
  ],
];

for (const [name, input, schema, expected] of nullCases) {
  test(`pruneNonNullableNullsWithoutDefaults: ${name}`, () => {
    const obj = json(input);
    pruneNonNullableNullsWithoutDefaults(obj, schema);
    assert.deepEqual(obj, json(expected));
  });
}

test('pruneNonNullableNullsWithoutDefaults: nulls under additionalProperties follow its schema', () => {
  const s = st({ properties: { m: st({ additionalProperties: { bool: true, structural: st({ type: 'string' }) } }) } });
  const obj = json('{"m":{"a":null,"b":"x"}}');
  pruneNonNullableNullsWithoutDefaults(obj, s);
  assert.deepEqual(obj, { m: { b: 'x' } });
});

test('pruneDefaults: a default loses the fields pruning would drop, in the context of the whole schema', () => {
  const s = toStructural({
    type: 'object',
    properties: {
      spec: {
        type: 'object',
        default: { a: 1, unknown: 2 },
        properties: { a: { type: 'integer' }, nested: { type: 'object', properties: { b: { type: 'string' } } } },
      },
    },
  });
  const pruned = pruneDefaults(s);
  assert.deepEqual(pruned.properties!.spec!.default, { a: 1 });
  // The input schema is left alone.
  assert.deepEqual(s.properties!.spec!.default, { a: 1, unknown: 2 });
});

test('pruneDefaults: list item defaults are pruned by the items schema, map values by additionalProperties', () => {
  const s = toStructural({
    type: 'object',
    properties: {
      list: { type: 'array', items: { type: 'object', default: { keep: 'x', drop: 'y' }, properties: { keep: { type: 'string' } } } },
      map: { type: 'object', additionalProperties: { type: 'object', default: { keep: 1, drop: 2 }, properties: { keep: { type: 'integer' } } } },
    },
  });
  const pruned = pruneDefaults(s);
  assert.deepEqual(pruned.properties!.list!.items!.default, { keep: 'x' });
  assert.deepEqual(pruned.properties!.map!.additionalProperties!.structural!.default, { keep: 1 });
});

test('pruneDefaults: embedded metadata in a default is read as ObjectMeta (unknown fields dropped)', () => {
  const s = toStructural({
    type: 'object',
    properties: {
      template: {
        type: 'object',
        'x-kubernetes-embedded-resource': true,
        'x-kubernetes-preserve-unknown-fields': true,
        default: { apiVersion: 'v1', kind: 'Pod', metadata: { name: 'x', bogus: 1, creationTimestamp: null } },
      },
    },
  });
  const pruned = pruneDefaults(s);
  assert.deepEqual(pruned.properties!.template!.default, { apiVersion: 'v1', kind: 'Pod', metadata: { name: 'x' } });
});

test('pruneDefaults: a root default that is not an object cannot be placed', () => {
  const s = toStructural({ type: 'object', default: 'x' });
  assert.throws(() => pruneDefaults(s), (e: unknown) => e instanceof DefaultPruningError && e.message === 'failed to prune default value: object root default value must be of object type');
});
