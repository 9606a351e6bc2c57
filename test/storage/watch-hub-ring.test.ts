/**
 * The watch hub's ring of recent changes and its selective fetch: a watch from a recent version
 * replays from memory exactly what history would give, and changes of resources nobody watches cost
 * no object reads (WatchHub.stats counts them).
 */
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { after, before, test } from 'node:test';
import pino from 'pino';
import type { StoredKubeObject } from '../../src/api/types.ts';
import type { Database } from '../../src/storage/postgres/database.ts';
import { PostgresStorage } from '../../src/storage/postgres/postgres-storage.ts';
import { WatchHub } from '../../src/storage/postgres/watch-hub.ts';
import { StorageError, type ObjectFilter, type ObjectKey, type ResourceRef, type WatchOptions } from '../../src/storage/storage.ts';
import type { TestDatabase } from '../helpers/database.ts';
import { openTestStorage, until, type OpenedStorage } from '../helpers/storage.ts';

const logger = pino({ level: 'silent' });
const CM: ResourceRef = { group: '', resource: 'configmaps' };
const SECRETS: ResourceRef = { group: '', resource: 'secrets' };
let testDb: TestDatabase;
let database: Database;
let storage: PostgresStorage;

let opened: OpenedStorage;

before(async () => {
  opened = await openTestStorage('pgkube_ring');
  ({ testDb, database, storage } = opened);
});

after(() => opened.close());

/** A second hub on the same database, with its own ring (it starts empty: older versions come from history). */
async function newHub(recentChanges?: number): Promise<WatchHub> {
  const hub = new WatchHub({
    pool: database.pool,
    queries: database.queries,
    listenConnection: database.listenConnection,
    logger,
    maxBufferedEvents: 10_000,
    maxBufferedBytes: 4 * 1024 * 1024,
    pollIntervalMs: 200,
    listenCheckTimeoutMs: 5000,
    recentChanges,
  });
  await hub.start();
  return hub;
}

const key = (ref: ResourceRef, namespace: string, name: string): ObjectKey => ({ ...ref, namespace, name });
const object = (kind: string, namespace: string, name: string, labels: Record<string, string> = {}, value = ''): StoredKubeObject => ({
  apiVersion: 'v1',
  kind,
  metadata: { name, namespace, uid: randomUUID(), resourceVersion: '', labels },
  data: { k: value },
});

/** Label selector `app=web`, as the registry would build it (only `matches` is used by the hub). */
const webOnly: ObjectFilter = {
  labels: [] as never,
  fields: [] as never,
  matches: (obj) => obj.metadata.labels?.app === 'web',
};

interface Seen {
  type: string;
  version: number;
  name: string;
  app: string | undefined;
}

/** Watches until `count` events have arrived; returns them and stops. */
async function collect(hub: WatchHub, ref: ResourceRef, options: WatchOptions, count: number): Promise<Seen[]> {
  const seen: Seen[] = [];
  const handle = await hub.watch(ref, options, {
    onEvent: (ev) => {
      seen.push({ type: ev.type, version: ev.resourceVersion, name: ev.object.metadata.name, app: ev.object.metadata.labels?.app });
    },
    onClose: () => undefined,
  });
  await until(() => seen.length >= count, `${count} events (got ${seen.length})`);
  handle.stop();
  return seen;
}

test('a catch-up from the ring gives the same events as one from history, selectors and all', async () => {
  const ns = 'ring-same';
  const from = await storage.currentVersion();
  await storage.create(key(CM, ns, 'a'), object('ConfigMap', ns, 'a', { app: 'web' }));
  await storage.create(key(CM, ns, 'b'), object('ConfigMap', ns, 'b', { app: 'db' }));
  const a = await storage.get(key(CM, ns, 'a'));
  // a leaves the selector, b enters it, then a is deleted.
  await storage.update(key(CM, ns, 'a'), { ...a!.object, metadata: { ...a!.object.metadata, labels: { app: 'db' } } });
  const b = await storage.get(key(CM, ns, 'b'));
  await storage.update(key(CM, ns, 'b'), { ...b!.object, metadata: { ...b!.object.metadata, labels: { app: 'web' } } });
  await storage.delete(key(CM, ns, 'a'));
  const last = await storage.currentVersion();
  await until(() => storage.hub.lastVersion >= last, 'the hub to have fetched the writes');

  const fresh = await newHub();
  try {
    for (const filter of [undefined, webOnly]) {
      const count = filter ? 3 : 5;
      const memoryBefore = storage.hub.stats.catchUpsFromMemory;
      const fromRing = await collect(storage.hub, CM, { namespace: ns, fromVersion: from, filter }, count);
      assert.equal(storage.hub.stats.catchUpsFromMemory, memoryBefore + 1, 'served from the ring');
      const databaseBefore = fresh.stats.catchUpsFromDatabase;
      const fromHistory = await collect(fresh, CM, { namespace: ns, fromVersion: from, filter }, count);
      assert.equal(fresh.stats.catchUpsFromDatabase, databaseBefore + 1, 'served from history');
      assert.deepEqual(fromRing, fromHistory);
    }
    const plain = await collect(storage.hub, CM, { namespace: ns, fromVersion: from }, 5);
    assert.deepEqual(plain.map((e) => `${e.type} ${e.name}`), ['ADDED a', 'ADDED b', 'MODIFIED a', 'MODIFIED b', 'DELETED a']);
    const selected = await collect(storage.hub, CM, { namespace: ns, fromVersion: from, filter: webOnly }, 3);
    assert.deepEqual(selected.map((e) => `${e.type} ${e.name} ${e.app}`), ['ADDED a web', 'DELETED a web', 'ADDED b web']);
  } finally {
    await fresh.close();
  }
});

test('a watcher of one resource costs no object reads when only another resource changes', async () => {
  const ns = 'ring-unwatched';
  const hub = await newHub();
  try {
    const seen: string[] = [];
    const handle = await hub.watch(CM, { namespace: ns, fromVersion: await storage.currentVersion() }, {
      onEvent: (ev) => void seen.push(ev.object.metadata.name),
      onClose: () => undefined,
    });
    const { objectsRead, rowsRead } = hub.stats;
    for (let i = 0; i < 5; i++) await storage.create(key(SECRETS, ns, `s-${i}`), object('Secret', ns, `s-${i}`));
    const secretsDone = await storage.currentVersion();
    await until(() => hub.lastVersion >= secretsDone, 'the hub to have fetched the secrets');
    assert.equal(hub.stats.rowsRead, rowsRead + 5, 'the new rows were read');
    assert.equal(hub.stats.objectsRead, objectsRead, 'without their objects');

    await storage.create(key(CM, ns, 'c-0'), object('ConfigMap', ns, 'c-0'));
    await until(() => seen.length === 1, 'the ConfigMap event');
    assert.deepEqual(seen, ['c-0']);
    assert.equal(hub.stats.objectsRead, objectsRead + 1, 'the watched resource’s object was read');
    handle.stop();
  } finally {
    await hub.close();
  }
});

test('a catch-up over changes fetched while nobody watched reads just their objects, and replays them whole', async () => {
  const ns = 'ring-stubs';
  const hub = await newHub();
  try {
    const from = await storage.currentVersion();
    for (let i = 0; i < 3; i++) await storage.create(key(SECRETS, ns, `s-${i}`), object('Secret', ns, `s-${i}`, {}, `v${i}`));
    await storage.create(key(CM, ns, 'other'), object('ConfigMap', ns, 'other'));
    const last = await storage.currentVersion();
    await until(() => hub.lastVersion >= last, 'the hub to have fetched the writes');
    const { objectsRead, catchUpsFromMemory } = hub.stats;
    const seen: StoredKubeObject[] = [];
    const handle = await hub.watch(SECRETS, { namespace: ns, fromVersion: from }, {
      onEvent: (ev) => void seen.push(ev.object),
      onClose: () => undefined,
    });
    assert.equal(hub.stats.catchUpsFromMemory, catchUpsFromMemory + 1);
    assert.deepEqual(seen.map((o) => [o.metadata.name, (o as { data?: { k?: string } }).data?.k]), [['s-0', 'v0'], ['s-1', 'v1'], ['s-2', 'v2']]);
    assert.equal(hub.stats.objectsRead, objectsRead + 3, 'the three secrets, not the ConfigMap');
    // Filled once: a second watch from the same version reads nothing more.
    const again = await collect(hub, SECRETS, { namespace: ns, fromVersion: from }, 3);
    assert.equal(again.length, 3);
    assert.equal(hub.stats.objectsRead, objectsRead + 3);
    handle.stop();
  } finally {
    await hub.close();
  }
});

test('a version older than the ring is replayed from history; a compacted one is Expired even while the ring holds it', async () => {
  const ns = 'ring-old';
  const hub = await newHub(2);
  try {
    const from = await storage.currentVersion();
    for (let i = 0; i < 4; i++) await storage.create(key(CM, ns, `c-${i}`), object('ConfigMap', ns, `c-${i}`));
    const last = await storage.currentVersion();
    await until(() => hub.lastVersion >= last, 'the hub to have fetched the writes');
    const { catchUpsFromDatabase } = hub.stats;
    const seen = await collect(hub, CM, { namespace: ns, fromVersion: from }, 4);
    assert.deepEqual(seen.map((e) => e.name), ['c-0', 'c-1', 'c-2', 'c-3']);
    assert.equal(hub.stats.catchUpsFromDatabase, catchUpsFromDatabase + 1, 'four changes do not fit a ring of two');

    // The ring of the main storage holds these; compaction still makes them Expired.
    await until(() => storage.hub.lastVersion >= last, 'the main hub to have fetched the writes');
    await database.pool.query('update compaction set compacted_resource_version = $1', [last - 1]);
    await assert.rejects(
      storage.hub.watch(CM, { namespace: ns, fromVersion: last - 2 }, { onEvent: () => undefined, onClose: () => undefined }),
      (err: unknown) => err instanceof StorageError && err.code === 'Expired',
    );
    assert.equal(storage.hub.watcherCount(CM), 0, 'the refused watcher is gone');
    const tail = await collect(storage.hub, CM, { namespace: ns, fromVersion: last - 1 }, 1);
    assert.deepEqual(tail.map((e) => e.name), ['c-3']);
  } finally {
    await hub.close();
  }
});

test('watches that start together share the read of the compaction mark', async () => {
  const hub = await newHub();
  try {
    const from = await storage.currentVersion();
    const before = hub.stats.compactionMarkReads;
    const handles = await Promise.all(
      Array.from({ length: 20 }, () => hub.watch(CM, { namespace: 'ring-shared', fromVersion: from }, { onEvent: () => undefined, onClose: () => undefined })),
    );
    // The first start sends a read; the other 19 arrive while it is out and share the next one.
    assert.equal(hub.stats.compactionMarkReads, before + 2);
    for (const h of handles) h.stop();
    assert.equal(hub.watcherCount(CM), 0);
  } finally {
    await hub.close();
  }
});
