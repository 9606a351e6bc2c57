import assert from 'node:assert/strict';
import https from 'node:https';
import { after, before, test } from 'node:test';
import pg from 'pg';
import { decodeProtobufWatchFrames } from '../../src/codecs/protobuf/index.ts';
import { assertStatus, configMap, create, createNamespace } from '../helpers/fixtures.ts';
import { serveFile } from '../helpers/server.ts';
import { openWatch, type WatchEvent } from '../helpers/watch-stream.ts';

// Every warning the process emits, from the start (Node emits a given listener-count warning once).
const warnings: Error[] = [];
process.on('warning', (w) => warnings.push(w));

let cms: string;
const t = serveFile(['--watch-bookmark-interval=200ms'], async () => {
  cms = `/api/v1/namespaces/${t.ns}/configmaps`;
});

/** Opens a watch and collects events until `until` says enough (or the server ends the stream). */
async function watchUntil(path: string, until: (events: WatchEvent[]) => boolean, during?: () => Promise<void>): Promise<WatchEvent[]> {
  const events: WatchEvent[] = [];
  const w = openWatch(t.srv.url, path, t.srv.adminAgent, (ev) => {
    events.push(ev);
    if (until(events)) w.abort();
  });
  const guard = setTimeout(() => w.abort(), 5000);
  if (during) await during();
  await w.done;
  clearTimeout(guard);
  return events;
}

const names = (events: WatchEvent[]) => events.filter((e) => e.type !== 'BOOKMARK').map((e) => `${e.type} ${e.object.metadata.name}`);

test('a watch without resourceVersion starts with the current objects as ADDED, then streams changes', async () => {
  await create(t.api, cms, configMap('w-existing'));
  const events = await watchUntil(`${cms}?watch=1`, (e) => e.length >= 3, async () => {
    await new Promise((r) => setTimeout(r, 200));
    const made = await create(t.api, cms, configMap('w-new'));
    await t.api.put(`${cms}/w-new`, { ...made, data: { a: 'b' } });
  });
  assert.deepEqual(names(events), ['ADDED w-existing', 'ADDED w-new', 'MODIFIED w-new']);
});

test('a watch from a resourceVersion sends only what came after it, DELETED carrying the deletion version', async () => {
  const rv = (await t.api.get(cms)).json.metadata.resourceVersion;
  const events = await watchUntil(`${cms}?watch=true&resourceVersion=${rv}`, (e) => e.length >= 2, async () => {
    await create(t.api, cms, configMap('w-gone'));
    await t.api.delete(`${cms}/w-gone`);
  });
  assert.deepEqual(names(events), ['ADDED w-gone', 'DELETED w-gone']);
  assert.ok(Number(events[1].object.metadata.resourceVersion) > Number(events[0].object.metadata.resourceVersion));
});

test('watching one object by metadata.name, and a label selector, filter the stream', async () => {
  const rv = (await t.api.get(cms)).json.metadata.resourceVersion;
  const one = watchUntil(`${cms}?watch=1&resourceVersion=${rv}&fieldSelector=metadata.name%3Dw-target`, (e) => e.length >= 1);
  const labelled = watchUntil(`${cms}?watch=1&resourceVersion=${rv}&labelSelector=tier%3Dweb`, (e) => e.length >= 1);
  await create(t.api, cms, configMap('w-other', {}, { labels: { tier: 'db' } }));
  await create(t.api, cms, configMap('w-target', {}, { labels: { tier: 'web' } }));
  assert.deepEqual(names(await one), ['ADDED w-target']);
  assert.deepEqual(names(await labelled), ['ADDED w-target']);
});

test('watches across all namespaces see every namespace', async () => {
  const other = await createNamespace(t.api);
  const rv = (await t.api.get('/api/v1/configmaps')).json.metadata.resourceVersion;
  const events = await watchUntil(`/api/v1/configmaps?watch=1&resourceVersion=${rv}`, (e) => e.length >= 2, async () => {
    await create(t.api, cms, configMap('w-here'));
    await create(t.api, `/api/v1/namespaces/${other}/configmaps`, configMap('w-there'));
  });
  assert.deepEqual(events.map((e) => `${e.object.metadata.namespace}/${e.object.metadata.name}`), [`${t.ns}/w-here`, `${other}/w-there`]);
});

test('sendInitialEvents sends the state, then a bookmark annotated k8s.io/initial-events-end', async () => {
  const events = await watchUntil(
    `${cms}?watch=1&sendInitialEvents=true&resourceVersionMatch=NotOlderThan&allowWatchBookmarks=true&labelSelector=tier%3Dweb`,
    (e) => e.some((x) => x.type === 'BOOKMARK'),
  );
  const bookmark = events.at(-1)!;
  assert.deepEqual(names(events), ['ADDED w-target']);
  assert.equal(bookmark.type, 'BOOKMARK');
  assert.equal(bookmark.object.metadata.annotations['k8s.io/initial-events-end'], 'true');
  assert.ok(Number(bookmark.object.metadata.resourceVersion) >= Number(events[0].object.metadata.resourceVersion));
  assert.equal(bookmark.object.data, undefined, 'a bookmark carries only its version');
});

test('allowWatchBookmarks brings periodic bookmarks with the current version', async () => {
  const rv = (await t.api.get(cms)).json.metadata.resourceVersion;
  const events = await watchUntil(`${cms}?watch=1&resourceVersion=${rv}&allowWatchBookmarks=true`, (e) => e.some((x) => x.type === 'BOOKMARK'));
  const bookmark = events.find((e) => e.type === 'BOOKMARK')!;
  assert.ok(Number(bookmark.object.metadata.resourceVersion) >= Number(rv));
  assert.equal(bookmark.object.kind, 'ConfigMap');
});

test('timeoutSeconds ends the stream cleanly', async () => {
  const started = Date.now();
  const events = await watchUntil(`${cms}?watch=1&resourceVersion=0&timeoutSeconds=1`, () => false);
  assert.ok(Date.now() - started >= 900 && Date.now() - started < 4000);
  assert.ok(events.every((e) => e.type === 'ADDED'));
});

test('a version older than the history window answers 200 and then an ERROR event with a 410 Expired Status', async () => {
  const old = Number((await t.api.get(cms)).json.metadata.resourceVersion);
  await create(t.api, cms, configMap('w-before-compaction-1'));
  await create(t.api, cms, configMap('w-before-compaction-2'));
  const pool = new pg.Pool({ connectionString: t.srv.db.url });
  try {
    // What the compactor does once the window has passed: drop the rows and raise the mark.
    await pool.query(
      `with gone as (delete from history where resource_version < (select max(resource_version) from history) returning resource_version)
       update compaction set compacted_resource_version = (select max(resource_version) from gone)`,
    );
  } finally {
    await pool.end();
  }
  const events = await watchUntil(`${cms}?watch=1&resourceVersion=${old}`, (e) => e.length >= 1);
  assert.equal(events.length, 1);
  assert.equal(events[0].type, 'ERROR');
  assert.equal(events[0].object.kind, 'Status');
  assert.equal(events[0].object.code, 410);
  assert.equal(events[0].object.reason, 'Expired');
  assert.match(events[0].object.message, /too old resource version/);

  // The same version as a paginated list is Expired too.
  assertStatus(await t.api.get(`${cms}?limit=1&resourceVersion=${old}&resourceVersionMatch=Exact`), 410, 'Expired', 'The resourceVersion for the provided list is too old.');
});

test('watch parameters that contradict each other are refused before the stream starts', async () => {
  assertStatus(await t.api.get(`${cms}?watch=1&sendInitialEvents=true`), 422, 'Invalid', /sendInitialEvents requires setting resourceVersionMatch to NotOlderThan/);
  assertStatus(await t.api.get(`${cms}?watch=1&resourceVersionMatch=NotOlderThan`), 422, 'Invalid', /resourceVersionMatch is forbidden for watch unless sendInitialEvents is provided/);
  assertStatus(await t.api.get(`${cms}?watch=1&labelSelector=a%20b`), 400, 'BadRequest');
  assertStatus(await t.api.get(`${cms}?watch=maybe`), 400, 'BadRequest');
});

/** Collects the raw bytes of a watch until `enough` says so. */
function rawWatch(path: string, accept: string, enough: (bytes: Buffer) => boolean): Promise<{ contentType: string; bytes: Buffer }> {
  return new Promise((resolve, reject) => {
    const req = https.request(new URL(path, t.srv.url), { agent: t.srv.adminAgent, headers: { Accept: accept } }, (res) => {
      const chunks: Buffer[] = [];
      const finish = () => {
        req.destroy();
        resolve({ contentType: String(res.headers['content-type']), bytes: Buffer.concat(chunks) });
      };
      res.on('data', (c: Buffer) => {
        chunks.push(c);
        if (enough(Buffer.concat(chunks))) finish();
      });
      res.on('end', finish);
    });
    req.on('error', (err) => ((err as NodeJS.ErrnoException).code === 'ECONNRESET' ? undefined : reject(err)));
    req.setTimeout(5000, () => req.destroy());
    req.end();
  });
}

test('protobuf watches stream length-prefixed WatchEvent frames that decode to the objects', async () => {
  const rv = (await t.api.get(cms)).json.metadata.resourceVersion;
  const path = `${cms}?watch=1&resourceVersion=${rv}`;
  const watching = Promise.all(
    [0, 1].map(() => rawWatch(path, 'application/vnd.kubernetes.protobuf;stream=watch', (b) => decodeProtobufWatchFrames(b).length >= 2)),
  );
  await new Promise((r) => setTimeout(r, 200));
  const made = await create(t.api, cms, configMap('w-proto', { k: 'v' }));
  await t.api.delete(`${cms}/w-proto`);
  for (const { contentType, bytes } of await watching) {
    assert.equal(contentType, 'application/vnd.kubernetes.protobuf;stream=watch');
    const frames = decodeProtobufWatchFrames(bytes);
    assert.deepEqual(frames.map((f) => f.type), ['ADDED', 'DELETED']);
    assert.equal(frames[0].object.kind, 'ConfigMap');
    assert.deepEqual(frames[0].object.data, { k: 'v' });
    assert.equal((frames[0].object.metadata as any).uid, made.metadata.uid);
  }
});

test('table watches: every watcher gets column definitions on its first event only', async () => {
  const rv = (await t.api.get(cms)).json.metadata.resourceVersion;
  const accept = 'application/json;as=Table;v=v1;g=meta.k8s.io,application/json';
  const path = `${cms}?watch=1&resourceVersion=${rv}`;
  const lines = (b: Buffer) => b.toString('utf8').split('\n').filter(Boolean).map((l) => JSON.parse(l));
  const first = rawWatch(path, accept, (b) => lines(b).length >= 2);
  await new Promise((r) => setTimeout(r, 150));
  await create(t.api, cms, configMap('w-table-1'));
  const second = rawWatch(path, accept, (b) => lines(b).length >= 2);
  await new Promise((r) => setTimeout(r, 150));
  await create(t.api, cms, configMap('w-table-2'));
  const [a, b] = [lines((await first).bytes), lines((await second).bytes)];
  for (const events of [a, b]) {
    assert.equal(events[0].object.kind, 'Table');
    assert.ok(events[0].object.columnDefinitions.length > 0, 'first event has the columns');
    assert.deepEqual(events[1].object.columnDefinitions, [], 'later events do not');
  }
  assert.deepEqual(a.map((e) => e.object.rows[0].cells[0]), ['w-table-1', 'w-table-2']);
  // The second watcher started from the same version, so it sees both too, with its own first header.
  assert.deepEqual(b.map((e) => e.object.rows[0].cells[0]), ['w-table-1', 'w-table-2']);
});

test('many open watches are not taken for a listener leak', async () => {
  await create(t.api, cms, configMap('listened'));
  const opened = Array.from({ length: 15 }, () => {
    let seen!: () => void;
    const first = new Promise<void>((resolve) => (seen = resolve));
    const w = openWatch(t.srv.url, cms + '?watch=1', t.srv.adminAgent, () => seen());
    return { w, first };
  });
  try {
    // Each watch's initial event: all 15 are registered with the server at once.
    await Promise.all(opened.map((o) => o.first));
    await new Promise((r) => setImmediate(r));
    assert.deepEqual(warnings.filter((w) => w.name === 'MaxListenersExceededWarning').map((w) => w.message), []);
  } finally {
    for (const o of opened) o.w.abort();
  }
});
