/**
 * A process's own writes reach its watchers without the hub reading them back (WatchHub.committedHere):
 * fanned out from what the write batcher sent (an update's or delete's previous object from the ring),
 * in version order, with no gap and no duplicate, even when another process writes between them or a
 * fetch of history is under way at the same moment.
 */
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { after, before, test } from 'node:test';
import pino from 'pino';
import type { StoredKubeObject } from '../../src/api/types.ts';
import { openDatabase, type Database } from '../../src/storage/postgres/database.ts';
import type { HistoryRow } from '../../src/storage/postgres/change.ts';
import { PostgresStorage } from '../../src/storage/postgres/postgres-storage.ts';
import { WatchHub } from '../../src/storage/postgres/watch-hub.ts';
import type { ObjectFilter, ObjectKey, ResourceRef, StoredObject, WatchHandle } from '../../src/storage/storage.ts';
import { openTestDatabase, until, type OpenedDatabase } from '../helpers/storage.ts';

const logger = pino({ level: 'silent' });
const CM: ResourceRef = { group: '', resource: 'configmaps' };
let opened: OpenedDatabase;
/** Polls rarely and waits long for its own batches, so that what it reads from history is only what it must. */
let storage: PostgresStorage;
/** A second process on the same database: its own pool, write batcher and hub. */
let otherDatabase: Database;
let other: PostgresStorage;

before(async () => {
  opened = await openTestDatabase('pgkube_own_writes');
  storage = new PostgresStorage({ database: opened.database, logger, pollIntervalMs: 60_000, ownBatchHoldMs: 10_000 });
  await storage.start();
  otherDatabase = await openDatabase({ url: opened.testDb.url, logger });
  other = new PostgresStorage({ database: otherDatabase, logger, pollIntervalMs: 200 });
  await other.start();
});

after(async () => {
  await other.close();
  await otherDatabase.close();
  await storage.close();
  await opened.close();
});

const key = (namespace: string, name: string): ObjectKey => ({ ...CM, namespace, name });
const configMap = (namespace: string, name: string): StoredKubeObject => ({
  apiVersion: 'v1',
  kind: 'ConfigMap',
  metadata: { name, namespace, uid: randomUUID(), resourceVersion: '', labels: { n: name } },
  data: { k: name },
});

interface Seen {
  readonly type: string;
  readonly resourceVersion: number;
  readonly object: StoredKubeObject;
}

interface Watching {
  readonly events: Seen[];
  readonly handle: WatchHandle;
}

async function watchFromNow(on: PostgresStorage, namespace: string, filter?: ObjectFilter): Promise<Watching> {
  const events: Seen[] = [];
  const handle = await on.watch(CM, { namespace, fromVersion: await on.currentVersion(), filter }, {
    onEvent: (ev) => void events.push({ type: ev.type, resourceVersion: ev.resourceVersion, object: ev.object }),
    onClose: () => undefined,
  });
  return { events, handle };
}

/** Every event once, in strictly rising versions, each carrying the object stored at its version. */
function assertInOrderOnce(events: readonly Seen[], names: readonly string[]): void {
  const versions = events.map((e) => e.resourceVersion);
  for (let i = 1; i < versions.length; i++) assert.ok(versions[i] > versions[i - 1], `version ${versions[i]} after ${versions[i - 1]}`);
  assert.deepEqual(events.map((e) => e.object.metadata.name).sort(), [...names].sort());
  for (const e of events) {
    assert.equal(e.type, 'ADDED');
    assert.equal(e.object.metadata.resourceVersion, String(e.resourceVersion));
    assert.deepEqual((e.object as { data?: unknown }).data, { k: e.object.metadata.name });
  }
}

test("a process's own creates are fanned out without reading history, each with its stored object", async () => {
  const ns = 'own-plain';
  const w = await watchFromNow(storage, ns);
  const { rowsRead, objectsRead, ownChangesDispatched } = storage.hub.stats;
  const names = Array.from({ length: 20 }, (_, i) => `c-${i}`);
  // Concurrent creates leave in batches of several.
  const created = await Promise.all(names.map((n) => storage.create(key(ns, n), configMap(ns, n))));
  await until(() => w.events.length === names.length, `${names.length} events (got ${w.events.length})`);
  assertInOrderOnce(w.events, names);
  // What the watcher got is what was stored at that version, and what the writer was answered.
  for (const c of created) {
    const ev = w.events.find((e) => e.object.metadata.name === c.object.metadata.name)!;
    assert.equal(ev.resourceVersion, c.resourceVersion);
    assert.deepEqual(JSON.parse(c.text), ev.object);
    const read = await storage.get(key(ns, c.object.metadata.name));
    assert.deepEqual(read!.object, ev.object);
  }
  assert.equal(storage.hub.stats.ownChangesDispatched, ownChangesDispatched + names.length);
  // Their notifications find nothing new to read.
  await new Promise((r) => setTimeout(r, 300));
  assert.equal(storage.hub.stats.rowsRead, rowsRead, 'no history row was read');
  assert.equal(storage.hub.stats.objectsRead, objectsRead);
  w.handle.stop();
});

test('creates of two processes interleaved reach the watchers of both, in version order, once each', async () => {
  const ns = 'own-two';
  const here = await watchFromNow(storage, ns);
  const there = await watchFromNow(other, ns);
  const names: string[] = [];
  const writes: Promise<unknown>[] = [];
  for (let i = 0; i < 60; i++) {
    const name = `x-${i}`;
    names.push(name);
    writes.push((i % 2 === 0 ? storage : other).create(key(ns, name), configMap(ns, name)));
  }
  await Promise.all(writes);
  for (const w of [here, there]) {
    await until(() => w.events.length >= names.length, `${names.length} events (got ${w.events.length})`);
    assertInOrderOnce(w.events, names);
  }
  here.handle.stop();
  there.handle.stop();
});

/** A hub of its own that polls rarely, so that only the fetches a test brings about read history. */
async function quietHub(ownBatchHoldMs?: number): Promise<WatchHub> {
  const hub = new WatchHub({
    pool: opened.database.pool,
    queries: opened.database.queries,
    listenConnection: opened.database.listenConnection,
    logger,
    maxBufferedEvents: 1000,
    maxBufferedBytes: 1024 * 1024,
    pollIntervalMs: 60_000,
    listenCheckTimeoutMs: 5000,
    ownBatchHoldMs,
  });
  await hub.start();
  return hub;
}

async function watchHub(hub: WatchHub, namespace: string): Promise<Watching> {
  const events: Seen[] = [];
  const handle = await hub.watch(CM, { namespace, fromVersion: hub.lastVersion }, {
    onEvent: (ev) => void events.push({ type: ev.type, resourceVersion: ev.resourceVersion, object: ev.object }),
    onClose: () => undefined,
  });
  return { events, handle };
}

/**
 * ADDED rows for `names` put straight into history after version `from` (no write function, no
 * notification), with the sequence moved past them.
 */
async function historyRows(namespace: string, from: number, names: readonly string[]): Promise<HistoryRow[]> {
  const rows: HistoryRow[] = names.map((name, i) => {
    const object = { ...configMap(namespace, name), metadata: { ...configMap(namespace, name).metadata, resourceVersion: String(from + i + 1) } };
    return { resource_version: String(from + i + 1), api_group: '', resource: 'configmaps', namespace, name, event_type: 'ADDED', object: JSON.stringify(object), previous: null, unreadable: null };
  });
  await opened.database.pool.query(
    `insert into history (resource_version, api_group, resource, namespace, name, event_type, object)
     select (r->>'resource_version')::bigint, r->>'api_group', r->>'resource', r->>'namespace', r->>'name', r->>'event_type', (r->>'object')::jsonb
       from jsonb_array_elements($1::jsonb) r`,
    [JSON.stringify(rows)],
  );
  await opened.database.pool.query(`select setval('resource_version_seq', $1)`, [from + names.length]);
  return rows;
}

const notifyChanges = (version: number) => opened.database.pool.query(`select pg_notify('kube_changes', $1)`, [String(version)]);

test('a fetch of history under way when own changes are fanned out does not send them again', async () => {
  const ns = 'own-race';
  const hub = await quietHub();
  try {
    const { events: seen, handle } = await watchHub(hub, ns);
    const from = hub.lastVersion;
    const rows = await historyRows(ns, from, ['r-1', 'r-2', 'r-3']);
    // A fetch goes out now and its snapshot holds the three rows; they are fanned out from memory before it is back.
    const { changesDispatched, rowsRead } = hub.stats;
    hub.notify();
    hub.committedHere(rows);
    assert.equal(seen.length, 3);
    await until(() => hub.stats.rowsRead >= rowsRead + 3, 'the fetch to have read the rows');
    await new Promise((r) => setTimeout(r, 100));
    assertInOrderOnce(seen, ['r-1', 'r-2', 'r-3']);
    // Watchers drop a version they have had; the hub must not even offer it (its ring stays in order).
    assert.equal(hub.stats.changesDispatched, changesDispatched + 3);
    assert.equal(hub.lastVersion, from + 3);

    // An update whose version condition names a change of another object in the ring is not given
    // that object as its previous one: the batch is left to the fetch.
    const own = hub.stats.ownChangesDispatched;
    hub.committedHere([{ ...rows[0], resource_version: String(from + 4), name: 'r-9', event_type: 'MODIFIED', previousVersion: from + 1 }]);
    assert.equal(hub.stats.ownChangesDispatched, own);
    assert.equal(hub.lastVersion, from + 3);
    handle.stop();
  } finally {
    await hub.close();
  }
});

/** Label selector `app=web`, as the registry would build it (only `matches` is used by the hub). */
const webOnly: ObjectFilter = {
  labels: [] as never,
  fields: [] as never,
  matches: (obj) => obj.metadata.labels?.app === 'web',
};

const relabelled = (stored: StoredObject, app: string): StoredKubeObject => ({ ...stored.object, metadata: { ...stored.object.metadata, labels: { app } } });

test("another process's notification waits for this process's batches in flight, and no longer than the hold", async () => {
  const ns = 'own-hold';
  const waiting = await quietHub(60_000);
  const bounded = await quietHub(50);
  try {
    const a = await watchHub(waiting, ns);
    const b = await watchHub(bounded, ns);
    // A batch of each hub's own is on its way (and never answered, for the second hub).
    const answered = waiting.ownBatchSent();
    bounded.ownBatchSent();
    const from = waiting.lastVersion;
    await historyRows(ns, from, ['h-1']);
    await notifyChanges(from + 1);
    // The hold ends on its own: the change arrives though the batch never does.
    await until(() => b.events.length === 1, 'the change past the hold');
    assert.equal(a.events.length, 0, 'held while the batch is in flight');
    assert.equal(waiting.lastVersion, from);
    // The batch is answered (it was not the change's writer): the fetch goes out.
    answered();
    await until(() => a.events.length === 1, 'the change once the batch was answered');
    assertInOrderOnce(a.events, ['h-1']);
    assertInOrderOnce(b.events, ['h-1']);
    a.handle.stop();
    b.handle.stop();
  } finally {
    await waiting.close();
    await bounded.close();
  }
});

test('updates and deletes conditioned on a version are fanned out with their previous objects from the ring, selectors and all', async () => {
  const ns = 'own-update';
  const from = await storage.currentVersion();
  const all = await watchFromNow(storage, ns);
  const web = await watchFromNow(storage, ns, webOnly);
  const { rowsRead, ownChangesDispatched } = storage.hub.stats;
  const a = await storage.create(key(ns, 'a'), { ...configMap(ns, 'a'), metadata: { ...configMap(ns, 'a').metadata, labels: { app: 'web' } } });
  // a leaves the selector, comes back, and is deleted.
  const left = await storage.update(key(ns, 'a'), relabelled(a, 'db'), a.resourceVersion);
  const back = await storage.update(key(ns, 'a'), relabelled(left, 'web'), left.resourceVersion);
  const gone = await storage.delete(key(ns, 'a'), back.resourceVersion);
  await until(() => all.events.length === 4 && web.events.length === 4, `4 events each (got ${all.events.length}, ${web.events.length})`);
  assert.deepEqual(all.events.map((e) => `${e.type} ${e.resourceVersion} ${e.object.metadata.labels?.app}`), [
    `ADDED ${a.resourceVersion} web`,
    `MODIFIED ${left.resourceVersion} db`,
    `MODIFIED ${back.resourceVersion} web`,
    `DELETED ${gone.resourceVersion} web`,
  ]);
  // The selector's transitions need each change's previous object.
  assert.deepEqual(web.events.map((e) => `${e.type} ${e.resourceVersion}`), [
    `ADDED ${a.resourceVersion}`,
    `DELETED ${left.resourceVersion}`,
    `ADDED ${back.resourceVersion}`,
    `DELETED ${gone.resourceVersion}`,
  ]);
  assert.equal(storage.hub.stats.ownChangesDispatched, ownChangesDispatched + 4);
  await new Promise((r) => setTimeout(r, 300));
  assert.equal(storage.hub.stats.rowsRead, rowsRead, 'no history row was read');
  // A process that read them from history sees the same.
  for (const [filter, expected] of [[undefined, all.events], [webOnly, web.events]] as const) {
    const seen: Seen[] = [];
    const h = await other.watch(CM, { namespace: ns, fromVersion: from, filter }, {
      onEvent: (ev) => void seen.push({ type: ev.type, resourceVersion: ev.resourceVersion, object: ev.object }),
      onClose: () => undefined,
    });
    await until(() => seen.length === 4, `4 events from history (got ${seen.length})`);
    assert.deepEqual(seen, expected);
    h.stop();
  }
  all.handle.stop();
  web.handle.stop();
});

test('an update or delete not conditioned on a version is read back by the fetch, and arrives all the same', async () => {
  const ns = 'own-unconditional';
  const w = await watchFromNow(storage, ns, webOnly);
  const a = await storage.create(key(ns, 'a'), { ...configMap(ns, 'a'), metadata: { ...configMap(ns, 'a').metadata, labels: { app: 'web' } } });
  const { rowsRead } = storage.hub.stats;
  const left = await storage.update(key(ns, 'a'), relabelled(a, 'db'));
  const gone = await storage.delete(key(ns, 'a'));
  await until(() => storage.hub.lastVersion >= gone.resourceVersion, 'the hub to have fetched the delete');
  // The update takes a out of the selector (its DELETED); the delete of an object outside it is not seen.
  assert.deepEqual(w.events.map((e) => `${e.type} ${e.resourceVersion}`), [`ADDED ${a.resourceVersion}`, `DELETED ${left.resourceVersion}`]);
  assert.ok(storage.hub.stats.rowsRead >= rowsRead + 2, 'the update and the delete were read from history');
  w.handle.stop();
});
