import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { after, before, test } from 'node:test';
import pino from 'pino';
import type { StoredKubeObject } from '../../src/api/types.ts';
import { Compactor } from '../../src/storage/postgres/compactor.ts';
import { migrateUp, openDatabase, type Database } from '../../src/storage/postgres/database.ts';
import { PostgresStorage } from '../../src/storage/postgres/postgres-storage.ts';
import { StorageError, type ObjectKey } from '../../src/storage/storage.ts';
import { createTestDatabase, type TestDatabase } from '../helpers/database.ts';
import { collectWatch, storedConfigMap } from './conformance.ts';

const logger = pino({ level: 'silent' });
let testDb: TestDatabase;
let database: Database;
let storage: PostgresStorage;
const CM = { group: '', resource: 'configmaps' };

before(async () => {
  testDb = await createTestDatabase('pgkube_storage');
  database = await openDatabase({ url: testDb.url, logger });
  await migrateUp(database.db);
  storage = new PostgresStorage({ database, logger, pollIntervalMs: 200, futureVersionWaitMs: 300 });
  await storage.start();
});

after(async () => {
  await storage.close();
  await database.close();
  await testDb.drop();
});

function key(namespace: string, name: string): ObjectKey {
  return { ...CM, namespace, name };
}

const configMap = storedConfigMap;
const collect = (namespace: string, fromVersion: number, count: number, labelSelector?: string) => collectWatch(storage, CM, namespace, fromVersion, count, labelSelector);

test('a watcher that cannot keep up is closed', async () => {
  const start = await storage.currentVersion();
  let closedWith = '';
  const handle = await storage.watch(CM, { namespace: 's7', fromVersion: start }, {
    onEvent: () => false,
    onClose: (reason) => (closedWith = reason),
  });
  await storage.create(key('s7', 'a'), configMap('s7', 'a'));
  for (let i = 0; i < 40 && !closedWith; i++) await new Promise((r) => setTimeout(r, 25));
  assert.equal(closedWith, 'slow');
  handle.stop();
});

test('compaction drops history past the window; older watches and exact lists are then Expired', async () => {
  const early = await storage.currentVersion();
  const o = await storage.create(key('s8', 'old'), configMap('s8', 'old'));
  await storage.update(key('s8', 'old'), { ...o.object, data: { a: 'b' } });
  await new Promise((r) => setTimeout(r, 50));
  const compactor = new Compactor({ pool: database.pool, logger, windowMs: 10, intervalMs: 60_000 });
  const removed = await compactor.compactNow();
  assert.ok(removed > 0);
  const mark = await storage.compactedVersion();
  assert.ok(mark >= early, 'the compaction mark moved past the early version');
  assert.ok((await storage.currentVersion()) > mark, 'the newest change is always kept');

  await assert.rejects(storage.watch(CM, { fromVersion: early - 1 }, { onEvent: () => true, onClose: () => undefined }), (e: unknown) => e instanceof StorageError && e.code === 'Expired');
  await assert.rejects(storage.list(CM, { exactVersion: early - 1 }), (e: unknown) => e instanceof StorageError && e.code === 'Expired');
  // The current state is untouched by compaction.
  assert.ok(await storage.get(key('s8', 'old')));
});

test('a create that needs its namespace is refused, in the same transaction, when it is missing or terminating', async () => {
  const nsKey = { group: '', resource: 'namespaces', namespace: '', name: 'gate' };
  const ns: StoredKubeObject = { apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'gate', uid: randomUUID(), resourceVersion: '' } };
  await assert.rejects(
    storage.create(key('gate', 'a'), configMap('gate', 'a'), { requireNamespace: true }),
    (e: unknown) => e instanceof StorageError && e.code === 'NamespaceMissing',
  );
  const created = await storage.create(nsKey, ns);
  assert.ok(await storage.create(key('gate', 'a'), configMap('gate', 'a'), { requireNamespace: true }));
  await storage.update(nsKey, { ...created.object, metadata: { ...created.object.metadata, deletionTimestamp: '2026-01-01T00:00:00Z' } });
  await assert.rejects(
    storage.create(key('gate', 'b'), configMap('gate', 'b'), { requireNamespace: true }),
    (e: unknown) => e instanceof StorageError && e.code === 'NamespaceTerminating',
  );
  // Without the gate (cluster-scoped kinds, internal writes) the namespace row is not consulted.
  assert.ok(await storage.create(key('gate', 'c'), configMap('gate', 'c')));
});

test('a watch keeps going when the LISTEN connection is cut (reconnect, then catch up from history)', async () => {
  const start = await storage.currentVersion();
  const w = await collect('s9', start, 2);
  await storage.create(key('s9', 'before'), configMap('s9', 'before'));
  // What a managed PostgreSQL failover or an idle-connection reaper does to the listener.
  const killed = await database.pool.query(`select pg_terminate_backend(pid) as ok from pg_stat_activity where query ilike 'listen %' and datname = current_database()`);
  assert.ok(killed.rows.length >= 1, 'found the LISTEN connection');
  await storage.create(key('s9', 'after'), configMap('s9', 'after'));
  await w.done;
  assert.deepEqual(w.events.map((e) => `${e.type} ${e.object.metadata.name}`), ['ADDED before', 'ADDED after']);
  // The hub opens a new LISTEN connection by itself.
  for (let i = 0; i < 60; i++) {
    const listening = await database.pool.query(`select count(*)::int as n from pg_stat_activity where query ilike 'listen %' and datname = current_database() and state = 'idle'`);
    if (listening.rows[0].n >= 1) break;
    assert.ok(i < 59, 'a new LISTEN connection within 3 s');
    await new Promise((r) => setTimeout(r, 50));
  }
  // And live notifications flow again on the new connection.
  const again = await collect('s9', await storage.currentVersion(), 1);
  await storage.create(key('s9', 'later'), configMap('s9', 'later'));
  await again.done;
  assert.deepEqual(again.events.map((e) => e.object.metadata.name), ['later']);
});

test('close() ends the pool even when only raw queries used it (Kysely ends it only once it used it)', async () => {
  const other = await openDatabase({ url: testDb.url, logger });
  await other.pool.query('select 1');
  await other.close();
  assert.equal(other.pool.ended, true);
});
