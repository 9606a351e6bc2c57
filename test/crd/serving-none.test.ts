import assert from 'node:assert/strict';
import { test } from 'node:test';
import { assertStatus, removeFinalizers } from '../helpers/fixtures.ts';
import { serveFile } from '../helpers/server.ts';
import { openWatch, type WatchEvent } from '../helpers/watch-stream.ts';
import { CRDS, GROUP, conditionOf, cr, crd, establishedCrd, storedRow, within } from './serving-fixtures.ts';

const t = serveFile();
const path = (version: string, plural: string, name = '') => `/apis/${GROUP}/${version}/namespaces/${t.ns}/${plural}${name ? `/${name}` : ''}`;

test('a custom resource is served within a second of its CRD becoming Established', async () => {
  await establishedCrd(t.api, crd('gadgets'));
  await within(1000, async () => (await t.api.get(path('v1', 'gadgets'))).status === 200, 'gadgets served');
  assert.equal((await t.api.get(path('v2', 'gadgets'))).status, 200);
});

test('a CRD whose names are not accepted is not served', async () => {
  await establishedCrd(t.api, crd('cogs'));
  // Same kind as cogs in the same group: the naming controller refuses the names.
  const res = await t.api.post(CRDS, crd('gears', { kind: 'Cog' }));
  assert.equal(res.status, 201, res.text);
  await within(10_000, async () => (await conditionOf(t.api, 'gears.stable.example.com', 'NamesAccepted')) === 'False', 'gears names refused');
  await new Promise((r) => setTimeout(r, 300));
  assert.notEqual(await conditionOf(t.api, 'gears.stable.example.com', 'Established'), 'True');
  assertStatus(await t.api.get(path('v1', 'gears')), 404, 'NotFound');
});

test('objects are stored in the storage version whatever version writes them, and read in the version asked', async () => {
  await establishedCrd(t.api, crd('widgets'));
  await within(1000, async () => (await t.api.get(path('v2', 'widgets'))).status === 200, 'widgets served');

  const created = await t.api.post(path('v2', 'widgets'), cr('widgets', 'from-v2', 'v2', { size: 2 }));
  assert.equal(created.status, 201, created.text);
  assert.equal(created.json.apiVersion, `${GROUP}/v2`);
  assert.equal((await storedRow(t.srv.db.url, 'widgets', t.ns, 'from-v2')).apiVersion, `${GROUP}/v1`);

  const asV1 = await t.api.get(path('v1', 'widgets', 'from-v2'));
  assert.equal(asV1.status, 200, asV1.text);
  assert.equal(asV1.json.apiVersion, `${GROUP}/v1`);
  assert.deepEqual(asV1.json.spec, { size: 2 });
  const asV2 = await t.api.get(path('v2', 'widgets', 'from-v2'));
  assert.equal(asV2.json.apiVersion, `${GROUP}/v2`);
  assert.equal(asV2.json.metadata.resourceVersion, asV1.json.metadata.resourceVersion);

  const viaV1 = await t.api.post(path('v1', 'widgets'), cr('widgets', 'from-v1', 'v1'));
  assert.equal(viaV1.status, 201, viaV1.text);
  const list = await t.api.get(path('v2', 'widgets'));
  assert.equal(list.status, 200, list.text);
  assert.deepEqual(
    list.json.items.map((o: any) => [o.metadata.name, o.apiVersion]),
    [
      ['from-v1', `${GROUP}/v2`],
      ['from-v2', `${GROUP}/v2`],
    ],
  );

  // An update through v2 is stored in v1 too.
  const updated = await t.api.put(path('v2', 'widgets', 'from-v1'), { ...(await t.api.get(path('v2', 'widgets', 'from-v1'))).json, spec: { size: 9 } });
  assert.equal(updated.status, 200, updated.text);
  assert.equal(updated.json.apiVersion, `${GROUP}/v2`);
  const row = await storedRow(t.srv.db.url, 'widgets', t.ns, 'from-v1');
  assert.equal(row.apiVersion, `${GROUP}/v1`);
  assert.deepEqual(row.spec, { size: 9 });
});

test('a watch answers in the version asked, in the order of the changes', async () => {
  await establishedCrd(t.api, crd('bolts'));
  await within(1000, async () => (await t.api.get(path('v2', 'bolts'))).status === 200, 'bolts served');
  const start = (await t.api.get(path('v2', 'bolts'))).json.metadata.resourceVersion;
  const events: WatchEvent[] = [];
  const watch = openWatch(t.srv.url, `${path('v2', 'bolts')}?watch=true&resourceVersion=${start}`, t.srv.adminAgent, (ev) => events.push(ev));
  try {
    for (let i = 0; i < 6; i++) {
      const version = i % 2 === 0 ? 'v1' : 'v2';
      const res = await t.api.post(path(version, 'bolts'), cr('bolts', `b${i}`, version, { size: i }));
      assert.equal(res.status, 201, res.text);
    }
    assert.equal((await t.api.delete(path('v1', 'bolts', 'b0'))).status, 200);
    await within(5000, async () => events.length >= 7, 'seven watch events');
  } finally {
    watch.abort();
  }
  assert.deepEqual(
    events.map((e) => [e.type, e.object.metadata.name, e.object.apiVersion]),
    [...[0, 1, 2, 3, 4, 5].map((i) => ['ADDED', `b${i}`, `${GROUP}/v2`]), ['DELETED', 'b0', `${GROUP}/v2`]],
  );
  const versions = events.map((e) => Number(e.object.metadata.resourceVersion));
  assert.deepEqual(versions, [...versions].sort((a, b) => a - b));
});

test('a new storage version applies to new writes; stored objects stay as they are', async () => {
  const stored = await establishedCrd(t.api, crd('nuts'));
  await within(1000, async () => (await t.api.get(path('v1', 'nuts'))).status === 200, 'nuts served');
  assert.equal((await t.api.post(path('v1', 'nuts'), cr('nuts', 'old', 'v1'))).status, 201);

  const current = (await t.api.get(`${CRDS}/${stored.metadata.name}`)).json;
  current.spec.versions = current.spec.versions.map((v: any) => ({ ...v, storage: v.name === 'v2' }));
  const res = await t.api.put(`${CRDS}/${stored.metadata.name}`, current);
  assert.equal(res.status, 200, res.text);
  assert.deepEqual(res.json.status.storedVersions, ['v1', 'v2']);

  await within(1000, async () => {
    const name = `new-${Date.now()}`;
    assert.equal((await t.api.post(path('v1', 'nuts'), cr('nuts', name, 'v1'))).status, 201);
    return (await storedRow(t.srv.db.url, 'nuts', t.ns, name)).apiVersion === `${GROUP}/v2`;
  }, 'writes stored in v2');
  assert.equal((await storedRow(t.srv.db.url, 'nuts', t.ns, 'old')).apiVersion, `${GROUP}/v1`);
  const old = await t.api.get(path('v2', 'nuts', 'old'));
  assert.equal(old.status, 200, old.text);
  assert.equal(old.json.apiVersion, `${GROUP}/v2`);
});

test('a version added to the CRD is served without the others ever answering 404', async () => {
  const stored = await establishedCrd(t.api, crd('washers'));
  await within(1000, async () => (await t.api.get(path('v1', 'washers'))).status === 200, 'washers served');
  let polling = true;
  const misses: number[] = [];
  const poller = (async () => {
    while (polling) {
      const status = (await t.api.get(path('v1', 'washers'))).status;
      if (status !== 200) misses.push(status);
    }
  })();
  try {
    const current = (await t.api.get(`${CRDS}/${stored.metadata.name}`)).json;
    current.spec.versions.push({ ...current.spec.versions[1], name: 'v3', storage: false });
    const res = await t.api.put(`${CRDS}/${stored.metadata.name}`, current);
    assert.equal(res.status, 200, res.text);
    await within(1000, async () => (await t.api.get(path('v3', 'washers'))).status === 200, 'v3 served');
  } finally {
    polling = false;
    await poller;
  }
  assert.deepEqual(misses, []);
});

test('while the CRD terminates creates are refused as upstream refuses them, the rest is served; once it is gone, 404', async () => {
  await establishedCrd(t.api, crd('rivets'));
  await within(1000, async () => (await t.api.get(path('v1', 'rivets'))).status === 200, 'rivets served');
  // Its own finalizer holds the object while the CRD's cleanup deletes the instances.
  const held = await t.api.post(path('v1', 'rivets'), { ...cr('rivets', 'held', 'v1'), metadata: { name: 'held', finalizers: ['example.com/hold'] } });
  assert.equal(held.status, 201, held.text);
  const deleted = await t.api.delete(`${CRDS}/rivets.stable.example.com`);
  assert.equal(deleted.status, 200, deleted.text);
  assert.equal(await conditionOf(t.api, 'rivets.stable.example.com', 'Terminating'), 'True');

  await within(1000, async () => (await t.api.post(path('v1', 'rivets'), cr('rivets', `new-${Date.now()}`, 'v1'))).status === 405, 'create refused');
  const status = assertStatus(await t.api.post(path('v2', 'rivets'), cr('rivets', 'another', 'v2')), 405, 'MethodNotAllowed', 'create not allowed while custom resource definition is terminating');
  assert.deepEqual(status.details, { group: GROUP, kind: 'rivets' });

  // Reads, lists and updates are served meanwhile (the cleanup has marked the object).
  const got = await within(5000, async () => !!(await t.api.get(path('v1', 'rivets', 'held'))).json?.metadata?.deletionTimestamp, 'held marked for deletion');
  assert.ok(got >= 0);
  assert.equal((await t.api.get(path('v2', 'rivets'))).json.items.length, 1);
  const released = await removeFinalizers(t.api, path('v2', 'rivets', 'held'));
  assert.equal(released.status, 200, released.text);

  // The last instance gone, the CRD goes, and its resources are no longer served.
  await within(15_000, async () => (await t.api.get(`${CRDS}/rivets.stable.example.com`)).status === 404, 'CRD gone');
  await within(1000, async () => (await t.api.get(path('v1', 'rivets'))).status === 404, 'rivets no longer served');
  assertStatus(await t.api.get(path('v2', 'rivets')), 404, 'NotFound');
});

test('a CRD never shadows a built-in kind at the same path', async () => {
  const lease = { apiVersion: 'coordination.k8s.io/v1', kind: 'Lease', metadata: { name: 'builtin' }, spec: { holderIdentity: 'me' } };
  const leases = `/apis/coordination.k8s.io/v1/namespaces/${t.ns}/leases`;
  assert.equal((await t.api.post(leases, lease)).status, 201);
  const shadow = {
    apiVersion: 'apiextensions.k8s.io/v1',
    kind: 'CustomResourceDefinition',
    metadata: { name: 'leases.coordination.k8s.io', annotations: { 'api-approved.kubernetes.io': 'https://github.com/kubernetes/kubernetes/pull/1' } },
    spec: {
      group: 'coordination.k8s.io',
      names: { plural: 'leases', singular: 'lease', kind: 'Lease', listKind: 'LeaseList' },
      scope: 'Namespaced',
      versions: [
        { name: 'v1', served: true, storage: true, schema: { openAPIV3Schema: { type: 'object', 'x-kubernetes-preserve-unknown-fields': true } } },
        { name: 'v7', served: true, storage: false, schema: { openAPIV3Schema: { type: 'object', 'x-kubernetes-preserve-unknown-fields': true } } },
      ],
    },
  };
  await establishedCrd(t.api, shadow as any);
  // The CRD's own version is served; the built-in path stays the built-in kind's.
  await within(1000, async () => (await t.api.get(`/apis/coordination.k8s.io/v7/namespaces/${t.ns}/leases`)).status === 200, 'v7 served');
  const got = await t.api.get(`${leases}/builtin`);
  assert.equal(got.status, 200, got.text);
  assert.equal(got.json.spec.holderIdentity, 'me');
  // The built-in validation still applies (a custom resource with a preserving schema would take anything).
  const bad = await t.api.post(leases, { ...lease, metadata: { name: 'bad' }, spec: { leaseDurationSeconds: 'x' } });
  assert.equal(bad.status, 400, bad.text);
});

test('a schema update applies to new writes; stored objects are neither rewritten nor refused on read', async () => {
  const stored = await establishedCrd(t.api, crd('springs'));
  await within(1000, async () => (await t.api.get(path('v1', 'springs'))).status === 200, 'springs served');
  const big = await t.api.post(path('v1', 'springs'), cr('springs', 'big', 'v1', { size: 9 }));
  assert.equal(big.status, 201, big.text);

  const current = (await t.api.get(`${CRDS}/${stored.metadata.name}`)).json;
  for (const v of current.spec.versions) v.schema.openAPIV3Schema.properties.spec.properties.size.maximum = 5;
  assert.equal((await t.api.put(`${CRDS}/${stored.metadata.name}`, current)).status, 200);

  await within(1000, async () => (await t.api.post(path('v1', 'springs'), cr('springs', `too-big-${Date.now()}`, 'v1', { size: 8 }))).status === 422, 'the new schema applied');
  const old = await t.api.get(path('v2', 'springs', 'big'));
  assert.equal(old.status, 200, old.text);
  assert.deepEqual(old.json.spec, { size: 9 });
  assert.equal(old.json.metadata.resourceVersion, big.json.metadata.resourceVersion);
  assert.equal((await storedRow(t.srv.db.url, 'springs', t.ns, 'big')).spec.size, 9);
});
