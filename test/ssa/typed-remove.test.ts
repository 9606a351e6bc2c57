/**
 * removeItems (upstream's RemoveItems, as in its remove_test), ensureNamedFieldsAreMembers and
 * reconcileFieldSetWithSchema on built-in kinds.
 */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { messageSchema, type FieldNode, type ObjectSchema } from '../../src/schema/type-schema.ts';
import { pathString, type JsonValue, type PathElement } from '../../src/ssa/fieldpath/path-element.ts';
import { ensureNamedFieldsAreMembers, reconcileFieldSetWithSchema, removeItems } from '../../src/ssa/typed/index.ts';
import { key, P, set } from './fixtures.ts';

const deployment = messageSchema('k8s.io.api.apps.v1.Deployment');
const configMap = messageSchema('k8s.io.api.core.v1.ConfigMap');

const value = (v: JsonValue): PathElement => ({ kind: 'value', value: v });
const CONTAINERS = ['spec', 'template', 'spec', 'containers'];
const containers = (...items: JsonValue[]): JsonValue => ({ spec: { template: { spec: { containers: items } } } });

describe('removeItems', () => {
  test('removes fields, keys, set values and list items', () => {
    const v: JsonValue = {
      metadata: { labels: { a: '1', b: '2' }, finalizers: ['x', 'y'] },
      spec: { replicas: 1, paused: true, template: { spec: { containers: [{ name: 'a' }, { name: 'b', image: 'i' }] } } },
    };
    const out = removeItems(v, set(P('metadata', 'labels', 'a'), P('metadata', 'finalizers', value('x')), P('spec', 'paused'), P(...CONTAINERS, key('name', 'a')), P(...CONTAINERS, key('name', 'b'), 'image')), deployment);
    assert.deepEqual(out, {
      metadata: { labels: { b: '2' }, finalizers: ['y'] },
      spec: { replicas: 1, template: { spec: { containers: [{ name: 'b' }] } } },
    });
  });

  test('a container emptied by the removal becomes null and stays in its parent', () => {
    assert.deepEqual(removeItems({ metadata: { labels: { a: '1' } } }, set(P('metadata', 'labels', 'a')), configMap), { metadata: { labels: null } });
    assert.deepEqual(removeItems(containers({ name: 'a' }), set(P(...CONTAINERS, key('name', 'a'))), deployment), {
      spec: { template: { spec: { containers: null } } },
    });
    assert.equal(removeItems({ data: { a: 'b' } }, set(P('data')), configMap), null, 'the root itself');
  });

  test('an atomic or empty container the set reaches into becomes null', () => {
    assert.deepEqual(removeItems(containers({ name: 'a', args: ['x', 'y'] }), set(P(...CONTAINERS, key('name', 'a'), 'args', value('x'))), deployment), containers({ name: 'a', args: null }));
    assert.deepEqual(removeItems({ metadata: { finalizers: [] } }, set(P('metadata', 'finalizers', value('x'))), configMap), { metadata: { finalizers: null } });
  });

  test('a removed member takes its whole subtree; untouched values are kept as they are', () => {
    const v = { spec: { strategy: { type: 'RollingUpdate', rollingUpdate: { maxSurge: 1 } }, replicas: 2 } };
    assert.deepEqual(removeItems(v, set(P('spec', 'strategy'), P('spec', 'strategy', 'type')), deployment), { spec: { replicas: 2 } });
    assert.equal(removeItems(v, set(), deployment) === v, false, 'a new root is built');
    assert.deepEqual(removeItems(v, set(), deployment), v);
  });

  test('removing a defaulted-key item by its full key, whether or not the item states the default', () => {
    const ports: JsonValue = [{ containerPort: 80 }, { containerPort: 80, protocol: 'UDP' }];
    const out = removeItems(containers({ name: 'a', ports }), set(P(...CONTAINERS, key('name', 'a'), 'ports', key('containerPort', 80, 'protocol', 'TCP'))), deployment);
    assert.deepEqual(out, containers({ name: 'a', ports: [{ containerPort: 80, protocol: 'UDP' }] }));
  });

  test('inputs are not modified', () => {
    const v = { metadata: { labels: { a: '1', b: '2' } } };
    const copy = structuredClone(v);
    removeItems(v, set(P('metadata', 'labels', 'a')), configMap);
    assert.deepEqual(v, copy);
  });
});

describe('ensureNamedFieldsAreMembers', () => {
  test('adds declared struct fields on the way to owned paths, not list items or free map keys', () => {
    const s = set(P(...CONTAINERS, key('name', 'a'), 'resources', 'limits', 'cpu'), P('metadata', 'labels', 'app'));
    assert.deepEqual(ensureNamedFieldsAreMembers(s, deployment).paths().map(pathString).sort(), [
      '.metadata',
      '.metadata.labels',
      '.metadata.labels.app',
      '.spec',
      '.spec.template',
      '.spec.template.spec',
      '.spec.template.spec.containers',
      '.spec.template.spec.containers[name="a"].resources',
      '.spec.template.spec.containers[name="a"].resources.limits',
      '.spec.template.spec.containers[name="a"].resources.limits.cpu',
    ]);
  });

  test('keys of untyped maps are not named fields', () => {
    const node: FieldNode = { name: 'spec', schema: { kind: 'any' }, required: false, goType: '', goElementType: '', patchStrategies: [], patchMergeKey: '' };
    const crd: ObjectSchema = { kind: 'object', goName: 'X', typeMeta: true, atomic: false, fields: new Map([['spec', node]]) };
    assert.deepEqual(ensureNamedFieldsAreMembers(set(P('spec', 'a', 'b')), crd).paths().map(pathString).sort(), ['.spec', '.spec.a.b']);
  });
});

describe('reconcileFieldSetWithSchema', () => {
  test('nothing to do: undefined', () => {
    assert.equal(reconcileFieldSetWithSchema(set(P('spec', 'replicas'), P('spec', 'selector')), deployment), undefined);
  });

  test('children of an atomic map (nodeSelector) collapse onto it', () => {
    const s = set(P('spec', 'template', 'spec', 'nodeSelector', 'zone'), P('spec', 'replicas'));
    assert.deepEqual(reconcileFieldSetWithSchema(s, deployment)?.paths().map(pathString).sort(), ['.spec.replicas', '.spec.template.spec.nodeSelector']);
  });
});

describe('removeItems and a map key named __proto__', () => {
  test('keeps it as an own key when another key goes', () => {
    const cm = messageSchema('k8s.io.api.core.v1.ConfigMap');
    const value = JSON.parse('{"data":{"__proto__":"a","b":"1"}}') as JsonValue;
    const out = removeItems(value, set(P('data', 'b')), cm) as { data: Record<string, string> };
    assert.deepEqual(Object.keys(out.data), ['__proto__']);
    assert.equal(Object.getPrototypeOf(out.data), Object.prototype);
  });
});
