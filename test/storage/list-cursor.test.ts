import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { after, before, test } from 'node:test';
import pino from 'pino';
import type { StoredKubeObject } from '../../src/api/types.ts';
import type { Database } from '../../src/storage/postgres/database.ts';
import { DEFAULT_LIST_CURSOR_OPTIONS, PostgresListCursor } from '../../src/storage/postgres/list-cursor.ts';
import { PostgresStorage } from '../../src/storage/postgres/postgres-storage.ts';
import { Slots } from '../../src/storage/postgres/slots.ts';
import { StorageError, type ListCursor, type ObjectKey } from '../../src/storage/storage.ts';
import { openTestDatabase, type OpenedDatabase } from '../helpers/storage.ts';

const logger = pino({ level: 'silent' });
const CM = { group: '', resource: 'configmaps' };
let opened: OpenedDatabase;
let database: Database;
let storage: PostgresStorage;

before(async () => {
  opened = await openTestDatabase('pgkube_cursor');
  database = opened.database;
  // Tiny chunks, so that a few dozen objects take many fetches.
  storage = new PostgresStorage({ database, logger, listCursor: { firstRows: 3, chunkBytes: 600, minRows: 2, maxRows: 7 } });
  await storage.start();
});

after(async () => {
  await storage.close();
  await opened.close();
});

const key = (namespace: string, name: string): ObjectKey => ({ ...CM, namespace, name });
const configMap = (namespace: string, name: string): StoredKubeObject => ({
  apiVersion: 'v1',
  kind: 'ConfigMap',
  metadata: { name, namespace, uid: randomUUID(), resourceVersion: '' },
  data: { k: name.repeat(3) },
});

async function drain(cursor: ListCursor): Promise<{ items: string[]; chunks: number }> {
  const items: string[] = [];
  let chunks = 0;
  for (let chunk = await cursor.next(); chunk.length > 0; chunk = await cursor.next()) {
    items.push(...chunk);
    chunks++;
  }
  return { items, chunks };
}

async function openTransactions(): Promise<number> {
  const res = await database.pool.query(
    `select count(*)::int as n from pg_stat_activity where datname = current_database() and state like 'idle in transaction%'`,
  );
  return res.rows[0].n;
}

test('a cursor reads the same list as a single statement, in chunks, from one snapshot', async () => {
  const ns = 'chunks';
  for (let i = 0; i < 40; i++) await storage.create(key(ns, `cm-${String(i).padStart(2, '0')}`), configMap(ns, `cm-${String(i).padStart(2, '0')}`));
  const whole = await storage.list(CM, { namespace: ns });
  const cursor = await storage.openList(CM, { namespace: ns });
  assert.equal(cursor.resourceVersion, whole.resourceVersion);
  // Changes after the cursor opened are not seen: one snapshot.
  await storage.create(key(ns, 'cm-99'), configMap(ns, 'cm-99'));
  await storage.delete(key(ns, 'cm-00'));
  const read = await drain(cursor);
  assert.deepEqual(read.items, whole.items);
  assert.ok(read.chunks >= 6, `read in ${read.chunks} chunks`);
  await cursor.close();
  assert.equal(await openTransactions(), 0, 'the snapshot is released');
});

test('closing a cursor part-way, or twice, releases its snapshot and connection', async () => {
  const opened = await Promise.all(Array.from({ length: 5 }, () => storage.openList(CM, { namespace: 'chunks' })));
  for (const c of opened) await c.next();
  assert.equal(await openTransactions(), 5);
  await Promise.all(opened.map((c) => Promise.all([c.close(), c.close()])));
  assert.equal(await openTransactions(), 0);
  assert.deepEqual(await opened[0].next(), []);
});

test('a cursor at a compacted version is Expired before it returns', async () => {
  const version = await storage.currentVersion();
  await storage.create(key('expired', 'a'), configMap('expired', 'a'));
  await database.pool.query('update compaction set compacted_resource_version = $1', [version + 1]);
  await assert.rejects(storage.openList(CM, { namespace: 'expired', exactVersion: version }), (e: unknown) => e instanceof StorageError && e.code === 'Expired');
  assert.equal(await openTransactions(), 0);
});

test('a cursor whose reader takes nothing for a while gives its connection back, and goes on at its version when read again', async () => {
  const ns = 'idle';
  for (let i = 0; i < 30; i++) await storage.create(key(ns, `cm-${String(i).padStart(2, '0')}`), configMap(ns, `cm-${String(i).padStart(2, '0')}`));
  const whole = await storage.list(CM, { namespace: ns });
  const source = { pool: database.pool, ref: CM, options: { namespace: ns }, slots: new Slots(1), cursor: { ...DEFAULT_LIST_CURSOR_OPTIONS, firstRows: 3, chunkBytes: 600, minRows: 2, maxRows: 7, idleMs: 100 } };
  const cursor = await PostgresListCursor.open(source);
  const items = [...(await cursor.next()), ...(await cursor.next())];
  assert.equal(await openTransactions(), 1);
  await new Promise((r) => setTimeout(r, 300));
  assert.equal(await openTransactions(), 0, 'idle: the connection went back');
  // Meanwhile the collection changes; the list goes on from the same snapshot.
  await storage.delete(key(ns, 'cm-29'));
  await storage.create(key(ns, 'cm-30'), configMap(ns, 'cm-30'));
  items.push(...(await drain(cursor)).items);
  assert.deepEqual(items, whole.items);
  await cursor.close();
  assert.equal(await openTransactions(), 0);

  // Once its version has left the history window, the list cannot go on: Expired.
  const late = await PostgresListCursor.open(source);
  await late.next();
  await new Promise((r) => setTimeout(r, 300));
  await database.pool.query('update compaction set compacted_resource_version = $1', [(await storage.currentVersion()) + 1]);
  await assert.rejects(drain(late), (e: unknown) => e instanceof StorageError && e.code === 'Expired');
  await late.close();
  assert.equal(await openTransactions(), 0);
});

test('cursors open at once are bounded (a share of the pool): one more waits until one closes', async () => {
  const source = { pool: database.pool, ref: CM, options: { namespace: 'chunks' }, slots: new Slots(1), cursor: { ...DEFAULT_LIST_CURSOR_OPTIONS, firstRows: 3, idleMs: 60_000 } };
  const first = await PostgresListCursor.open(source);
  let opened = false;
  const opening = PostgresListCursor.open(source).then((c) => {
    opened = true;
    return c;
  });
  await new Promise((r) => setTimeout(r, 200));
  assert.equal(opened, false, 'waits for a slot');
  // Other queries still get connections meanwhile.
  assert.equal((await database.pool.query('select 1 as one')).rows[0].one, 1);
  await first.close();
  const second = await opening;
  await second.close();
  assert.equal(await openTransactions(), 0);
});
