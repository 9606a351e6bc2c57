/**
 * The official JavaScript client (`@kubernetes/client-node` 1.4.0, the newest that runs on Node 20)
 * against the server: kubeconfig loading, CoreV1Api CRUD, conflicts, Watch and an informer.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import {
  ApiException,
  CoreV1Api,
  KubeConfig,
  makeInformer,
  PatchStrategy,
  setHeaderOptions,
  Watch,
  type V1ConfigMap,
} from '@kubernetes/client-node';
import { startTestServer, type TestServer } from '../helpers/server.ts';

const NS = 'client-node';

let srv: TestServer;
let kc: KubeConfig;
let api: CoreV1Api;

before(async () => {
  srv = await startTestServer();
  kc = new KubeConfig();
  kc.loadFromFile(srv.kubeconfig);
  api = kc.makeApiClient(CoreV1Api);
  await api.createNamespace({ body: { metadata: { name: NS } } });
});
after(async () => {
  await srv?.stop();
});

function configMap(name: string, data: Record<string, string>): V1ConfigMap {
  return { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name, namespace: NS }, data };
}

/** Polls `check` until it returns a value (resolving with it), or rejects after `ms`. */
function eventually<T>(check: () => T | undefined, what: string, ms = 10_000): Promise<T> {
  return new Promise((resolve, reject) => {
    const started = Date.now();
    const tick = () => {
      const value = check();
      if (value !== undefined) return resolve(value);
      if (Date.now() - started > ms) return reject(new Error(`timed out waiting for ${what}`));
      setTimeout(tick, 20);
    };
    tick();
  });
}

/** The error a rejected call threw, asserting it is an ApiException. */
async function apiError(call: Promise<unknown>): Promise<ApiException<unknown>> {
  try {
    await call;
  } catch (err) {
    assert.ok(err instanceof ApiException, `expected an ApiException, got ${err}`);
    return err;
  }
  assert.fail('the call succeeded');
}

/** The response body of an ApiException as an object (the library hands it over as text). */
function statusOf(err: ApiException<unknown>): any {
  return typeof err.body === 'string' ? JSON.parse(err.body) : err.body;
}

describe('@kubernetes/client-node', () => {
  it('loads the admin kubeconfig and lists the namespaces', async () => {
    assert.equal(kc.getCurrentCluster()?.server, srv.url);
    const list = await api.listNamespace();
    const names = list.items.map((n) => n.metadata?.name);
    for (const name of ['default', 'kube-system', 'kube-public', 'kube-node-lease', NS]) assert.ok(names.includes(name), `${name} in ${names}`);
    assert.match(list.metadata?.resourceVersion ?? '', /^\d+$/);
    assert.equal(list.items.find((n) => n.metadata?.name === 'default')?.status?.phase, 'Active');
  });

  it('creates, reads, replaces and deletes a ConfigMap', async () => {
    const created = await api.createNamespacedConfigMap({ namespace: NS, body: configMap('crud', { a: '1' }) });
    assert.equal(created.metadata?.name, 'crud');
    assert.match(created.metadata?.uid ?? '', /^[0-9a-f-]{36}$/);
    assert.ok(created.metadata?.creationTimestamp instanceof Date, 'creationTimestamp is deserialised as a Date');

    const read = await api.readNamespacedConfigMap({ name: 'crud', namespace: NS });
    assert.deepEqual(read.data, { a: '1' });
    assert.equal(read.metadata?.resourceVersion, created.metadata?.resourceVersion);

    read.data = { a: '2', b: '3' };
    const replaced = await api.replaceNamespacedConfigMap({ name: 'crud', namespace: NS, body: read });
    assert.deepEqual(replaced.data, { a: '2', b: '3' });
    assert.ok(Number(replaced.metadata?.resourceVersion) > Number(read.metadata?.resourceVersion));
    assert.equal(replaced.metadata?.uid, created.metadata?.uid);

    await api.deleteNamespacedConfigMap({ name: 'crud', namespace: NS });
    const gone = await apiError(api.readNamespacedConfigMap({ name: 'crud', namespace: NS }));
    assert.equal(gone.code, 404);
    assert.equal(statusOf(gone).reason, 'NotFound');
    assert.equal(statusOf(gone).message, 'configmaps "crud" not found');
  });

  it('a replace with a stale resourceVersion fails with code 409 Conflict', async () => {
    const original = await api.createNamespacedConfigMap({ namespace: NS, body: configMap('stale', { v: '1' }) });
    await api.replaceNamespacedConfigMap({ name: 'stale', namespace: NS, body: { ...original, data: { v: '2' } } });

    const err = await apiError(api.replaceNamespacedConfigMap({ name: 'stale', namespace: NS, body: { ...original, data: { v: '3' } } }));
    assert.equal(err.code, 409);
    const status = statusOf(err);
    assert.equal(status.kind, 'Status');
    assert.equal(status.reason, 'Conflict');
    assert.match(status.message, /^Operation cannot be fulfilled on configmaps "stale": the object has been modified; please apply your changes to the latest version and try again$/);
    assert.deepEqual((await api.readNamespacedConfigMap({ name: 'stale', namespace: NS })).data, { v: '2' });

    const dup = await apiError(api.createNamespacedConfigMap({ namespace: NS, body: configMap('stale', {}) }));
    assert.equal(dup.code, 409);
    assert.equal(statusOf(dup).reason, 'AlreadyExists');
  });

  it('Watch delivers ADDED, MODIFIED and DELETED events', async () => {
    const events: { type: string; name: string; data: unknown }[] = [];
    let ended: unknown = 'open';
    const { resourceVersion } = (await api.listNamespacedConfigMap({ namespace: NS })).metadata ?? {};
    const controller = await new Watch(kc).watch(
      `/api/v1/namespaces/${NS}/configmaps`,
      { resourceVersion, allowWatchBookmarks: true },
      (type, obj) => events.push({ type, name: obj.metadata?.name, data: obj.data }),
      (err) => (ended = err),
    );
    try {
      await api.createNamespacedConfigMap({ namespace: NS, body: configMap('watched', { x: '1' }) });
      await api.patchNamespacedConfigMap(
        { name: 'watched', namespace: NS, body: { data: { x: '2' } } },
        setHeaderOptions('Content-Type', PatchStrategy.MergePatch),
      );
      await api.deleteNamespacedConfigMap({ name: 'watched', namespace: NS });
      await eventually(() => (events.some((e) => e.type === 'DELETED') ? true : undefined), 'the DELETED event');
      assert.equal(ended, 'open', 'the watch ended before it was aborted');
    } finally {
      controller.abort();
    }
    const mine = events.filter((e) => e.name === 'watched');
    assert.deepEqual(
      mine.map((e) => [e.type, e.data]),
      [
        ['ADDED', { x: '1' }],
        ['MODIFIED', { x: '2' }],
        ['DELETED', { x: '2' }],
      ],
    );
  });

  it('an informer sees add, update and delete and keeps its cache', async () => {
    const informer = makeInformer<V1ConfigMap>(kc, `/api/v1/namespaces/${NS}/configmaps`, () => api.listNamespacedConfigMap({ namespace: NS }));
    const seen: string[] = [];
    informer.on('add', (cm) => seen.push(`add ${cm.metadata?.name} ${JSON.stringify(cm.data)}`));
    informer.on('update', (cm) => seen.push(`update ${cm.metadata?.name} ${JSON.stringify(cm.data)}`));
    informer.on('delete', (cm) => seen.push(`delete ${cm.metadata?.name}`));
    const errors: unknown[] = [];
    informer.on('error', (err) => errors.push(err));
    await informer.start();
    try {
      // The initial list: the configmap left by the conflict test.
      await eventually(() => (seen.includes('add stale {"v":"2"}') ? true : undefined), 'the listed configmap');
      assert.deepEqual(informer.get('stale', NS)?.data, { v: '2' });

      const cm = await api.createNamespacedConfigMap({ namespace: NS, body: configMap('informed', { n: '1' }) });
      await eventually(() => (seen.includes('add informed {"n":"1"}') ? true : undefined), 'add informed');
      await api.replaceNamespacedConfigMap({ name: 'informed', namespace: NS, body: { ...cm, data: { n: '2' } } });
      await eventually(() => (seen.includes('update informed {"n":"2"}') ? true : undefined), 'update informed');
      assert.deepEqual(informer.get('informed', NS)?.data, { n: '2' });
      await api.deleteNamespacedConfigMap({ name: 'informed', namespace: NS });
      await eventually(() => (seen.includes('delete informed') ? true : undefined), 'delete informed');
      assert.equal(informer.get('informed', NS), undefined);
      assert.deepEqual(
        informer
          .list(NS)
          .map((o) => o.metadata?.name)
          .sort(),
        ['stale'],
      );
      assert.deepEqual(errors, []);
    } finally {
      await informer.stop();
    }
    assert.deepEqual(
      seen.filter((s) => s.includes('informed')),
      ['add informed {"n":"1"}', 'update informed {"n":"2"}', 'delete informed'],
    );
  });
});
