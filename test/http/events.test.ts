import assert from 'node:assert/strict';
import { before, test } from 'node:test';
import { assertStatus, create, event } from '../helpers/fixtures.ts';
import { serveFile } from '../helpers/server.ts';
import { openWatch, type WatchEvent } from '../helpers/watch-stream.ts';

let core: string;
let v1: string;
const t = serveFile([], async () => {
  core = `/api/v1/namespaces/${t.ns}/events`;
  v1 = `/apis/events.k8s.io/v1/namespaces/${t.ns}/events`;
});

function legacyEvent(name: string, involved: string) {
  return {
    apiVersion: 'v1',
    kind: 'Event',
    metadata: { name },
    involvedObject: { kind: 'ConfigMap', name: involved, namespace: t.ns, uid: 'u-1' },
    reason: 'Legacy',
    message: 'written the old way',
    type: 'Warning',
    source: { component: 'kubelet', host: 'node-1' },
    count: 3,
    firstTimestamp: '2026-01-01T00:00:00Z',
    lastTimestamp: '2026-01-01T00:05:00Z',
  };
}

test('one event, two APIs: events.k8s.io/v1 writes read back through core/v1 with the core field names', async () => {
  const created = await create(t.api, v1, { ...event('new-style', 'hello'), regarding: { kind: 'ConfigMap', name: 'cfg', namespace: t.ns } });
  assert.equal(created.note, 'hello');
  const seen = (await t.api.get(`${core}/new-style`)).json;
  assert.equal(seen.apiVersion, 'v1');
  assert.equal(seen.message, 'hello');
  assert.deepEqual(seen.involvedObject, { kind: 'ConfigMap', name: 'cfg', namespace: t.ns });
  assert.equal(seen.reportingComponent, created.reportingController);
  assert.equal(seen.metadata.resourceVersion, created.metadata.resourceVersion);
  assert.equal(seen.note, undefined);
});

test('legacy core/v1 events show their old fields as deprecated* through events.k8s.io/v1', async () => {
  await create(t.api, core, legacyEvent('old-style', 'cfg'));
  const seen = (await t.api.get(`${v1}/old-style`)).json;
  assert.equal(seen.apiVersion, 'events.k8s.io/v1');
  assert.equal(seen.note, 'written the old way');
  assert.deepEqual(seen.deprecatedSource, { component: 'kubelet', host: 'node-1' });
  assert.equal(seen.deprecatedCount, 3);
  assert.equal(seen.deprecatedLastTimestamp, '2026-01-01T00:05:00Z');
  assert.equal(seen.eventTime, null);
  const both = [(await t.api.get(core)).json.items, (await t.api.get(v1)).json.items].map((items: any[]) => items.map((e) => e.metadata.name).sort());
  assert.deepEqual(both[0], both[1]);
});

test('field selectors work on both APIs with their own field names', async () => {
  await create(t.api, core, legacyEvent('about-other', 'other'));
  const byCore = (await t.api.get(`${core}?fieldSelector=involvedObject.name%3Dother,type%3DWarning`)).json.items;
  assert.deepEqual(byCore.map((e: any) => e.metadata.name), ['about-other']);
  const byV1 = (await t.api.get(`${v1}?fieldSelector=regarding.name%3Dother`)).json.items;
  assert.deepEqual(byV1.map((e: any) => e.metadata.name), ['about-other']);
  assertStatus(await t.api.get(`${core}?fieldSelector=regarding.name%3Dother`), 400, 'BadRequest', /field label not supported: regarding.name/);
});

test('a watch on events.k8s.io/v1 sees core/v1 writes in its own form', async () => {
  const rv = (await t.api.get(v1)).json.metadata.resourceVersion;
  const events: WatchEvent[] = [];
  const w = openWatch(t.srv.url, `${v1}?watch=1&resourceVersion=${rv}`, t.srv.adminAgent, (ev) => {
    events.push(ev);
    if (events.length === 1) w.abort();
  });
  await create(t.api, core, legacyEvent('watched', 'cfg'));
  await w.done;
  assert.equal(events[0].type, 'ADDED');
  assert.equal(events[0].object.apiVersion, 'events.k8s.io/v1');
  assert.equal(events[0].object.note, 'written the old way');
});

test('new-style events must carry the required fields; legacy ones must be about their own namespace', async () => {
  const res = await t.api.post(v1, { apiVersion: 'events.k8s.io/v1', kind: 'Event', metadata: { name: 'bare' } });
  const status = assertStatus(res, 422, 'Invalid');
  // As upstream: without eventTime the reporting fields are not looked at yet.
  assert.deepEqual(status.details.causes.map((c: any) => `${c.field}: ${c.message}`), [
    'involvedObject.namespace: Invalid value: "": does not match event.namespace',
    'eventTime: Required value',
    'type: Invalid value: "": has invalid value: ',
  ]);
  const timed = await t.api.post(v1, { apiVersion: 'events.k8s.io/v1', kind: 'Event', metadata: { name: 'timed' }, eventTime: '2025-01-01T00:00:00.000000Z', type: 'Normal' });
  const fields = assertStatus(timed, 422, 'Invalid').details.causes.map((c: any) => c.field);
  assert.deepEqual(fields, ['involvedObject.namespace', 'reportingController', 'reportingController', 'reportingController', 'reportingInstance', 'action', 'reason']);
  const wrongNs = legacyEvent('elsewhere', 'cfg');
  wrongNs.involvedObject.namespace = 'kube-system';
  assertStatus(await t.api.post(core, wrongNs), 422, 'Invalid', /involvedObject.namespace: Invalid value: "kube-system": does not match event.namespace/);
});

test('the event table has the columns kubectl prints (Name only in wide output)', async () => {
  const res = await t.api.get(core, { Accept: 'application/json;as=Table;g=meta.k8s.io;v=v1' });
  const columns = res.json.columnDefinitions.map((c: any) => [c.name, c.priority]);
  assert.deepEqual(columns, [['Last Seen', 0], ['Type', 0], ['Reason', 0], ['Object', 0], ['Message', 0], ['Name', 1]]);
  const row = res.json.rows.find((r: any) => r.cells[5] === 'old-style');
  assert.deepEqual(row.cells.slice(1, 5), ['Warning', 'Legacy', 'configmap/cfg', 'written the old way']);
});

test('events are removed once not touched for the TTL (one hour by default), and not before', async () => {
  await create(t.api, core, legacyEvent('expiring', 'cfg'));
  const ttl = t.srv.server.controllers.eventTtl!;
  assert.equal(await ttl.sweep(), 0, 'nothing is an hour old yet');
  assert.equal((await t.api.get(`${core}/expiring`)).status, 200);
  // As of two hours from now, every event written by this test has expired.
  assert.ok((await ttl.sweep(Date.now() + 2 * 3600_000)) >= 1);
  assertStatus(await t.api.get(`${core}/expiring`), 404, 'NotFound');
  assertStatus(await t.api.get(`${v1}/expiring`), 404, 'NotFound');
});
