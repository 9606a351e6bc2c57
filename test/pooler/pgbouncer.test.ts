import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import pg from 'pg';
import pino from 'pino';
import type { StoredKubeObject } from '../../src/api/types.ts';
import { migrateUp, openDatabase } from '../../src/storage/postgres/database.ts';
import { PostgresStorage } from '../../src/storage/postgres/postgres-storage.ts';
import type { ObjectKey } from '../../src/storage/storage.ts';
import { ADMIN_URL, createTestDatabase } from '../helpers/database.ts';
import { pgbouncerInstalled, startPgbouncer, type Pgbouncer } from '../helpers/pgbouncer.ts';
import { startServerProcess } from '../helpers/server-process.ts';
import { nodeArgsFor } from '../helpers/entry.ts';

const ROOT = path.resolve(import.meta.dirname, '../..');
const skip = pgbouncerInstalled() ? false : 'pgbouncer is not installed (apt-get install pgbouncer; .ci/run does)';

/** Suites whose servers run through the pooler: watches, every write verb, lists and paging. */
const SUITES = ['test/http/watch.test.ts', 'test/http/verbs.test.ts', 'test/http/lists.test.ts'];

function runSuites(poolerUrl: string): Promise<{ code: number | null; output: string }> {
  const env: NodeJS.ProcessEnv = { ...process.env, TEST_DATABASE_POOLER_URL: poolerUrl };
  // Without this the child would report to us as a subtest stream instead of running on its own.
  delete env.NODE_TEST_CONTEXT;
  const child = spawn(process.execPath, ['--test', ...nodeArgsFor(...SUITES)], { cwd: ROOT, env, stdio: ['ignore', 'pipe', 'pipe'] });
  let output = '';
  child.stdout.on('data', (c: Buffer) => (output += c.toString()));
  child.stderr.on('data', (c: Buffer) => (output += c.toString()));
  return new Promise((resolve) => child.once('exit', (code) => resolve({ code, output })));
}

function configMap(name: string): StoredKubeObject {
  return { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name, namespace: 'default', uid: randomUUID(), resourceVersion: '' }, data: { a: name } };
}

/** Rows history holds for these config maps (one per write that really happened). */
async function historyOf(dbUrl: string, names: string[]): Promise<Record<string, number>> {
  const client = new pg.Client({ connectionString: dbUrl });
  await client.connect();
  try {
    const res = await client.query<{ name: string; n: number }>(
      `select name, count(*)::int as n from history where resource = 'configmaps' and name = any($1) group by name`,
      [names],
    );
    return Object.fromEntries(res.rows.map((r) => [r.name, r.n]));
  } finally {
    await client.end();
  }
}

/** A pino logger whose records land in `records`. */
function capturingLogger(records: Record<string, unknown>[]) {
  return pino({ level: 'warn' }, { write: (line: string) => void records.push(JSON.parse(line)) });
}

// Side by side: each test has its own databases, and its own PgBouncer where pool settings matter.
describe('through PgBouncer in transaction mode', { skip, concurrency: true }, () => {
  let bouncer: Pgbouncer;
  before(async () => {
    bouncer = await startPgbouncer({ poolSize: 4 });
  });
  after(async () => {
    await bouncer?.stop();
  });

  test('the watch, write and list suites pass with DATABASE_URL through the pooler and LISTEN direct', { timeout: 120_000 }, async () => {
    const { code, output } = await runSuites(`postgres://127.0.0.1:${bouncer.port}`);
    assert.equal(code, 0, output.split('\n').filter((l) => /^not ok|^# (pass|fail)|Error/.test(l)).join('\n'));
    // The servers' traffic really went through PgBouncer: it counted their transactions.
    const stats = await bouncer.show('stats');
    const pooled = stats.filter((r) => r.database.startsWith('pgkube_test_'));
    assert.equal(pooled.length, SUITES.length, JSON.stringify(stats));
    for (const row of pooled) assert.ok(Number(row.total_xact_count) > 50, `${row.database}: ${row.total_xact_count} transactions`);
  });

  test('without --database-listen-url the server refuses to start, saying LISTEN gets nothing and naming the flag', { timeout: 60_000 }, async () => {
    const db = await createTestDatabase('pgkube_pooler');
    const dataDir = await mkdtemp(path.join(tmpdir(), 'pgkube-pooler-'));
    try {
      await assert.rejects(
        startServerProcess(bouncer.route(db.url), dataDir),
        (err: Error) => {
          assert.match(err.message, /server exited with 1/);
          assert.match(err.message, /LISTEN does not receive notifications on this connection/);
          assert.match(err.message, /transaction-mode connection pooler/);
          assert.match(err.message, /--database-listen-url/);
          return true;
        },
      );
    } finally {
      await rm(dataDir, { recursive: true, force: true });
      await db.drop();
    }
  });

  test('migrations leave no advisory lock behind on the pooled server connections', async () => {
    // Round robin over several warm server connections: consecutive statements outside a
    // transaction land on different ones, as they do on a busy pooler.
    const spread = await startPgbouncer({ poolSize: 4, roundRobin: true });
    const db = await createTestDatabase('pgkube_pooler');
    const database = await openDatabase({ url: spread.route(db.url), listenUrl: db.url, maxConnections: 4, logger: pino({ level: 'silent' }) });
    try {
      await Promise.all([1, 2, 3, 4].map(() => database.pool.query('select pg_sleep(0.05)')));
      await migrateUp(database.db);
      const admin = new pg.Client({ connectionString: ADMIN_URL });
      await admin.connect();
      try {
        const locks = await admin.query(
          `select count(*)::int as n from pg_locks l join pg_database d on d.oid = l.database where l.locktype = 'advisory' and d.datname = $1`,
          [db.name],
        );
        assert.equal(locks.rows[0].n, 0);
      } finally {
        await admin.end();
      }
      // A second run (another replica starting) gets the lock at once and finds nothing to do.
      const again = await migrateUp(database.db);
      assert.deepEqual(again.results, []);
    } finally {
      await database.close();
      await db.drop();
      await spread.stop();
    }
  });

  describe('named statements on a pooler nobody told us about (one shared server session)', () => {
    let shared: Pgbouncer;
    before(async () => {
      // One server connection for all clients: a second client that prepares a name the first
      // prepared gets 42P05, and DEALLOCATE from anyone makes the next Bind fail with 26000.
      shared = await startPgbouncer({ poolSize: 1 });
    });
    after(async () => {
      await shared?.stop();
    });

    const key = (name: string): ObjectKey => ({ group: '', resource: 'configmaps', namespace: 'default', name });

    test('42P05: concurrent writes switch the process to unnamed statements once and write each object once', async () => {
      const db = await createTestDatabase('pgkube_pooler');
      const records: Record<string, unknown>[] = [];
      const database = await openDatabase({ url: shared.route(db.url), maxConnections: 4, logger: capturingLogger(records) });
      try {
        await migrateUp(database.db);
        // start() is not called: its LISTEN check would (rightly) fail through this pooler.
        const storage = new PostgresStorage({ database, logger: capturingLogger(records) });
        // A storage sends one write batch at a time: concurrent writes on one connection pool come
        // from several storages (as from the workers of one server), each with its own batch.
        const others = [1, 2].map(() => new PostgresStorage({ database, logger: capturingLogger(records) }));
        const writers = [storage, ...others];
        assert.equal(database.queries.named, true);
        const names = ['dup-a', 'dup-b', 'dup-c'];
        const written = await Promise.all(names.map((n, i) => writers[i].create(key(n), configMap(n))));
        assert.equal(new Set(written.map((w) => w.resourceVersion)).size, names.length);
        assert.equal(database.queries.named, false);
        const warnings = records.filter((r) => r.level === 40);
        assert.equal(warnings.length, 1, JSON.stringify(records));
        assert.equal(warnings[0].code, '42P05');
        assert.match(String(warnings[0].msg), /transaction-mode connection pooler.*--database-listen-url/);
        assert.deepEqual(await historyOf(db.url, names), { 'dup-a': 1, 'dup-b': 1, 'dup-c': 1 });
        assert.deepEqual((await storage.get(key('dup-b')))?.object.data, { a: 'dup-b' });
      } finally {
        await database.close();
        await db.drop();
      }
    });

    test('with a listen URL the pool is taken as pooled: statements are unnamed from the start, nothing to fall back from', async () => {
      const db = await createTestDatabase('pgkube_pooler');
      const records: Record<string, unknown>[] = [];
      const database = await openDatabase({ url: shared.route(db.url), listenUrl: db.url, maxConnections: 4, logger: capturingLogger(records) });
      try {
        await migrateUp(database.db);
        const storage = new PostgresStorage({ database, logger: capturingLogger(records) });
        assert.equal(database.queries.named, false);
        const names = ['plain-a', 'plain-b', 'plain-c'];
        await Promise.all(names.map((n) => storage.create(key(n), configMap(n))));
        await Promise.all(names.map((n) => storage.get(key(n))));
        assert.deepEqual(records, []);
        assert.deepEqual(await historyOf(db.url, names), { 'plain-a': 1, 'plain-b': 1, 'plain-c': 1 });
      } finally {
        await database.close();
        await db.drop();
      }
    });

    test('26000: a write whose statement vanished from the server session is sent again unnamed, once', async () => {
      const db = await createTestDatabase('pgkube_pooler');
      const records: Record<string, unknown>[] = [];
      // One pg client, so the second write reuses the client that believes its statement is prepared.
      const database = await openDatabase({ url: shared.route(db.url), maxConnections: 1, logger: capturingLogger(records) });
      const other = new pg.Client({ connectionString: shared.route(db.url) });
      await other.connect();
      try {
        await migrateUp(database.db);
        const storage = new PostgresStorage({ database, logger: capturingLogger(records) });
        await other.query('deallocate all');
        await storage.create(key('gone-1'), configMap('gone-1'));
        await other.query('deallocate all');
        const second = await storage.create(key('gone-2'), configMap('gone-2'));
        assert.ok(second.resourceVersion > 0);
        assert.equal(database.queries.named, false);
        const warnings = records.filter((r) => r.level === 40);
        assert.equal(warnings.length, 1, JSON.stringify(records));
        assert.equal(warnings[0].code, '26000');
        assert.equal(warnings[0].statement, 'kube_write_batch');
        assert.deepEqual(await historyOf(db.url, ['gone-1', 'gone-2']), { 'gone-1': 1, 'gone-2': 1 });
      } finally {
        await other.end();
        await database.close();
        await db.drop();
      }
    });
  });
});
