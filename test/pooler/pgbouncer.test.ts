import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import pg from 'pg';
import { migrateUp, openDatabase } from '../../src/storage/postgres/database.ts';
import { ADMIN_URL, createTestDatabase } from '../helpers/database.ts';
import { pgbouncerInstalled, startPgbouncer } from '../helpers/pgbouncer.ts';

const skip = pgbouncerInstalled() ? false : 'pgbouncer is not installed (apt-get install pgbouncer; .ci/run does)';

describe('through PgBouncer in transaction mode', { skip }, () => {
  test('migrations leave no advisory lock behind on the pooled server connections', async () => {
    // Round robin over several warm server connections: consecutive statements outside a
    // transaction land on different ones, as they do on a busy pooler.
    const spread = await startPgbouncer({ poolSize: 4, roundRobin: true });
    const db = await createTestDatabase('pgkube_pooler');
    const database = openDatabase(spread.route(db.url), 4);
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
});
