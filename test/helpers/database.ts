import { randomBytes } from 'node:crypto';
import pg from 'pg';

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

/** A fresh, uniquely named database; `drop()` removes it (connections are terminated first). */
export async function createTestDatabase(prefix = 'pgkube_test'): Promise<TestDatabase> {
  const name = `${prefix}_${Date.now().toString(36)}_${randomBytes(3).toString('hex')}`;
  const admin = new pg.Client({ connectionString: ADMIN_URL });
  await admin.connect();
  try {
    await admin.query(`create database "${name}"`);
  } finally {
    await admin.end();
  }
  const url = new URL(ADMIN_URL);
  url.pathname = `/${name}`;
  return {
    url: url.toString(),
    name,
    drop: async () => {
      const c = new pg.Client({ connectionString: ADMIN_URL });
      await c.connect();
      try {
        await c.query(`drop database if exists "${name}" with (force)`);
      } finally {
        await c.end();
      }
    },
  };
}
