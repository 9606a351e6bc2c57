import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import path from 'node:path';
import { after, before, test } from 'node:test';
import pg from 'pg';
import pino from 'pino';
import { loadConfig } from '../../src/config.ts';
import { startServer } from '../../src/server.ts';
import { SchemaTooNewError } from '../../src/storage/postgres/database.ts';
import { createTestDatabase, type TestDatabase } from '../helpers/database.ts';
import { nodeArgsFor } from '../helpers/entry.ts';

const ROOT = path.resolve(import.meta.dirname, '../..');
let db: TestDatabase;

before(async () => {
  db = await createTestDatabase('pgkube_migrate');
});
after(async () => {
  await db.drop();
});

function migrate(...args: string[]) {
  const r = spawnSync(process.execPath, [...nodeArgsFor('src/migrate-cli.ts'), ...args, `--database-url=${db.url}`], {
    cwd: ROOT,
    encoding: 'utf8',
  });
  return { code: r.status, out: r.stdout, err: r.stderr };
}

function config(...flags: string[]) {
  return loadConfig(['--secure-port=0', '--data-dir=/tmp/pgkube-migrate-test', ...flags], { DATABASE_URL: db.url });
}

test('migrate status, up and down report what they do', () => {
  const fresh = migrate('status');
  assert.equal(fresh.code, 0);
  assert.match(fresh.out, /^pending {2}0001-core-tables$/m);
  const up = migrate('up');
  assert.equal(up.code, 0, up.err);
  assert.match(up.out, /applied {2}0002-write-function {2}Success/);
  assert.match(migrate('up').out, /already up to date/);
  const down = migrate('down');
  assert.match(down.out, /rolled back {2}0005-lean-write-function/);
  assert.match(migrate('status').out, /^pending {2}0005-lean-write-function$/m);
  assert.equal(migrate('sideways').code, 2);
});

test('with --auto-migrate=false the server refuses a schema that has pending migrations', async () => {
  await assert.rejects(startServer(config('--auto-migrate=false'), pino({ level: 'silent' })), /pending migrations \(0005-lean-write-function\)/);
});

test('the server refuses to start on a schema newer than it knows', async () => {
  assert.equal(migrate('up').code, 0);
  const c = new pg.Client({ connectionString: db.url });
  await c.connect();
  await c.query(`insert into kysely_migration (name, timestamp) values ('9999-from-the-future', now()::text)`);
  await c.end();
  await assert.rejects(startServer(config(), pino({ level: 'silent' })), (err: unknown) => {
    assert.ok(err instanceof SchemaTooNewError);
    assert.match(err.message, /newer than this server knows \(unknown migrations: 9999-from-the-future\)/);
    return true;
  });
  const status = migrate('status');
  assert.equal(status.code, 1);
  assert.match(status.out, /unknown {2}9999-from-the-future/);
});
