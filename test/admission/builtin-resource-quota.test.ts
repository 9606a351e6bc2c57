import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { assertStatus, create, createNamespace, eventually, uniqueName, type Api } from '../helpers/fixtures.ts';
import { client } from '../helpers/http.ts';
import { serveFile, startTestServer, type TestServer } from '../helpers/server.ts';

// Expectations from upstream's k8s.io/apiserver resourcequota admission, pkg/quota/v1/evaluator/core
// and pkg/controller/resourcequota (1.34).
const pod = (name: string, resources?: Record<string, unknown>, spec: Record<string, unknown> = {}) => ({
  apiVersion: 'v1',
  kind: 'Pod',
  metadata: { name },
  spec: { containers: [{ name: 'c', image: 'nginx:1.27', ...(resources ? { resources } : {}) }], ...spec },
});
const quota = (name: string, hard: Record<string, string>, extra: Record<string, unknown> = {}) => ({ apiVersion: 'v1', kind: 'ResourceQuota', metadata: { name }, spec: { hard, ...extra } });
const claim = (name: string, storage: string, storageClassName?: string) => ({
  apiVersion: 'v1',
  kind: 'PersistentVolumeClaim',
  metadata: { name },
  spec: { accessModes: ['ReadWriteOnce'], resources: { requests: { storage } }, ...(storageClassName ? { storageClassName } : {}) },
});
const cm = (name: string) => ({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name }, data: {} });

/** Creates a quota and waits for the controller to have counted it (status.hard and status.used). */
async function countedQuota(api: Api, ns: string, body: ReturnType<typeof quota>): Promise<any> {
  await create(api, `/api/v1/namespaces/${ns}/resourcequotas`, body);
  return eventually(async () => {
    const q = (await api.get(`/api/v1/namespaces/${ns}/resourcequotas/${body.metadata.name}`)).json;
    const hard = Object.keys(body.spec.hard);
    return q?.status?.hard && hard.every((k) => k in q.status.hard && k in (q.status.used ?? {})) ? q : undefined;
  }, `quota ${ns}/${body.metadata.name} to be counted`);
}

async function used(api: Api, ns: string, name: string): Promise<Record<string, string>> {
  return (await api.get(`/api/v1/namespaces/${ns}/resourcequotas/${name}`)).json.status.used;
}

describe('ResourceQuota (on by default)', () => {
  // Pods are judged by quota alone here.
  const t = serveFile(['--disable-admission-plugins=ServiceAccount,LimitRanger']);

  test('the controller mirrors spec.hard into status.hard and counts what the namespace holds', async () => {
    const ns = await createNamespace(t.api, uniqueName('rq'));
    for (const n of ['a', 'b']) await create(t.api, `/api/v1/namespaces/${ns}/configmaps`, cm(n));
    await create(t.api, `/api/v1/namespaces/${ns}/pods`, pod('p', { requests: { cpu: '250m', memory: '64Mi' }, limits: { cpu: '500m', memory: '128Mi' } }));
    const q = await countedQuota(t.api, ns, quota('all', { pods: '10', configmaps: '5', 'count/configmaps': '5', 'requests.cpu': '2', 'limits.memory': '1Gi', cpu: '4', 'count/secrets': '3' }));
    assert.deepEqual(q.status.hard, { pods: '10', configmaps: '5', 'count/configmaps': '5', 'requests.cpu': '2', 'limits.memory': '1Gi', cpu: '4', 'count/secrets': '3' });
    assert.deepEqual(q.status.used, { pods: '1', configmaps: '2', 'count/configmaps': '2', 'requests.cpu': '250m', 'limits.memory': '128Mi', cpu: '250m', 'count/secrets': '0' });
    // A change of spec.hard is mirrored and counted.
    const res = await t.api.patch(`/api/v1/namespaces/${ns}/resourcequotas/all`, { spec: { hard: { pods: '3', 'requests.memory': '1Gi' } } }, 'application/merge-patch+json');
    assert.equal(res.status, 200, res.text);
    const after = await eventually(async () => {
      const s = (await t.api.get(`/api/v1/namespaces/${ns}/resourcequotas/all`)).json.status;
      return s.hard['requests.memory'] === '1Gi' && s.used['requests.memory'] ? s : undefined;
    }, 'the new hard limits to be counted');
    assert.equal(after.used['requests.memory'], '64Mi');
  });

  test('object counts: a create beyond the quota is refused with upstream message, and is charged at once', async () => {
    const ns = await createNamespace(t.api, uniqueName('rq'));
    await countedQuota(t.api, ns, quota('q', { pods: '2' }));
    const path = `/api/v1/namespaces/${ns}/pods`;
    await create(t.api, path, pod('p1'));
    await create(t.api, path, pod('p2'));
    // Charged by admission, before the controller looks.
    assert.deepEqual(await used(t.api, ns, 'q'), { pods: '2' });
    assertStatus(await t.api.post(path, pod('p3')), 403, 'Forbidden', 'pods "p3" is forbidden: exceeded quota: q, requested: pods=1, used: pods=2, limited: pods=2');
    // Dry runs are judged but charge nothing.
    const quotaCms = await countedQuota(t.api, ns, quota('cms', { 'count/configmaps': '1' }));
    assert.equal(quotaCms.status.used['count/configmaps'], '0');
    const dry = await t.api.post(`/api/v1/namespaces/${ns}/configmaps?dryRun=All`, cm('dry'));
    assert.equal(dry.status, 201, dry.text);
    assert.deepEqual(await used(t.api, ns, 'cms'), { 'count/configmaps': '0' });
    await create(t.api, `/api/v1/namespaces/${ns}/configmaps`, cm('one'));
    assertStatus(
      await t.api.post(`/api/v1/namespaces/${ns}/configmaps`, cm('two')),
      403,
      'Forbidden',
      'configmaps "two" is forbidden: exceeded quota: cms, requested: count/configmaps=1, used: count/configmaps=1, limited: count/configmaps=1',
    );
  });

  test('a deleted object gives its share back (the controller counts again)', async () => {
    const ns = await createNamespace(t.api, uniqueName('rq'));
    await countedQuota(t.api, ns, quota('q', { pods: '1' }));
    const path = `/api/v1/namespaces/${ns}/pods`;
    await create(t.api, path, pod('p1'));
    assertStatus(await t.api.post(path, pod('p2')), 403, 'Forbidden');
    const res = await t.api.delete(`${path}/p1`);
    assert.equal(res.status, 200, res.text);
    await eventually(async () => (await used(t.api, ns, 'q')).pods === '0', 'the deleted pod to be given back');
    await create(t.api, path, pod('p2'));
  });

  test('compute resources: containers must say what they request, and the sums must fit', async () => {
    const ns = await createNamespace(t.api, uniqueName('rq'));
    await countedQuota(t.api, ns, quota('compute', { 'requests.cpu': '1', 'limits.memory': '1Gi' }));
    const path = `/api/v1/namespaces/${ns}/pods`;
    assertStatus(
      await t.api.post(path, pod('bare', undefined, { initContainers: [{ name: 'init', image: 'busybox', resources: { requests: { cpu: '100m' } } }] })),
      403,
      'Forbidden',
      'pods "bare" is forbidden: failed quota: compute: must specify limits.memory for: c,init; requests.cpu for: c',
    );
    const r = { requests: { cpu: '600m' }, limits: { memory: '512Mi' } };
    await create(t.api, path, pod('one', r));
    assert.deepEqual(await used(t.api, ns, 'compute'), { 'requests.cpu': '600m', 'limits.memory': '512Mi' });
    assertStatus(
      await t.api.post(path, pod('two', r)),
      403,
      'Forbidden',
      'pods "two" is forbidden: exceeded quota: compute, requested: requests.cpu=600m, used: requests.cpu=600m, limited: requests.cpu=1',
    );
    await create(t.api, path, pod('small', { requests: { cpu: '400m' }, limits: { memory: '512Mi' } }));
    assert.deepEqual(await used(t.api, ns, 'compute'), { 'requests.cpu': '1', 'limits.memory': '1Gi' });
  });

  test('claims: count and storage, overall and per storage class; a claim that grows is charged the difference', async () => {
    const ns = await createNamespace(t.api, uniqueName('rq'));
    await countedQuota(t.api, ns, quota('storage', { persistentvolumeclaims: '3', 'requests.storage': '10Gi', 'gold.storageclass.storage.k8s.io/requests.storage': '2Gi' }));
    const path = `/api/v1/namespaces/${ns}/persistentvolumeclaims`;
    await create(t.api, path, claim('a', '4Gi'));
    assertStatus(
      await t.api.post(path, claim('gold', '3Gi', 'gold')),
      403,
      'Forbidden',
      'persistentvolumeclaims "gold" is forbidden: exceeded quota: storage, requested: gold.storageclass.storage.k8s.io/requests.storage=3Gi, used: gold.storageclass.storage.k8s.io/requests.storage=0, limited: gold.storageclass.storage.k8s.io/requests.storage=2Gi',
    );
    await create(t.api, path, claim('gold', '1Gi', 'gold'));
    assert.deepEqual(await used(t.api, ns, 'storage'), { persistentvolumeclaims: '2', 'requests.storage': '5Gi', 'gold.storageclass.storage.k8s.io/requests.storage': '1Gi' });
    // Growing a bound claim is charged what it adds.
    assert.equal((await t.api.patch(`${path}/a/status`, { status: { phase: 'Bound' } }, 'application/merge-patch+json')).status, 200);
    assertStatus(
      await t.api.patch(`${path}/a`, { spec: { resources: { requests: { storage: '10Gi' } } } }, 'application/merge-patch+json'),
      403,
      'Forbidden',
      'persistentvolumeclaims "a" is forbidden: exceeded quota: storage, requested: requests.storage=6Gi, used: requests.storage=5Gi, limited: requests.storage=10Gi',
    );
    const grown = await t.api.patch(`${path}/a`, { spec: { resources: { requests: { storage: '8Gi' } } } }, 'application/merge-patch+json');
    assert.equal(grown.status, 200, grown.text);
    assert.equal((await used(t.api, ns, 'storage'))['requests.storage'], '9Gi');
  });

  test('scopes: BestEffort, NotBestEffort, Terminating and a PriorityClass selector pick the pods a quota counts', async () => {
    const ns = await createNamespace(t.api, uniqueName('rq'));
    await countedQuota(t.api, ns, quota('best-effort', { pods: '1' }, { scopes: ['BestEffort'] }));
    await countedQuota(t.api, ns, quota('terminating', { pods: '1' }, { scopes: ['Terminating'] }));
    await countedQuota(t.api, ns, quota('high', { pods: '1' }, { scopeSelector: { matchExpressions: [{ scopeName: 'PriorityClass', operator: 'In', values: ['high'] }] } }));
    const path = `/api/v1/namespaces/${ns}/pods`;
    const burstable = { requests: { cpu: '10m' } };
    await create(t.api, path, pod('be1'));
    assertStatus(await t.api.post(path, pod('be2')), 403, 'Forbidden', 'pods "be2" is forbidden: exceeded quota: best-effort, requested: pods=1, used: pods=1, limited: pods=1');
    // Not best effort: the BestEffort quota does not count it.
    await create(t.api, path, pod('burst1', burstable));
    await create(t.api, path, pod('burst2', burstable));
    await create(t.api, path, pod('deadline1', burstable, { activeDeadlineSeconds: 60 }));
    assertStatus(await t.api.post(path, pod('deadline2', burstable, { activeDeadlineSeconds: 60 })), 403, 'Forbidden', /exceeded quota: terminating, requested: pods=1, used: pods=1, limited: pods=1$/);
    await create(t.api, path, pod('high1', burstable, { priorityClassName: 'high' }));
    assertStatus(await t.api.post(path, pod('high2', burstable, { priorityClassName: 'high' })), 403, 'Forbidden', /exceeded quota: high, requested: pods=1, used: pods=1, limited: pods=1$/);
    await create(t.api, path, pod('low', burstable, { priorityClassName: 'low' }));
    assert.deepEqual(await used(t.api, ns, 'best-effort'), { pods: '1' });
    // The controller counts within the scopes too.
    await t.api.patch(`/api/v1/namespaces/${ns}/resourcequotas/high`, { spec: { hard: { pods: '5' } } }, 'application/merge-patch+json');
    await eventually(async () => (await t.api.get(`/api/v1/namespaces/${ns}/resourcequotas/high`)).json.status.hard.pods === '5', 'the new hard limit');
    assert.deepEqual(await used(t.api, ns, 'high'), { pods: '1' });
  });

  test('concurrent creates never exceed a quota together, and each is charged once', async () => {
    const ns = await createNamespace(t.api, uniqueName('rq'));
    await countedQuota(t.api, ns, quota('q', { 'count/configmaps': '7' }));
    const replies = await Promise.all(Array.from({ length: 25 }, (_, i) => t.api.post(`/api/v1/namespaces/${ns}/configmaps`, cm(`c${i}`))));
    const created = replies.filter((r) => r.status === 201).length;
    assert.equal(created, 7, replies.map((r) => r.status).join(','));
    for (const r of replies) if (r.status !== 201) assert.match(r.json.message, /exceeded quota: q, requested: count\/configmaps=1, used: count\/configmaps=7, limited: count\/configmaps=7$/);
    assert.deepEqual(await used(t.api, ns, 'q'), { 'count/configmaps': '7' });
    const list = await t.api.get(`/api/v1/namespaces/${ns}/configmaps`);
    assert.equal(list.json.items.length, 7);
  });

  test('quotas in other namespaces and unscoped kinds are not affected', async () => {
    const ns = await createNamespace(t.api, uniqueName('rq'));
    await countedQuota(t.api, ns, quota('q', { 'count/configmaps': '0' }));
    assertStatus(await t.api.post(`/api/v1/namespaces/${ns}/configmaps`, cm('x')), 403, 'Forbidden');
    await create(t.api, `/api/v1/namespaces/${t.ns}/configmaps`, cm('x'));
    await create(t.api, `/api/v1/namespaces/${ns}/secrets`, { apiVersion: 'v1', kind: 'Secret', metadata: { name: 's' } });
  });
});

describe('ResourceQuota across replicas, without the quota controller', () => {
  let srv: TestServer;
  let replica: TestServer;
  let api: Api;
  let other: Api;
  before(async () => {
    const flags = ['--disable-admission-plugins=ServiceAccount,LimitRanger', '--controllers=*,-resourcequota-controller'];
    srv = await startTestServer(flags);
    replica = await startTestServer(flags, { database: { ...srv.db, drop: async () => undefined } });
    api = client(srv.url, srv.adminAgent);
    other = client(replica.url, replica.adminAgent);
  });
  after(async () => {
    await replica?.stop();
    await srv?.stop();
  });

  /** A quota whose status is written by hand (no controller runs here). */
  async function manualQuota(ns: string, hard: Record<string, string>, used?: Record<string, string>): Promise<void> {
    await create(api, `/api/v1/namespaces/${ns}/resourcequotas`, quota('q', hard));
    const res = await api.patch(`/api/v1/namespaces/${ns}/resourcequotas/q/status`, { status: { hard, ...(used ? { used } : {}) } }, 'application/merge-patch+json');
    assert.equal(res.status, 200, res.text);
  }

  test('a quota the controller has not counted yet covers nothing, then refuses with "status unknown"', async () => {
    const ns = await createNamespace(api, uniqueName('rq'));
    await create(api, `/api/v1/namespaces/${ns}/resourcequotas`, quota('q', { pods: '1' }));
    // Without status.hard the quota covers nothing yet (upstream matches on status.hard).
    await create(api, `/api/v1/namespaces/${ns}/pods`, pod('free'));
    const res = await api.patch(`/api/v1/namespaces/${ns}/resourcequotas/q/status`, { status: { hard: { pods: '1' } } }, 'application/merge-patch+json');
    assert.equal(res.status, 200, res.text);
    await eventually(async () => (await api.post(`/api/v1/namespaces/${ns}/pods?dryRun=All`, pod('x'))).status === 403, 'the informer to see the status');
    assertStatus(await api.post(`/api/v1/namespaces/${ns}/pods`, pod('unknown')), 403, 'Forbidden', 'pods "unknown" is forbidden: status unknown for quota: q, resources: pods');
  });

  test('two replicas charging one quota at once admit no more than it allows', async () => {
    const ns = await createNamespace(api, uniqueName('rq'));
    await manualQuota(ns, { 'count/configmaps': '10' }, { 'count/configmaps': '0' });
    // Both replicas' informers know the quota's status.
    for (const c of [api, other]) await eventually(async () => (await c.post(`/api/v1/namespaces/${ns}/configmaps?dryRun=All`, { ...cm('probe'), data: {} })).status === 201, 'replica ready');
    await eventually(async () => {
      const probe = await other.post(`/api/v1/namespaces/${ns}/configmaps?dryRun=All`, cm('p'));
      return probe.status === 201;
    }, 'replica sees the quota');
    const replies = await Promise.all(Array.from({ length: 30 }, (_, i) => (i % 2 ? api : other).post(`/api/v1/namespaces/${ns}/configmaps`, cm(`c${i}`))));
    const statuses = replies.map((r) => r.status);
    assert.equal(statuses.filter((s) => s === 201).length, 10, statuses.join(','));
    for (const r of replies) if (r.status !== 201) assert.ok([403, 409].includes(r.status), r.text);
    assert.deepEqual(await used(api, ns, 'q'), { 'count/configmaps': '10' });
    assert.equal((await api.get(`/api/v1/namespaces/${ns}/configmaps`)).json.items.length, 10);
  });
});

describe('ResourceQuota disabled', () => {
  const t = serveFile(['--disable-admission-plugins=ResourceQuota,ServiceAccount']);

  test('quotas are counted by the controller but enforce nothing', async () => {
    const ns = await createNamespace(t.api, uniqueName('rq'));
    await countedQuota(t.api, ns, quota('q', { pods: '0' }));
    await create(t.api, `/api/v1/namespaces/${ns}/pods`, pod('p'));
  });
});
