import assert from 'node:assert/strict';
import { after, test } from 'node:test';
import { assertStatus, configMap, create, createNamespace, eventually, lease, removeFinalizers, secret } from '../helpers/fixtures.ts';
import { serveFile } from '../helpers/server.ts';

const t = serveFile();

async function fill(ns: string): Promise<void> {
  for (const n of ['one', 'two', 'three']) await create(t.api, `/api/v1/namespaces/${ns}/configmaps`, configMap(n));
  for (const n of ['s1', 's2']) await create(t.api, `/api/v1/namespaces/${ns}/secrets`, secret(n, { stringData: { a: 'b' } }));
  await create(t.api, `/apis/coordination.k8s.io/v1/namespaces/${ns}/leases`, lease('l1'));
}

const gone = (path: string) => async () => (await t.api.get(path)).status === 404;

test('deleting a namespace empties it, then removes it', async () => {
  const ns = await createNamespace(t.api);
  await fill(ns);
  const res = await t.api.delete(`/api/v1/namespaces/${ns}`);
  assert.equal(res.status, 200, res.text);
  assert.equal(res.json.kind, 'Namespace');
  assert.equal(res.json.status.phase, 'Terminating');
  assert.ok(res.json.metadata.deletionTimestamp);
  assert.deepEqual(res.json.spec.finalizers, ['kubernetes']);

  await eventually(gone(`/api/v1/namespaces/${ns}`), `namespace ${ns} to go`);
  for (const path of [`/api/v1/namespaces/${ns}/configmaps`, `/api/v1/namespaces/${ns}/secrets`, `/apis/coordination.k8s.io/v1/namespaces/${ns}/leases`]) {
    const list = await t.api.get(path);
    assert.equal(list.status, 200);
    assert.deepEqual(list.json.items, [], path);
  }
  // The name can be used again.
  assert.equal((await t.api.post('/api/v1/namespaces', { metadata: { name: ns } })).status, 201);
});

test('an object with a finalizer keeps its namespace Terminating until the finalizer goes', async () => {
  const ns = await createNamespace(t.api);
  await fill(ns);
  await create(t.api, `/api/v1/namespaces/${ns}/configmaps`, configMap('held', {}, { finalizers: ['example.com/hold'] }));
  assert.equal((await t.api.delete(`/api/v1/namespaces/${ns}`)).status, 200);

  // Creates are refused while it terminates.
  assertStatus(
    await t.api.post(`/api/v1/namespaces/${ns}/configmaps`, configMap('late')),
    403,
    'Forbidden',
    `configmaps "late" is forbidden: unable to create new content in namespace ${ns} because it is being terminated`,
  );
  assertStatus(await t.api.post(`/api/v1/namespaces/${ns}/secrets`, secret('late')), 403, 'Forbidden', /because it is being terminated/);

  // Everything without a finalizer goes; the held object is Terminating.
  await eventually(async () => {
    const cms = (await t.api.get(`/api/v1/namespaces/${ns}/configmaps`)).json.items;
    const secrets = (await t.api.get(`/api/v1/namespaces/${ns}/secrets`)).json.items;
    return cms.length === 1 && cms[0].metadata.name === 'held' && cms[0].metadata.deletionTimestamp && secrets.length === 0;
  }, 'the namespace content to be deleted');
  const phase = await t.api.get(`/api/v1/namespaces?fieldSelector=status.phase%3DTerminating`);
  assert.ok(phase.json.items.some((n: any) => n.metadata.name === ns));
  const stillThere = await t.api.get(`/api/v1/namespaces/${ns}`);
  assert.equal(stillThere.status, 200);
  assert.equal(stillThere.json.status.phase, 'Terminating');

  assert.equal((await removeFinalizers(t.api, `/api/v1/namespaces/${ns}/configmaps/held`)).status, 200);
  await eventually(gone(`/api/v1/namespaces/${ns}`), `namespace ${ns} to go after the finalizer`);
});

test('deleting a namespace twice answers it Terminating both times', async () => {
  const ns = await createNamespace(t.api);
  await create(t.api, `/api/v1/namespaces/${ns}/configmaps`, configMap('held', {}, { finalizers: ['example.com/hold'] }));
  const first = await t.api.delete(`/api/v1/namespaces/${ns}`);
  const second = await t.api.delete(`/api/v1/namespaces/${ns}`);
  assert.equal(second.status, 200, second.text);
  assert.equal(second.json.metadata.deletionTimestamp, first.json.metadata.deletionTimestamp);
  assert.equal((await removeFinalizers(t.api, `/api/v1/namespaces/${ns}/configmaps/held`)).status, 200);
  await eventually(gone(`/api/v1/namespaces/${ns}`), `namespace ${ns} to go`);
});

test('a namespace stuck on finalizers says why in its status conditions', async () => {
  const ns = await createNamespace(t.api);
  await create(t.api, `/api/v1/namespaces/${ns}/configmaps`, configMap('held', {}, { finalizers: ['example.com/hold'] }));
  await create(t.api, `/api/v1/namespaces/${ns}/configmaps`, configMap('free'));
  assert.equal((await t.api.delete(`/api/v1/namespaces/${ns}`)).status, 200);
  const conditions = await eventually(async () => {
    const c = (await t.api.get(`/api/v1/namespaces/${ns}`)).json.status?.conditions as any[] | undefined;
    return c?.find((x) => x.type === 'NamespaceContentRemaining' && x.status === 'True') ? c : undefined;
  }, 'deletion conditions');
  const byType = Object.fromEntries(conditions.map((c) => [c.type, c]));
  assert.equal(byType.NamespaceContentRemaining.message, 'Some resources are remaining: configmaps. has 1 resource instances');
  assert.equal(byType.NamespaceFinalizersRemaining.status, 'True');
  assert.equal(byType.NamespaceFinalizersRemaining.message, 'Some content in the namespace has finalizers remaining: example.com/hold in 1 resource instances');
  assert.equal(byType.NamespaceDeletionContentFailure.status, 'False');
  assert.equal((await t.api.get(`/api/v1/namespaces/${ns}`)).json.status.phase, 'Terminating');
  await removeFinalizers(t.api, `/api/v1/namespaces/${ns}/configmaps/held`);
  await eventually(gone(`/api/v1/namespaces/${ns}`), `namespace ${ns} to go once the finalizer is removed`);
});
