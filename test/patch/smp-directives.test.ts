import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { applyStrategicMergePatch } from '../../src/registry/patch/strategic-merge-patch.ts';
import { CONFIG_MAP, DEPLOYMENT, NAMESPACE, POD, configMap, container, expectApiError, names, namespace, ownerRef, pod } from './helpers.ts';
import { messageSchema, type ObjectSchema } from '../../src/schema/type-schema.ts';

type Obj = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any

const smp = (current: object, patch: unknown, message: ObjectSchema): Obj => applyStrategicMergePatch(current, patch, message) as Obj;

/** Every key in a document that starts with `$`. */
function dollarKeys(value: unknown, path = ''): string[] {
  if (Array.isArray(value)) return value.flatMap((v, i) => dollarKeys(v, `${path}[${i}]`));
  if (value && typeof value === 'object') {
    return Object.entries(value).flatMap(([k, v]) => [...(k.startsWith('$') ? [`${path}.${k}`] : []), ...dollarKeys(v, `${path}.${k}`)]);
  }
  return [];
}

describe('$patch on maps', () => {
  test('replace makes the patch the whole map', () => {
    const current = configMap({}, { labels: { a: '1', b: '2' } });
    const out = smp(current, { metadata: { labels: { $patch: 'replace', c: '3' } } }, CONFIG_MAP);
    assert.deepEqual(out.metadata.labels, { c: '3' });
  });

  test('replace on the whole object replaces it', () => {
    const out = smp(configMap({ a: '1' }), { $patch: 'replace', apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'cm' } }, CONFIG_MAP);
    assert.deepEqual(out, { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'cm' } });
  });

  test('delete empties the map', () => {
    const out = smp(configMap({ a: '1', b: '2' }), { data: { $patch: 'delete' } }, CONFIG_MAP);
    assert.deepEqual(out.data, {});
  });

  test('merge on a map is refused as upstream does', () => {
    expectApiError(
      () => smp(configMap(), { data: { $patch: 'merge', b: '2' } }, CONFIG_MAP),
      400,
      'BadRequest',
      'unknown patch type: merge in map: map[$patch:merge b:2]',
    );
  });

  test('an unknown $patch value is 400', () => {
    expectApiError(() => smp(configMap(), { data: { $patch: 'nope' } }, CONFIG_MAP), 400, 'BadRequest', 'unknown patch type: nope in map: map[$patch:nope]');
  });
});

describe('$patch on list elements', () => {
  test('delete removes the element with that merge key', () => {
    const out = smp(pod(), { spec: { containers: [{ name: 'sidecar', $patch: 'delete' }] } }, POD);
    assert.deepEqual(names(out.spec.containers), ['app']);
  });

  test('delete of an owner reference by uid', () => {
    const current = configMap({}, { ownerReferences: [ownerRef('u1'), ownerRef('u2')] });
    const out = smp(current, { metadata: { ownerReferences: [{ uid: 'u1', $patch: 'delete' }] } }, CONFIG_MAP);
    assert.deepEqual(out.metadata.ownerReferences.map((r: Obj) => r.uid), ['u2']);
  });

  test('delete without the merge key is 400', () => {
    expectApiError(
      () => smp(pod(), { spec: { containers: [{ $patch: 'delete' }] } }, POD),
      400,
      'BadRequest',
      'map: map[$patch:delete] does not contain declared merge key: name',
    );
  });

  test('replace makes the other patch elements the whole list', () => {
    const patch = { spec: { containers: [{ $patch: 'replace' }, container('only')] } };
    const out = smp(pod(), patch, POD);
    assert.deepEqual(out.spec.containers, [container('only')]);
  });

  test('merge is refused', () => {
    expectApiError(
      () => smp(pod(), { spec: { containers: [{ name: 'app', $patch: 'merge' }] } }, POD),
      400,
      'BadRequest',
      'merging lists cannot yet be specified in the patch',
    );
  });
});

describe('$deleteFromPrimitiveList', () => {
  test('removes values from metadata.finalizers', () => {
    const out = smp(namespace(['a', 'b', 'c']), { metadata: { '$deleteFromPrimitiveList/finalizers': ['b', 'x'] } }, NAMESPACE);
    assert.deepEqual(out.metadata.finalizers, ['a', 'c']);
  });

  test('adds and removes in one patch', () => {
    const patch = { metadata: { finalizers: ['d'], '$deleteFromPrimitiveList/finalizers': ['a'] } };
    const out = smp(namespace(['a', 'b']), patch, NAMESPACE);
    assert.deepEqual(out.metadata.finalizers, ['d', 'b']);
  });

  test('for a list that does not exist changes nothing', () => {
    const out = smp(configMap(), { metadata: { '$deleteFromPrimitiveList/finalizers': ['a'] } }, CONFIG_MAP);
    assert.deepEqual(out, configMap());
  });

  test('a key without /<field> is 400', () => {
    expectApiError(
      () => smp(namespace(), { metadata: { $deleteFromPrimitiveListfinalizers: ['a'] } }, NAMESPACE),
      400,
      'BadRequest',
      'invalid patch format of primitive list',
    );
  });
});

describe('$setElementOrder', () => {
  test('orders a merged list of primitives: new finalizers can go last', () => {
    const patch = { metadata: { '$setElementOrder/finalizers': ['a', 'b', 'c'], finalizers: ['c'] } };
    const out = smp(namespace(['a', 'b']), patch, NAMESPACE);
    assert.deepEqual(out.metadata.finalizers, ['a', 'b', 'c']);
  });

  test('orders containers by name, as kubectl sends it', () => {
    const patch = {
      spec: {
        '$setElementOrder/containers': [{ name: 'sidecar' }, { name: 'app' }, { name: 'new' }],
        containers: [container('new')],
      },
    };
    const out = smp(pod(), patch, POD);
    assert.deepEqual(names(out.spec.containers), ['sidecar', 'app', 'new']);
  });

  test('items it does not name are interleaved by their live positions', () => {
    const current = pod([container('a'), container('b'), container('c')]);
    const out = smp(current, { spec: { '$setElementOrder/containers': [{ name: 'c' }, { name: 'a' }] } }, POD);
    // b came before c in the live list, so it stays ahead of c.
    assert.deepEqual(names(out.spec.containers), ['b', 'c', 'a']);
  });

  test('a patch list out of the directive order is 400', () => {
    const patch = {
      metadata: { '$setElementOrder/finalizers': ['a', 'b', 'c'], finalizers: ['c', 'a'] },
    };
    expectApiError(
      () => smp(namespace(['a', 'c', 'b']), patch, NAMESPACE),
      400,
      'BadRequest',
      'The order in patch list:\n[c a]\n doesn\'t match $setElementOrder list:\n[a b c]\n',
    );
  });

  test('a value that is not a list is 400', () => {
    expectApiError(
      () => smp(namespace(), { metadata: { '$setElementOrder/finalizers': 'a' } }, NAMESPACE),
      400,
      'BadRequest',
      'expected a []interface {}, but received a string',
    );
  });

  test('a key without /<field> is 400', () => {
    expectApiError(
      () => smp(namespace(), { metadata: { $setElementOrderX: [] } }, NAMESPACE),
      400,
      'BadRequest',
      'invalid patch format of setElementOrder list',
    );
  });
});

describe('$retainKeys', () => {
  function deployment(strategy: Obj): Obj {
    return { apiVersion: 'apps/v1', kind: 'Deployment', metadata: { name: 'd' }, spec: { replicas: 1, strategy } };
  }

  test('clears the fields of the map that are not listed', () => {
    const current = deployment({ type: 'RollingUpdate', rollingUpdate: { maxSurge: 1 } });
    const out = smp(current, { spec: { strategy: { $retainKeys: ['type'], type: 'Recreate' } } }, DEPLOYMENT);
    assert.deepEqual(out.spec.strategy, { type: 'Recreate' });
    assert.equal(out.spec.replicas, 1);
  });

  test('works in list elements: a volume switches its source', () => {
    const current = pod(undefined, { volumes: [{ name: 'v', emptyDir: {} }, { name: 'w', emptyDir: {} }] });
    const patch = { spec: { volumes: [{ name: 'v', $retainKeys: ['configMap', 'name'], configMap: { name: 'cm' } }] } };
    const out = smp(current, patch, POD);
    assert.deepEqual(out.spec.volumes, [{ name: 'v', configMap: { name: 'cm' } }, { name: 'w', emptyDir: {} }]);
  });

  test('a value that is not a list is 400', () => {
    expectApiError(
      () => smp(deployment({ type: 'Recreate' }), { spec: { strategy: { $retainKeys: 'type' } } }, DEPLOYMENT),
      400,
      'BadRequest',
      'invalid patch format of retainKeys',
    );
  });

  test('setting a field it does not list is 400', () => {
    expectApiError(
      () => smp(deployment({ type: 'Recreate' }), { spec: { strategy: { $retainKeys: ['type'], rollingUpdate: {} } } }, DEPLOYMENT),
      400,
      'BadRequest',
      'invalid patch format of retainKeys',
    );
  });
});

describe('directive keys never reach the result', () => {
  test('not from new values, replaced lists or replaced maps', () => {
    const patch = {
      metadata: { labels: { $patch: 'replace', a: '1' }, '$setElementOrder/finalizers': ['x'], finalizers: ['x'] },
      spec: {
        containers: [
          { name: 'new', env: [{ name: 'A', value: '1' }, { name: 'B', $patch: 'delete' }], '$setElementOrder/env': [{ name: 'A' }] },
          { name: 'app', $retainKeys: ['name', 'image'], image: 'app:2' },
        ],
        tolerations: [{ key: 'k', $patch: 'delete' }, { key: 'j', operator: 'Exists' }],
        newField: { $patch: 'delete' },
        other: { nested: { $retainKeys: ['x'], x: 1 } },
      },
    };
    const out = smp(pod(), patch, POD);
    assert.deepEqual(dollarKeys(out), []);
    assert.deepEqual(out.spec.containers.find((c: Obj) => c.name === 'new').env, [{ name: 'A', value: '1' }]);
    assert.deepEqual(out.spec.tolerations, [{ key: 'j', operator: 'Exists' }]);
    assert.equal('newField' in out.spec, false);
    assert.deepEqual(out.spec.other, { nested: { x: 1 } });
  });
});
