import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { assertStatus, create, createNamespace, eventually, uniqueName, type Api } from '../helpers/fixtures.ts';
import { serveFile } from '../helpers/server.ts';

// Expectations from upstream's plugin/pkg/admission/limitranger/admission.go (1.34) and its tests.
const pod = (name: string, spec: Record<string, unknown>) => ({ apiVersion: 'v1', kind: 'Pod', metadata: { name }, spec });
const ctr = (name: string, resources?: Record<string, unknown>, extra: Record<string, unknown> = {}) => ({ name, image: 'nginx:1.27', ...(resources ? { resources } : {}), ...extra });
const limitRange = (name: string, limits: unknown[]) => ({ apiVersion: 'v1', kind: 'LimitRange', metadata: { name }, spec: { limits } });
const claim = (name: string, storage: string) => ({
  apiVersion: 'v1',
  kind: 'PersistentVolumeClaim',
  metadata: { name },
  spec: { accessModes: ['ReadWriteOnce'], resources: { requests: { storage } } },
});

/** A fresh namespace holding the given limit range. */
async function namespaceWith(api: Api, limits: unknown[]): Promise<string> {
  const ns = await createNamespace(api, uniqueName('lr'));
  await create(api, `/api/v1/namespaces/${ns}/limitranges`, limitRange('limits', limits));
  return ns;
}

describe('LimitRanger (on by default)', () => {
  // The service account plugin is off so that pods are judged by the limit ranges alone.
  const t = serveFile(['--disable-admission-plugins=ServiceAccount']);

  test('containers and init containers get the Container defaults they lack, and the pod says so', async () => {
    const ns = await namespaceWith(t.api, [{ type: 'Container', default: { cpu: '500m', memory: '256Mi' }, defaultRequest: { cpu: '100m' } }]);
    const created = await create(
      t.api,
      `/api/v1/namespaces/${ns}/pods`,
      pod('defaults', { initContainers: [ctr('init', { limits: { cpu: '200m' } })], containers: [ctr('app'), ctr('own', { requests: { memory: '64Mi' } })] }),
    );
    const [app, own] = created.spec.containers;
    assert.deepEqual(app.resources, { limits: { cpu: '500m', memory: '256Mi' }, requests: { cpu: '100m', memory: '256Mi' } });
    assert.deepEqual(own.resources, { limits: { cpu: '500m', memory: '256Mi' }, requests: { cpu: '100m', memory: '64Mi' } });
    // The init container's own limit became its request when the pod was decoded; it gets the memory defaults.
    assert.deepEqual(created.spec.initContainers[0].resources, { limits: { cpu: '200m', memory: '256Mi' }, requests: { cpu: '200m', memory: '256Mi' } });
    assert.equal(
      created.metadata.annotations['kubernetes.io/limit-ranger'],
      'LimitRanger plugin set: cpu, memory request for container app; cpu, memory limit for container app; cpu request for container own; cpu, memory limit for container own; memory request for init container init; memory limit for init container init',
    );
    // A pod that sets everything gets no annotation.
    const full = await create(t.api, `/api/v1/namespaces/${ns}/pods`, pod('full', { containers: [ctr('app', { requests: { cpu: '1m', memory: '1Mi' }, limits: { cpu: '1m', memory: '1Mi' } })] }));
    assert.equal(full.metadata.annotations, undefined);
  });

  test('Container max, min and maxLimitRequestRatio refuse with upstream messages', async () => {
    const ns = await namespaceWith(t.api, [{ type: 'Container', max: { cpu: '1' }, min: { memory: '64Mi' }, maxLimitRequestRatio: { cpu: '2' }, default: { memory: '128Mi' } }]);
    const path = `/api/v1/namespaces/${ns}/pods`;
    assertStatus(
      await t.api.post(path, pod('big', { containers: [ctr('c', { requests: { cpu: '1500m' }, limits: { cpu: '2' } })] })),
      403,
      'Forbidden',
      'pods "big" is forbidden: maximum cpu usage per Container is 1, but limit is 2',
    );
    assertStatus(
      await t.api.post(path, pod('small', { containers: [ctr('c', { requests: { cpu: '500m', memory: '32Mi' }, limits: { cpu: '500m' } })] })),
      403,
      'Forbidden',
      'pods "small" is forbidden: minimum memory usage per Container is 64Mi, but request is 32Mi',
    );
    assertStatus(
      await t.api.post(path, pod('ratio', { containers: [ctr('c', { requests: { cpu: '100m' }, limits: { cpu: '500m' } })] })),
      403,
      'Forbidden',
      'pods "ratio" is forbidden: cpu max limit to request ratio per Container is 2, but provided ratio is 5.000000',
    );
    // Several broken rules: every message, bracketed; init containers are judged too.
    assertStatus(
      await t.api.post(path, pod('both', { initContainers: [ctr('init', { requests: { cpu: '3', memory: '1Mi' }, limits: { cpu: '3' } })], containers: [ctr('c', { requests: { cpu: '1' }, limits: { cpu: '1' } })] })),
      403,
      'Forbidden',
      // (max reports the limit it breaks and stops there, as upstream's maxConstraint does.)
      'pods "both" is forbidden: [minimum memory usage per Container is 64Mi, but request is 1Mi, maximum cpu usage per Container is 1, but limit is 3]',
    );
    // Within bounds (the LimitRange's own defaulting made max the default limit).
    const ok = await create(t.api, path, pod('ok', { containers: [ctr('c', { requests: { cpu: '600m' } })] }));
    assert.deepEqual(ok.spec.containers[0].resources.limits, { cpu: '1', memory: '128Mi' });
  });

  test('a min without any request is refused: "No request is specified"', async () => {
    const ns = await createNamespace(t.api, uniqueName('lr'));
    // A limit range with min alone defaults defaultRequest from min; a second, later one adds the rule only.
    await create(t.api, `/api/v1/namespaces/${ns}/limitranges`, limitRange('a-pod', [{ type: 'Pod', min: { cpu: '100m' } }]));
    assertStatus(
      await t.api.post(`/api/v1/namespaces/${ns}/pods`, pod('none', { containers: [ctr('c')] })),
      403,
      'Forbidden',
      'pods "none" is forbidden: minimum cpu usage per Pod is 100m.  No request is specified',
    );
  });

  test('Pod items judge the whole pod: containers and sidecars added, raised to the largest init container', async () => {
    const ns = await namespaceWith(t.api, [{ type: 'Pod', max: { cpu: '1' } }]);
    const path = `/api/v1/namespaces/${ns}/pods`;
    assertStatus(
      await t.api.post(path, pod('sum', { containers: [ctr('a', { limits: { cpu: '600m' } }), ctr('b', { limits: { cpu: '600m' } })] })),
      403,
      'Forbidden',
      'pods "sum" is forbidden: maximum cpu usage per Pod is 1, but limit is 1200m',
    );
    assertStatus(
      await t.api.post(path, pod('sidecar', { initContainers: [ctr('proxy', { limits: { cpu: '500m' } }, { restartPolicy: 'Always' })], containers: [ctr('a', { limits: { cpu: '600m' } })] })),
      403,
      'Forbidden',
      'pods "sidecar" is forbidden: maximum cpu usage per Pod is 1, but limit is 1100m',
    );
    assertStatus(
      await t.api.post(path, pod('init', { initContainers: [ctr('setup', { limits: { cpu: '2' } })], containers: [ctr('a', { limits: { cpu: '100m' } })] })),
      403,
      'Forbidden',
      'pods "init" is forbidden: maximum cpu usage per Pod is 1, but limit is 2',
    );
    await create(t.api, path, pod('fits', { initContainers: [ctr('setup', { limits: { cpu: '1' } })], containers: [ctr('a', { limits: { cpu: '500m' } }), ctr('b', { limits: { cpu: '500m' } })] }));
  });

  test('PersistentVolumeClaim items bound the requested storage, on create and on update', async () => {
    const ns = await namespaceWith(t.api, [{ type: 'PersistentVolumeClaim', min: { storage: '1Gi' }, max: { storage: '10Gi' } }]);
    const path = `/api/v1/namespaces/${ns}/persistentvolumeclaims`;
    assertStatus(await t.api.post(path, claim('huge', '20Gi')), 403, 'Forbidden', 'persistentvolumeclaims "huge" is forbidden: maximum storage usage per PersistentVolumeClaim is 10Gi, but request is 20Gi');
    assertStatus(await t.api.post(path, claim('tiny', '500Mi')), 403, 'Forbidden', 'persistentvolumeclaims "tiny" is forbidden: minimum storage usage per PersistentVolumeClaim is 1Gi, but request is 500Mi');
    await create(t.api, path, claim('ok', '5Gi'));
    // Only a bound claim may grow: bind it first (its status says so).
    const bound = await t.api.patch(`${path}/ok/status`, { status: { phase: 'Bound' } }, 'application/merge-patch+json');
    assert.equal(bound.status, 200, bound.text);
    const grown = await t.api.patch(`${path}/ok`, { spec: { resources: { requests: { storage: '11Gi' } } } }, 'application/merge-patch+json');
    assertStatus(grown, 403, 'Forbidden', 'persistentvolumeclaims "ok" is forbidden: maximum storage usage per PersistentVolumeClaim is 10Gi, but request is 11Gi');
    const fine = await t.api.patch(`${path}/ok`, { spec: { resources: { requests: { storage: '8Gi' } } } }, 'application/merge-patch+json');
    assert.equal(fine.status, 200, fine.text);
  });

  test('a limit range applies at once after it is created, and no longer once it is deleted', async () => {
    const ns = await createNamespace(t.api, uniqueName('lr'));
    const path = `/api/v1/namespaces/${ns}/pods`;
    // No limit range yet: the plugin's answer for this namespace is "none".
    const before = await create(t.api, path, pod('before', { containers: [ctr('c')] }));
    assert.equal(before.metadata.annotations, undefined);
    await create(t.api, `/api/v1/namespaces/${ns}/limitranges`, limitRange('limits', [{ type: 'Container', default: { cpu: '300m' } }]));
    const during = await create(t.api, path, pod('during', { containers: [ctr('c')] }));
    assert.deepEqual(during.spec.containers[0].resources, { limits: { cpu: '300m' }, requests: { cpu: '300m' } });
    const res = await t.api.delete(`/api/v1/namespaces/${ns}/limitranges/limits`);
    assert.equal(res.status, 200, res.text);
    // A deleted one stops applying once the plugin's informer hears of it (milliseconds; upstream alike).
    await eventually(async () => (await t.api.post(`${path}?dryRun=All`, pod('after', { containers: [ctr('c')] }))).json?.metadata?.annotations === undefined, 'the limit range to stop applying', 5000);
    const after = await create(t.api, path, pod('after', { containers: [ctr('c')] }));
    assert.equal(after.metadata.annotations, undefined);
  });

  test('pod updates are not judged', async () => {
    const ns = await createNamespace(t.api, uniqueName('lr'));
    const path = `/api/v1/namespaces/${ns}/pods`;
    const created = await create(t.api, path, pod('p', { containers: [ctr('c')] }));
    await create(t.api, `/api/v1/namespaces/${ns}/limitranges`, limitRange('limits', [{ type: 'Container', min: { cpu: '1' } }]));
    const res = await t.api.put(`${path}/p`, { ...created, metadata: { ...created.metadata, labels: { x: 'y' } } });
    assert.equal(res.status, 200, res.text);
  });
});

describe('LimitRanger disabled', () => {
  const t = serveFile(['--disable-admission-plugins=LimitRanger,ServiceAccount']);

  test('limit ranges are stored but neither default nor refuse anything', async () => {
    const ns = await namespaceWith(t.api, [{ type: 'Container', max: { cpu: '1' }, default: { cpu: '500m' } }]);
    const created = await create(t.api, `/api/v1/namespaces/${ns}/pods`, pod('big', { containers: [ctr('c', { limits: { cpu: '4' } }), ctr('d')] }));
    assert.equal(created.spec.containers[1].resources, undefined);
    assert.equal(created.metadata.annotations, undefined);
  });
});
