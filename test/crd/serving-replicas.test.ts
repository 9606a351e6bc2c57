import assert from 'node:assert/strict';
import { after, test } from 'node:test';
import { client } from '../helpers/http.ts';
import type { Api } from '../helpers/fixtures.ts';
import { serveFile } from '../helpers/server.ts';
import { startServerProcess, type ServerProcess } from '../helpers/server-process.ts';
import { openWatch, type WatchEvent } from '../helpers/watch-stream.ts';
import { CRDS, GROUP, cr, crd, establishedCrd, within } from './serving-fixtures.ts';

// A second server process on the same database (and data directory, so the same CA and admin
// certificate) learns of CRDs through its own informer.
let second: ServerProcess;
let api2: Api;
const t = serveFile([], async (served) => {
  second = await startServerProcess(served.srv.db.url, served.srv.dataDir);
  api2 = client(second.url, served.srv.adminAgent);
});
after(async () => {
  await second?.stop();
});

const path = (version: string, name = '') => `/apis/${GROUP}/${version}/namespaces/${t.ns}/replicas${name ? `/${name}` : ''}`;

test('another server process serves a custom resource within a second of its CRD being established', async () => {
  assert.equal((await api2.get(path('v1'))).status, 404);
  await establishedCrd(t.api, crd('replicas'));
  await within(1000, async () => (await api2.get(path('v2'))).status === 200, 'served by the second process');

  // Written through one process in v1, read and watched through the other in v2.
  const start = (await api2.get(path('v2'))).json.metadata.resourceVersion;
  const events: WatchEvent[] = [];
  const watch = openWatch(second.url, `${path('v2')}?watch=true&resourceVersion=${start}`, t.srv.adminAgent, (ev) => events.push(ev));
  try {
    assert.equal((await t.api.post(path('v1'), cr('replicas', 'r1', 'v1'))).status, 201);
    await within(5000, async () => events.length >= 1, 'the change seen by the second process');
  } finally {
    watch.abort();
  }
  assert.deepEqual([events[0]!.type, events[0]!.object.metadata.name, events[0]!.object.apiVersion], ['ADDED', 'r1', `${GROUP}/v2`]);
  const got = await api2.get(path('v2', 'r1'));
  assert.equal(got.status, 200, got.text);
  assert.equal(got.json.apiVersion, `${GROUP}/v2`);
});

test('once the CRD is gone, the other process stops serving it too', async () => {
  assert.equal((await t.api.delete(path('v1', 'r1'))).status, 200);
  const deleted = await t.api.delete(`${CRDS}/replicas.stable.example.com`);
  assert.equal(deleted.status, 200, deleted.text);
  // The CRD controllers remove the instances, then the finalizer; the CRD then leaves storage.
  await within(15_000, async () => (await t.api.get(`${CRDS}/replicas.stable.example.com`)).status === 404, 'CRD gone');
  await within(1000, async () => (await api2.get(path('v1'))).status === 404, 'no longer served by the second process');
});
