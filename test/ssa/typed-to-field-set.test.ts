/**
 * toFieldSet and the element relationships behind it (upstream's toset_test plus schemaconv's reading
 * of the markers), on built-in kinds.
 */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { messageSchema, type FieldNode, type ObjectSchema } from '../../src/schema/type-schema.ts';
import { pathString, type JsonValue } from '../../src/ssa/fieldpath/path-element.ts';
import { toFieldSet } from '../../src/ssa/typed/index.ts';

const deployment = messageSchema('k8s.io.api.apps.v1.Deployment');
const pod = messageSchema('k8s.io.api.core.v1.Pod');
const configMap = messageSchema('k8s.io.api.core.v1.ConfigMap');
const service = messageSchema('k8s.io.api.core.v1.Service');
const revision = messageSchema('k8s.io.api.apps.v1.ControllerRevision');
const pv = messageSchema('k8s.io.api.core.v1.PersistentVolume');

function paths(value: JsonValue, schema = deployment, allowDuplicates = false): string[] {
  return toFieldSet(value, schema, { allowDuplicates })
    .paths()
    .map(pathString)
    .sort();
}

const PS = '.spec.template.spec';
const podTemplate = (spec: JsonValue): JsonValue => ({ spec: { template: { spec } } });

describe('relationships derived from the markers', () => {
  test('apiVersion, kind and metadata.name are fields of every kind; struct parents are implied', () => {
    assert.deepEqual(paths({ apiVersion: 'apps/v1', kind: 'Deployment', metadata: { name: 'x' }, spec: { replicas: 1 } }), [
      '.apiVersion',
      '.kind',
      '.metadata.name',
      '.spec.replicas',
    ]);
  });

  test('containers: a list map keyed by name (listType=map)', () => {
    assert.deepEqual(paths(podTemplate({ containers: [{ name: 'c', image: 'i' }] })), [
      `${PS}.containers[name="c"]`,
      `${PS}.containers[name="c"].image`,
      `${PS}.containers[name="c"].name`,
    ]);
  });

  test('ports: keyed by containerPort and protocol, protocol defaulting to "TCP" when omitted', () => {
    const ports: JsonValue = [{ containerPort: 80 }, { containerPort: 80, protocol: 'UDP', name: 'dns' }];
    assert.deepEqual(paths(podTemplate({ containers: [{ name: 'c', ports }] })), [
      `${PS}.containers[name="c"]`,
      `${PS}.containers[name="c"].name`,
      `${PS}.containers[name="c"].ports[containerPort=80,protocol="TCP"]`,
      `${PS}.containers[name="c"].ports[containerPort=80,protocol="TCP"].containerPort`,
      `${PS}.containers[name="c"].ports[containerPort=80,protocol="UDP"]`,
      `${PS}.containers[name="c"].ports[containerPort=80,protocol="UDP"].containerPort`,
      `${PS}.containers[name="c"].ports[containerPort=80,protocol="UDP"].name`,
      `${PS}.containers[name="c"].ports[containerPort=80,protocol="UDP"].protocol`,
    ]);
  });

  test('an item omitting a key without a default is named by the keys it has', () => {
    // Service ports are keyed by port and protocol (protocol defaults to TCP); a port-less item keeps only protocol.
    assert.deepEqual(paths({ spec: { ports: [{ protocol: 'TCP', name: 'a' }] } }, service), [
      '.spec.ports[protocol="TCP"]',
      '.spec.ports[protocol="TCP"].name',
      '.spec.ports[protocol="TCP"].protocol',
    ]);
  });

  test('a key whose default is the empty string (imagePullSecrets name) names an item without it', () => {
    assert.deepEqual(paths(podTemplate({ imagePullSecrets: [{}] })), [`${PS}.imagePullSecrets[name=""]`]);
  });

  test('finalizers: a set of values; ownerReferences: keyed by uid; managedFields: atomic', () => {
    const metadata = {
      finalizers: ['a', 'b'],
      ownerReferences: [{ apiVersion: 'v1', kind: 'K', name: 'n', uid: 'u1' }],
      managedFields: [{ manager: 'm', operation: 'Apply' }],
    };
    assert.deepEqual(paths({ metadata }, configMap), [
      '.metadata.finalizers[="a"]',
      '.metadata.finalizers[="b"]',
      '.metadata.managedFields',
      '.metadata.ownerReferences[uid="u1"]',
    ]);
  });

  test('OwnerReference is an atomic struct: the item is owned, not its fields', () => {
    assert.ok(!paths({ metadata: { ownerReferences: [{ apiVersion: 'v1', kind: 'K', name: 'n', uid: 'u1' }] } }, configMap).some((p) => p.includes('.name')));
  });

  test('labels and data: granular maps, one path per key', () => {
    assert.deepEqual(paths({ metadata: { labels: { a: '1' } }, data: { k: 'v', l: 'w' } }, configMap), [
      '.data.k',
      '.data.l',
      '.metadata.labels.a',
    ]);
  });

  test('nodeSelector (+mapType=atomic) and selector (LabelSelector, +structType=atomic) are single paths', () => {
    assert.deepEqual(paths({ spec: { selector: { matchLabels: { a: 'b' } }, template: { spec: { nodeSelector: { zone: 'z' } } } } }), [
      '.spec.selector',
      `${PS}.nodeSelector`,
    ]);
  });

  test('args and command (+listType=atomic), tolerations (atomic list of structs) are single paths', () => {
    assert.deepEqual(paths(podTemplate({ containers: [{ name: 'c', args: ['a', 'a'], command: ['x'] }], tolerations: [{ key: 'k' }] })), [
      `${PS}.containers[name="c"]`,
      `${PS}.containers[name="c"].args`,
      `${PS}.containers[name="c"].command`,
      `${PS}.containers[name="c"].name`,
      `${PS}.tolerations`,
    ]);
  });

  test('volumes (patchStrategy merge,retainKeys) are keyed by name', () => {
    assert.deepEqual(paths(podTemplate({ volumes: [{ name: 'v', emptyDir: {} }] })), [
      `${PS}.volumes[name="v"]`,
      `${PS}.volumes[name="v"].emptyDir`,
      `${PS}.volumes[name="v"].name`,
    ]);
  });

  test('a field-level +structType=granular overrides an atomic type (PersistentVolume claimRef)', () => {
    assert.deepEqual(paths({ spec: { claimRef: { name: 'c', namespace: 'n' } } }, pv), ['.spec.claimRef.name', '.spec.claimRef.namespace']);
  });

  test('RawExtension (ControllerRevision data) is atomic whatever its shape', () => {
    assert.deepEqual(paths({ data: { a: { b: [1] } }, revision: 1 }, revision), ['.data', '.revision']);
  });

  test('quantities, int-or-strings and times are plain leaves', () => {
    assert.deepEqual(
      paths(podTemplate({ containers: [{ name: 'c', resources: { limits: { cpu: '1', memory: 2 } }, livenessProbe: { httpGet: { port: 'http' } } }] })),
      [
        `${PS}.containers[name="c"]`,
        `${PS}.containers[name="c"].livenessProbe.httpGet.port`,
        `${PS}.containers[name="c"].name`,
        `${PS}.containers[name="c"].resources.limits.cpu`,
        `${PS}.containers[name="c"].resources.limits.memory`,
      ],
    );
  });
});

describe('list relationships from markers, as schemaconv derives them', () => {
  // A kind with one list of {name, v} items per marker combination.
  const item: ObjectSchema = {
    kind: 'object',
    goName: 'Item',
    typeMeta: false,
    atomic: false,
    fields: new Map<string, FieldNode>([
      ['name', { name: 'name', schema: { kind: 'string' }, required: false, goType: 'string', goElementType: 'string', patchStrategies: [], patchMergeKey: '' }],
      ['v', { name: 'v', schema: { kind: 'integer', format: 'int32' }, required: false, goType: 'int32', goElementType: 'int32', patchStrategies: [], patchMergeKey: '' }],
    ]),
  };
  const listField = (name: string, markers: Partial<FieldNode>, items: ObjectSchema | { kind: 'string' } = item): [string, FieldNode] => [
    name,
    { name, schema: { kind: 'array', items }, collection: 'list', required: false, goType: '', goElementType: '', patchStrategies: [], patchMergeKey: '', ...markers },
  ];
  const kind: ObjectSchema = {
    kind: 'object',
    goName: 'Kind',
    typeMeta: true,
    atomic: false,
    fields: new Map<string, FieldNode>([
      listField('mergeKeyed', { patchStrategies: ['merge'], patchMergeKey: 'name' }),
      listField('mergeRetainKeyed', { patchStrategies: ['merge', 'retainKeys'], patchMergeKey: 'name' }),
      listField('retainOnly', { patchStrategies: ['retainKeys'], patchMergeKey: 'name' }),
      listField('unmarked', {}),
      listField('mergeSet', { patchStrategies: ['merge'] }, { kind: 'string' }),
      listField('atomicOverMerge', { listType: 'atomic', patchStrategies: ['merge'], patchMergeKey: 'name' }),
      listField('mapOverMerge', { listType: 'map', listMapKeys: ['v'], patchStrategies: ['merge'], patchMergeKey: 'name' }),
    ]),
  };

  test('patch strategy merge (with or without retainKeys) makes a list map by the merge key, or a set without one', () => {
    const one = [{ name: 'a', v: 1 }];
    assert.deepEqual(paths({ mergeKeyed: one, mergeRetainKeyed: one, mergeSet: ['x'] }, kind), [
      '.mergeKeyed[name="a"]',
      '.mergeKeyed[name="a"].name',
      '.mergeKeyed[name="a"].v',
      '.mergeRetainKeyed[name="a"]',
      '.mergeRetainKeyed[name="a"].name',
      '.mergeRetainKeyed[name="a"].v',
      '.mergeSet[="x"]',
    ]);
  });

  test('retainKeys alone and no marker at all make an atomic list; listType wins over the patch strategy', () => {
    const one = [{ name: 'a', v: 1 }];
    assert.deepEqual(paths({ retainOnly: one, unmarked: one, atomicOverMerge: one, mapOverMerge: one }, kind), [
      '.atomicOverMerge',
      '.mapOverMerge[v=1]',
      '.mapOverMerge[v=1].name',
      '.mapOverMerge[v=1].v',
      '.retainOnly',
      '.unmarked',
    ]);
  });
});

describe('what toFieldSet records (toset_test)', () => {
  test('empty and null struct fields and maps are recorded; empty lists are not, null lists are', () => {
    assert.deepEqual(paths({ metadata: { labels: {}, annotations: null, finalizers: [], ownerReferences: null }, data: {} }, configMap), [
      '.data',
      '.metadata.annotations',
      '.metadata.labels',
      '.metadata.ownerReferences',
    ]);
    assert.deepEqual(paths({ spec: { strategy: {} } }), ['.spec.strategy']);
  });

  test('an atomic list is one path even when empty or null', () => {
    assert.deepEqual(paths(podTemplate({ containers: [{ name: 'c', args: [] }], tolerations: null })), [
      `${PS}.containers[name="c"]`,
      `${PS}.containers[name="c"].args`,
      `${PS}.containers[name="c"].name`,
      `${PS}.tolerations`,
    ]);
  });

  test('explicit null scalars are leaves', () => {
    assert.deepEqual(paths({ spec: { replicas: null } }), ['.spec.replicas']);
  });

  test('with duplicates allowed, a duplicated item is recorded once, without its fields', () => {
    const value = { metadata: { finalizers: ['a', 'b', 'a', 'a'] }, spec: { template: { spec: { containers: [{ name: 'x', image: '1' }, { name: 'x', image: '2' }] } } } };
    assert.deepEqual(paths(value, deployment, true), ['.metadata.finalizers[="a"]', '.metadata.finalizers[="b"]', `${PS}.containers[name="x"]`]);
  });

  test('without duplicates allowed, the value is rejected first', () => {
    assert.throws(() => paths({ metadata: { finalizers: ['a', 'a'] } }, configMap), { name: 'SchemaError' });
  });

  test('status and spec of a Pod are walked alike (conditions keyed by type)', () => {
    assert.deepEqual(paths({ status: { conditions: [{ type: 'Ready', status: 'True' }] } }, pod), [
      '.status.conditions[type="Ready"]',
      '.status.conditions[type="Ready"].status',
      '.status.conditions[type="Ready"].type',
    ]);
  });
});
