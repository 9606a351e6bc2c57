import { spawn } from 'node:child_process';
import { createHash, randomBytes } from 'node:crypto';
import { readdir, readFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import pg from 'pg';
import pino from 'pino';

/** The machine's PostgreSQL (trust auth); TEST_DATABASE_ADMIN_URL overrides. */
export const ADMIN_URL = process.env.TEST_DATABASE_ADMIN_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';

export interface TestDatabase {
  readonly url: string;
  readonly name: string;
  drop(): Promise<void>;
}

/**
 * The database settings a server under test gets. When TEST_DATABASE_POOLER_URL names a pooler in
 * front of the test PostgreSQL (its host and port are used), the server runs as it would behind
 * PgBouncer in production: DATABASE_URL through the pooler, DATABASE_LISTEN_URL direct.
 */
export function serverDatabaseEnv(db: TestDatabase): Record<string, string> {
  const pooler = process.env.TEST_DATABASE_POOLER_URL;
  if (!pooler) return { DATABASE_URL: db.url };
  const { hostname, port } = new URL(pooler);
  const pooled = new URL(db.url);
  pooled.hostname = hostname;
  pooled.port = port;
  return { DATABASE_URL: pooled.toString(), DATABASE_LISTEN_URL: db.url };
}

export interface TestDatabaseOptions {
  /**
   * Start from the latest schema: the database is a copy (CREATE DATABASE ... TEMPLATE) of one
   * migrated template, made once per set of migrations, instead of an empty one. Copying is cheaper
   * than running the migrations in every test server; the server's own migrate step then finds
   * nothing pending, as on a restart. Tests of migrating itself use an empty database (the default).
   */
  readonly migrated?: boolean;
  /**
   * Copy this database instead (a template from `templateDatabase`); takes precedence over `migrated`.
   */
  readonly template?: string;
}

/** A fresh, uniquely named database; `drop()` removes it (connections are terminated first). */
export async function createTestDatabase(prefix = 'pgkube_test', options: TestDatabaseOptions = {}): Promise<TestDatabase> {
  const name = `${prefix}_${Date.now().toString(36)}_${randomBytes(3).toString('hex')}`;
  const template = options.template ?? (options.migrated ? await migratedTemplate() : undefined);
  const admin = new pg.Client({ connectionString: ADMIN_URL });
  await admin.connect();
  try {
    await admin.query(template ? `create database "${name}" template "${template}"` : `create database "${name}"`);
  } finally {
    await admin.end();
  }
  return { url: databaseUrl(name), name, drop: () => dropDatabase(name) };
}

function databaseUrl(name: string): string {
  const url = new URL(ADMIN_URL);
  url.pathname = `/${name}`;
  return url.toString();
}

/**
 * Holds every read and write of the objects table of the database at `url` until released: a
 * transaction of the caller's own holds it in ACCESS EXCLUSIVE mode, so statements wait in PostgreSQL
 * (requests held in flight, reads made slow for real).
 */
export async function lockObjectsTable(url: string): Promise<{ release(): Promise<void> }> {
  const db = new pg.Client({ connectionString: url });
  await db.connect();
  await db.query('begin');
  await db.query('lock table objects in access exclusive mode');
  return {
    release: async () => {
      await db.query('commit');
      await db.end();
    },
  };
}

/** Drops a database, terminating its connections first. */
async function dropDatabase(name: string): Promise<void> {
  const c = new pg.Client({ connectionString: ADMIN_URL });
  await c.connect();
  try {
    await c.query(`drop database if exists "${name}" with (force)`);
  } finally {
    await c.end();
  }
}

const MIGRATIONS_DIR = new URL('../../migrations/', import.meta.url);
/** Serialises the making of templates across test processes (any constant no other lock user takes). */
const TEMPLATE_LOCK_ID = 7158325003;
let migratedName: Promise<string> | undefined;

/**
 * The name of a database holding the schema of this tree's migrations, made when missing. Its name
 * carries a digest of the migration sources, so an edited migration gets a new template.
 */
export function migratedTemplate(): Promise<string> {
  return (migratedName ??= (async () => {
    const hash = createHash('sha256');
    for (const file of (await readdir(MIGRATIONS_DIR)).sort()) hash.update(file).update(await readFile(new URL(file, MIGRATIONS_DIR)));
    return templateDatabase(`pgkube_template_${hash.digest('hex').slice(0, 16)}`, async (url) => {
      // Imported here: only this path needs the server's migration code.
      const { migrateUp, openDatabase } = await import('../../src/storage/postgres/database.ts');
      const database = await openDatabase({ url, logger: pino({ level: 'silent' }) });
      try {
        await migrateUp(database.db);
      } finally {
        await database.close();
      }
    });
  })().catch((err) => {
    migratedName = undefined;
    throw err;
  }));
}

/**
 * Makes database `name` with `fill` (given its URL, starting from an empty database or a copy of
 * `from`) unless it exists; one test process makes it while the others wait. It is filled under another name and
 * renamed when complete, so that a half-made one is never copied; `fill` must leave no connection
 * to it behind (CREATE DATABASE refuses a template in use).
 */
export async function templateDatabase(name: string, fill: (url: string) => Promise<void>, from?: string): Promise<string> {
  const admin = new pg.Client({ connectionString: ADMIN_URL });
  await admin.connect();
  try {
    const exists = async () => (await admin.query('select 1 from pg_database where datname = $1', [name])).rowCount === 1;
    if (await exists()) return name;
    await admin.query('select pg_advisory_lock($1)', [TEMPLATE_LOCK_ID]);
    if (await exists()) return name;
    const building = `${name}_building`;
    await admin.query(`drop database if exists "${building}" with (force)`);
    await admin.query(from ? `create database "${building}" template "${from}"` : `create database "${building}"`);
    await fill(databaseUrl(building));
    await admin.query(`alter database "${building}" rename to "${name}"`);
    return name;
  } finally {
    await admin.end(); // ends the session, and with it the advisory lock
  }
}

const PG_MODULE = createRequire(import.meta.url).resolve('pg');

/**
 * Drops the database from a detached process, so that the test process need not wait: on PostgreSQL
 * 15 every DROP DATABASE waits for an immediate checkpoint (about a second on a busy machine), which
 * is cleanup, not something a test checks. For databases nothing reads after the test.
 */
export function dropInBackground(db: TestDatabase): void {
  // A few tries: PostgreSQL may refuse a connection for a moment when many tests run at once.
  const script = `const pg = require(process.argv[1]);
(async () => {
  for (let attempt = 0; attempt < 10; attempt++) {
    const c = new pg.Client({ connectionString: process.argv[2] });
    try {
      await c.connect();
      await c.query('drop database if exists "' + process.argv[3] + '" with (force)');
      return;
    } catch {
      await new Promise((r) => setTimeout(r, 1000));
    } finally {
      await c.end().catch(() => {});
    }
  }
})();`;
  const env = { ...process.env };
  delete env.NODE_TEST_CONTEXT; // not a test process
  delete env.NODE_OPTIONS; // nor one that needs tsx
  spawn(process.execPath, ['-e', script, PG_MODULE, ADMIN_URL, db.name], { detached: true, stdio: 'ignore', env }).unref();
}
