import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { applyStrategicMergePatch } from '../../src/registry/patch/strategic-merge-patch.ts';
import { CONFIG_MAP, NAMESPACE, POD, configMap, container, expectApiError, frozen, names, namespace, ownerRef, pod } from './helpers.ts';
import { messageSchema, type ObjectSchema } from '../../src/schema/type-schema.ts';

type Obj = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any

const smp = (current: object, patch: unknown, message: ObjectSchema): Obj => applyStrategicMergePatch(current, patch, message) as Obj;

describe('strategic merge patch: maps', () => {
  test('ConfigMap data merges and null deletes a key', () => {
    const out = smp(configMap({ a: '1', b: '2' }), { data: { b: null, c: '3' } }, CONFIG_MAP);
    assert.deepEqual(out.data, { a: '1', c: '3' });
  });

  test('labels and annotations merge key by key', () => {
    const current = configMap({}, { labels: { app: 'web', tier: 'front' }, annotations: { note: 'x' } });
    const out = smp(current, { metadata: { labels: { tier: null, env: 'prod' }, annotations: { other: 'y' } } }, CONFIG_MAP);
    assert.deepEqual(out.metadata.labels, { app: 'web', env: 'prod' });
    assert.deepEqual(out.metadata.annotations, { note: 'x', other: 'y' });
  });

  test('a new map is taken from the patch without its nulls', () => {
    const out = smp(configMap(), { metadata: { labels: { a: '1', b: null } } }, CONFIG_MAP);
    assert.deepEqual(out.metadata.labels, { a: '1' });
  });

  test('fields the schema does not know merge like a JSON merge patch', () => {
    const current = { ...configMap(), extra: { keep: 1, nested: { a: 1 }, list: [1, 2] } };
    const out = smp(current, { extra: { nested: { b: 2 }, list: [3] } }, CONFIG_MAP);
    assert.deepEqual(out.extra, { keep: 1, nested: { a: 1, b: 2 }, list: [3] });
  });

  test('a value of another type replaces the current one', () => {
    const out = smp(configMap(), { data: 'not-a-map' }, CONFIG_MAP);
    assert.equal(out.data, 'not-a-map');
  });

  test('a map field with patchStrategy replace is replaced whole', () => {
    const pdb = {
      apiVersion: 'policy/v1',
      kind: 'PodDisruptionBudget',
      metadata: { name: 'pdb' },
      spec: { minAvailable: 1, selector: { matchLabels: { app: 'a' }, matchExpressions: [{ key: 'k', operator: 'Exists' }] } },
    };
    const out = smp(pdb, { spec: { selector: { matchLabels: { app: 'b' } } } }, messageSchema('k8s.io.api.policy.v1.PodDisruptionBudget'));
    assert.deepEqual(out.spec.selector, { matchLabels: { app: 'b' } });
    assert.equal(out.spec.minAvailable, 1);
  });

  test('a null patch changes nothing', () => {
    assert.deepEqual(smp(configMap(), null, CONFIG_MAP), configMap());
  });
});

describe('strategic merge patch: lists', () => {
  test('Pod containers merge by name: the named container is updated, the others kept', () => {
    const current = pod([container('app', { ports: [{ containerPort: 80 }] }), container('sidecar')]);
    const out = smp(current, { spec: { containers: [{ name: 'app', image: 'app:2' }] } }, POD);
    assert.deepEqual(names(out.spec.containers), ['app', 'sidecar']);
    assert.deepEqual(out.spec.containers[0], { name: 'app', image: 'app:2', ports: [{ containerPort: 80 }] });
    assert.deepEqual(out.spec.containers[1], container('sidecar'));
  });

  test('a container not in the list is added, ahead of the live ones as upstream orders it', () => {
    const out = smp(pod(), { spec: { containers: [container('new')] } }, POD);
    assert.deepEqual(names(out.spec.containers), ['new', 'app', 'sidecar']);
  });

  test('the patch order wins among the items it names', () => {
    const current = pod([container('a'), container('b'), container('c')]);
    const out = smp(current, { spec: { containers: [{ name: 'c', image: 'c:2' }, { name: 'a', image: 'a:2' }] } }, POD);
    assert.deepEqual(names(out.spec.containers), ['b', 'c', 'a']);
  });

  test('env merges by name inside the matched container', () => {
    const current = pod([container('app', { env: [{ name: 'A', value: '1' }, { name: 'B', value: '2' }] })]);
    const patch = { spec: { containers: [{ name: 'app', env: [{ name: 'B', value: 'two' }, { name: 'C', value: '3' }] }] } };
    const out = smp(current, patch, POD);
    assert.deepEqual(out.spec.containers[0].env, [
      { name: 'A', value: '1' },
      { name: 'B', value: 'two' },
      { name: 'C', value: '3' },
    ]);
  });

  test('env entries with a null field lose that field', () => {
    const current = pod([container('app', { env: [{ name: 'A', value: '1' }] })]);
    const out = smp(current, { spec: { containers: [{ name: 'app', env: [{ name: 'A', value: null }] }] } }, POD);
    assert.deepEqual(out.spec.containers[0].env, [{ name: 'A' }]);
  });

  test('ports merge by containerPort', () => {
    const current = pod([container('app', { ports: [{ containerPort: 80, name: 'http' }, { containerPort: 443 }] })]);
    const patch = { spec: { containers: [{ name: 'app', ports: [{ containerPort: 443, name: 'https' }] }] } };
    const out = smp(current, patch, POD);
    assert.deepEqual(out.spec.containers[0].ports, [
      { containerPort: 80, name: 'http' },
      { containerPort: 443, name: 'https' },
    ]);
  });

  test('ownerReferences merge by uid', () => {
    const current = configMap({}, { ownerReferences: [ownerRef('u1', 'one'), ownerRef('u2', 'two')] });
    const patch = { metadata: { ownerReferences: [{ uid: 'u2', controller: true }, ownerRef('u3')] } };
    const out = smp(current, patch, CONFIG_MAP);
    assert.deepEqual(
      out.metadata.ownerReferences.map((r: Obj) => [r.uid, r.name, r.controller]),
      [
        ['u1', 'one', undefined],
        ['u2', 'two', true],
        ['u3', 'u3', undefined],
      ],
    );
  });

  test('a list item without its merge key is 400 with the upstream message', () => {
    expectApiError(
      () => smp(pod(), { spec: { containers: [{ image: 'nginx' }] } }, POD),
      400,
      'BadRequest',
      'map: map[image:nginx] does not contain declared merge key: name',
    );
    const owned = configMap({}, { ownerReferences: [ownerRef('u1')] });
    expectApiError(
      () => smp(owned, { metadata: { ownerReferences: [{ name: 'x', kind: 'K' }] } }, CONFIG_MAP),
      400,
      'BadRequest',
      'map: map[kind:K name:x] does not contain declared merge key: uid',
    );
  });

  test('metadata.finalizers merge as a set, new values first', () => {
    const out = smp(namespace(['a', 'b']), { metadata: { finalizers: ['b', 'c'] } }, NAMESPACE);
    assert.deepEqual(out.metadata.finalizers, ['a', 'b', 'c']);
    const added = smp(namespace(['a']), { metadata: { finalizers: ['z'] } }, NAMESPACE);
    assert.deepEqual(added.metadata.finalizers, ['z', 'a']);
    const same = smp(namespace(['a', 'b']), { metadata: { finalizers: ['a'] } }, NAMESPACE);
    assert.deepEqual(same.metadata.finalizers, ['a', 'b']);
  });

  test('Namespace spec.finalizers has no merge strategy and is replaced', () => {
    const out = smp(namespace(['a'], ['kubernetes', 'other']), { spec: { finalizers: ['other'] } }, NAMESPACE);
    assert.deepEqual(out.spec.finalizers, ['other']);
    assert.deepEqual(out.metadata.finalizers, ['a']);
  });

  test('lists without a merge strategy (tolerations) are replaced', () => {
    const current = pod(undefined, { tolerations: [{ key: 'a', operator: 'Exists' }] });
    const out = smp(current, { spec: { tolerations: [{ key: 'b', operator: 'Exists' }] } }, POD);
    assert.deepEqual(out.spec.tolerations, [{ key: 'b', operator: 'Exists' }]);
  });

  test('a list added where there was none is taken from the patch', () => {
    const out = smp(pod([container('app')]), { spec: { containers: [{ name: 'app', env: [{ name: 'A', value: 'x' }] }] } }, POD);
    assert.deepEqual(out.spec.containers[0].env, [{ name: 'A', value: 'x' }]);
  });

  test('list items of different types are 400, lists of lists 422', () => {
    expectApiError(
      () => smp(namespace(['a']), { metadata: { finalizers: [1] } }, NAMESPACE),
      400,
      'BadRequest',
      'list element types are not identical: [[a] [1]]',
    );
    expectApiError(() => smp(namespace([]), { metadata: { finalizers: [['x']] } }, NAMESPACE), 422, 'Invalid');
  });

  test('the current object and the patch are not changed', () => {
    const current = frozen(pod([container('app', { env: [{ name: 'A', value: '1' }] }), container('b')]));
    const patch = frozen({
      metadata: { labels: { x: 'y' } },
      spec: { containers: [{ name: 'app', env: [{ name: 'A', $patch: 'delete' }] }, { name: 'c', image: 'c' }] },
    });
    const before = structuredClone(current);
    const out = smp(current, patch, POD);
    assert.deepEqual(current, before);
    assert.deepEqual(names(out.spec.containers), ['app', 'c', 'b']);
    assert.deepEqual(out.spec.containers[0].env, []);
  });
});

describe('strategic merge patch: bodies it refuses', () => {
  test('a patch that is not an object is 400 with the decoder message', () => {
    expectApiError(() => smp(configMap(), [], CONFIG_MAP), 400, 'BadRequest', 'json: cannot unmarshal array into Go value of type map[string]interface {}');
    expectApiError(() => smp(configMap(), 'x', CONFIG_MAP), 400, 'BadRequest', 'json: cannot unmarshal string into Go value of type map[string]interface {}');
  });

  test('a kind without a schema to merge by is 400 as for custom resources', () => {
    expectApiError(() => applyStrategicMergePatch({}, {}, undefined), 400, 'BadRequest', 'strategic merge patch format is not supported');
  });
});
