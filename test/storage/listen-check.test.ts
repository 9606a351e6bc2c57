import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import pg from 'pg';
import pino from 'pino';
import { migrateUp, openDatabase, type Database } from '../../src/storage/postgres/database.ts';
import { PostgresStorage } from '../../src/storage/postgres/postgres-storage.ts';
import { PreparedQueries } from '../../src/storage/postgres/prepared-queries.ts';
import { createTestDatabase, type TestDatabase } from '../helpers/database.ts';

const logger = pino({ level: 'silent' });
let testDb: TestDatabase;
let otherDb: TestDatabase;
let database: Database;

before(async () => {
  [testDb, otherDb] = await Promise.all([createTestDatabase('pgkube_listen'), createTestDatabase('pgkube_listen_other')]);
  database = await openDatabase({ url: testDb.url, logger });
  await migrateUp(database.db);
});

after(async () => {
  await database.close();
  await Promise.all([testDb.drop(), otherDb.drop()]);
});

/** The real queries, counting how often the hub reads new history. */
class CountingQueries extends PreparedQueries {
  fetches = 0;
  override query<R extends pg.QueryResultRow = any>(name: string, text: string, values?: unknown[]): Promise<pg.QueryResult<R>> {
    if (name === 'watch_hub_fetch_watched') this.fetches++;
    return super.query<R>(name, text, values);
  }
}

async function notify(payload: string): Promise<void> {
  await database.pool.query(`select pg_notify('kube_changes', $1)`, [payload]);
}

test('start() proves LISTEN works with one probe that is back in milliseconds', async () => {
  const storage = new PostgresStorage({ database, logger });
  const began = performance.now();
  await storage.start();
  const took = performance.now() - began;
  await storage.close();
  assert.ok(took < 1000, `start took ${took} ms`);
});

test('start() fails clearly when the LISTEN connection never receives what the pool notifies', async () => {
  // NOTIFY reaches listeners of the same database only: a LISTEN connection to another database
  // hears nothing, as one that a transaction-mode pooler parked on some server connection.
  const storage = new PostgresStorage({
    database: { ...database, listenConnection: { connectionString: otherDb.url } },
    logger,
    listenCheckTimeoutMs: 300,
  });
  const began = performance.now();
  await assert.rejects(storage.start(), (err: Error) => {
    assert.match(err.message, /^LISTEN does not receive notifications on this connection/);
    assert.match(err.message, /within 300 ms/);
    assert.match(err.message, /transaction-mode connection pooler \(PgBouncer, cloud poolers\)/);
    assert.match(err.message, /set --database-listen-url \(DATABASE_LISTEN_URL\) to a direct connection/);
    return true;
  });
  assert.ok(performance.now() - began < 3000);
  // The failed hub let its LISTEN connection go (a leak would also keep this test process alive).
  const listeners = await database.pool.query(
    `select count(*)::int as n from pg_stat_activity where datname = $1 and query ilike 'listen%'`,
    [otherDb.name],
  );
  assert.equal(listeners.rows[0].n, 0);
});

test('probe payloads from other starting servers are ignored; version payloads make the hub read', async () => {
  const queries = new CountingQueries(database.pool, { pooled: false, logger });
  const storage = new PostgresStorage({ database: { ...database, queries }, logger, pollIntervalMs: 60_000 });
  await storage.start();
  try {
    const settle = () => new Promise((r) => setTimeout(r, 300));
    await settle();
    const before = queries.fetches;
    await notify('probe:someone-else');
    await settle();
    assert.equal(queries.fetches, before);
    await notify(String(Number.MAX_SAFE_INTEGER));
    await settle();
    assert.equal(queries.fetches, before + 1);
  } finally {
    await storage.close();
  }
});
