/**
 * compare (upstream's TypedValue.Compare, as in its comparison and symdiff tests) on built-in kinds.
 */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { messageSchema, type FieldNode, type ObjectSchema } from '../../src/schema/type-schema.ts';
import type { FieldSet } from '../../src/ssa/fieldpath/field-set.ts';
import { pathString, type JsonValue } from '../../src/ssa/fieldpath/path-element.ts';
import { compare } from '../../src/ssa/typed/index.ts';

const deployment = messageSchema('k8s.io.api.apps.v1.Deployment');
const configMap = messageSchema('k8s.io.api.core.v1.ConfigMap');

const list = (s: FieldSet): string[] => s.paths().map(pathString).sort();
function diff(lhs: JsonValue, rhs: JsonValue, schema: ObjectSchema = deployment): { added: string[]; modified: string[]; removed: string[] } {
  const c = compare(lhs, rhs, schema);
  return { added: list(c.added), modified: list(c.modified), removed: list(c.removed) };
}
const none = { added: [], modified: [], removed: [] };

const containers = (...items: JsonValue[]): JsonValue => ({ spec: { template: { spec: { containers: items } } } });
const C = '.spec.template.spec.containers';

describe('compare', () => {
  test('equal objects have no differences', () => {
    const v = containers({ name: 'a', image: 'x', ports: [{ containerPort: 80 }] });
    assert.deepEqual(diff(v, structuredClone(v)), none);
  });

  test('scalars added, modified and removed', () => {
    assert.deepEqual(diff({ spec: { replicas: 1, paused: true } }, { spec: { replicas: 2, minReadySeconds: 3 } }), {
      added: ['.spec.minReadySeconds'],
      modified: ['.spec.replicas'],
      removed: ['.spec.paused'],
    });
  });

  test('a granular container present on one side only is itself added or removed, with its contents', () => {
    assert.deepEqual(diff({}, { metadata: { labels: { a: '1' } } }, configMap), {
      added: ['.metadata', '.metadata.labels', '.metadata.labels.a'],
      modified: [],
      removed: [],
    });
    assert.deepEqual(diff(containers({ name: 'a', image: 'x' }), containers()), {
      added: [],
      modified: [],
      removed: [`${C}[name="a"]`, `${C}[name="a"].image`, `${C}[name="a"].name`],
    });
  });

  test('list-map items are matched by key whatever their position', () => {
    assert.deepEqual(diff(containers({ name: 'a', image: 'x' }, { name: 'b' }), containers({ name: 'b' }, { name: 'a', image: 'y' })), {
      added: [],
      modified: [`${C}[name="a"].image`],
      removed: [],
    });
  });

  test('a port with its defaulted protocol omitted is the same item as one stating it', () => {
    assert.deepEqual(
      diff(containers({ name: 'a', ports: [{ containerPort: 80 }] }), containers({ name: 'a', ports: [{ containerPort: 80, protocol: 'TCP' }] })),
      { added: [`${C}[name="a"].ports[containerPort=80,protocol="TCP"].protocol`], modified: [], removed: [] },
    );
  });

  test('atomic lists, maps and structs are compared whole', () => {
    assert.deepEqual(diff(containers({ name: 'a', args: ['x', 'y'] }), containers({ name: 'a', args: ['y', 'x'] })).modified, [`${C}[name="a"].args`]);
    assert.deepEqual(diff({ spec: { selector: { matchLabels: { a: '1' } } } }, { spec: { selector: { matchLabels: { a: '2' } } } }).modified, ['.spec.selector']);
    assert.deepEqual(
      diff({ spec: { template: { spec: { nodeSelector: { a: '1' } } } } }, { spec: { template: { spec: { nodeSelector: { a: '1', b: '2' } } } } }).modified,
      ['.spec.template.spec.nodeSelector'],
    );
  });

  test('empty and null containers are leaves: [] to null is a modification, [] to absent a removal', () => {
    assert.deepEqual(diff({ metadata: { finalizers: [] } }, { metadata: { finalizers: null } }, configMap), {
      added: [],
      modified: ['.metadata.finalizers'],
      removed: [],
    });
    assert.deepEqual(diff({ metadata: { finalizers: [] } }, { metadata: {} }, configMap), { added: [], modified: [], removed: ['.metadata.finalizers'] });
    assert.deepEqual(diff({ data: {} }, { data: null }, configMap), { added: [], modified: ['.data'], removed: [] });
  });

  test('set order does not matter; set members are leaves', () => {
    assert.deepEqual(diff({ metadata: { finalizers: ['a', 'b'] } }, { metadata: { finalizers: ['b', 'c'] } }, configMap), {
      added: ['.metadata.finalizers[="c"]'],
      modified: [],
      removed: ['.metadata.finalizers[="a"]'],
    });
  });

  test('duplicates: compared as a group; appearing and disappearing duplicates', () => {
    const fin = (...xs: string[]): JsonValue => ({ metadata: { finalizers: xs } });
    assert.deepEqual(diff(fin('a', 'a'), fin('a', 'a'), configMap), none);
    assert.deepEqual(diff(fin('a'), fin('a', 'a'), configMap), { added: ['.metadata.finalizers[="a"]'], modified: [], removed: ['.metadata.finalizers[="a"]'] });
    assert.deepEqual(diff(fin('a', 'a'), fin('a'), configMap), { added: ['.metadata.finalizers[="a"]'], modified: [], removed: ['.metadata.finalizers[="a"]'] });
    assert.deepEqual(
      diff(containers({ name: 'a', image: '1' }, { name: 'a', image: '2' }), containers({ name: 'a', image: '1' }, { name: 'a', image: '3' })),
      { added: [], modified: [`${C}[name="a"]`], removed: [] },
    );
  });

  test('an untyped value changing kind: the old map’s keys are removed and the field modified', () => {
    const node: FieldNode = { name: 'spec', schema: { kind: 'any' }, required: false, goType: '', goElementType: '', patchStrategies: [], patchMergeKey: '' };
    const crd: ObjectSchema = { kind: 'object', goName: 'X', typeMeta: true, atomic: false, fields: new Map([['spec', node]]) };
    assert.deepEqual(diff({ spec: { a: { b: 1 } } }, { spec: { a: 5 } }, crd), { added: [], modified: ['.spec.a'], removed: ['.spec.a.b'] });
    assert.deepEqual(diff({ spec: { a: null } }, { spec: { a: { b: 1 } } }, crd), { added: ['.spec.a.b'], modified: [], removed: [] });
  });

  test('both sides are validated first', () => {
    assert.throws(() => compare({ spec: { replicas: 'x' } }, {}, deployment), { name: 'SchemaError' });
  });
});
