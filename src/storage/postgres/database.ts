import { Kysely, Migrator, PostgresDialect, sql, type MigrationResultSet } from 'kysely';
import pg from 'pg';
import type { Logger } from 'pino';
import { migrations } from '../../../migrations/index.ts';
import { connectionPlan, type ConnectionPlan } from './connection-options.ts';
import { PreparedQueries } from './prepared-queries.ts';
import { settleConnection } from './settle-connection.ts';

// bigint columns come back as strings; callers convert the few they read.
export interface Database {
  pool: pg.Pool;
  db: Kysely<unknown>;
  /** The named hot queries, or unnamed ones where the pool is pooled. */
  queries: PreparedQueries;
  /** Settings of the dedicated LISTEN connection (the watch hub's). */
  listenConnection: pg.ClientConfig;
  /** --database-statement-timeout in ms (0: none): how long a request's statement may go unanswered. */
  statementTimeoutMs: number;
  /** --database-connect-timeout in ms (0: none): how long a write may wait to be sent. */
  connectTimeoutMs: number;
  close(): Promise<void>;
}

export interface DatabaseOptions {
  /** --database-url. */
  readonly url: string;
  /**
   * --database-listen-url: a direct connection for LISTEN. Setting it says the main URL goes through
   * a transaction-mode pooler, so the pool keeps no session state (no named statements).
   */
  readonly listenUrl?: string;
  /** --database-ca-file: a root CA for URLs without sslrootcert. */
  readonly caFile?: string;
  readonly maxConnections?: number;
  /**
   * --database-connect-timeout: opening a connection, and waiting for a free one of the pool (pg-pool
   * uses the one setting for both). Neither has sent a statement, so a request failing here applied nothing.
   */
  readonly connectTimeoutMs?: number;
  /** --database-statement-timeout: see PreparedQueries. */
  readonly statementTimeoutMs?: number;
  readonly logger: Logger;
}

/**
 * Opens the pool. TLS is settled first with one connection per URL (see settle-connection.ts), so
 * a wrong certificate or an unreachable server fails here with a clear error.
 */
export async function openDatabase(options: DatabaseOptions): Promise<Database> {
  const connectTimeoutMs = options.connectTimeoutMs ?? 0;
  const statementTimeoutMs = options.statementTimeoutMs ?? 0;
  // A database that accepts TCP but does not answer (frozen, blackholed) must not hang a connect for ever.
  const bounded = (plan: ConnectionPlan): ConnectionPlan =>
    connectTimeoutMs > 0 ? { ...plan, base: { ...plan.base, connectionTimeoutMillis: connectTimeoutMs } } : plan;
  const main = await settleConnection(bounded(await connectionPlan(options.url, { setting: '--database-url', caFile: options.caFile })));
  const listenConnection = options.listenUrl
    ? await settleConnection(bounded(await connectionPlan(options.listenUrl, { setting: '--database-listen-url', caFile: options.caFile })))
    : main;
  // Named so operators can tell the server's connections apart in pg_stat_activity (a URL's own wins).
  const pool = new pg.Pool({ application_name: 'pgkube', ...main, max: options.maxConnections ?? 20 });
  // An idle client that errors (server restart) must not crash the process; the next query reconnects.
  pool.on('error', () => undefined);
  const db = new Kysely<unknown>({ dialect: new PostgresDialect({ pool }) });
  return {
    pool,
    db,
    queries: new PreparedQueries(pool, { pooled: Boolean(options.listenUrl), statementTimeoutMs, logger: options.logger }),
    listenConnection: { application_name: 'pgkube-listen', ...listenConnection },
    statementTimeoutMs,
    connectTimeoutMs,
    close: async () => {
      // Kysely ends the pool only if it ever used it (its driver starts lazily); end it here otherwise.
      await db.destroy();
      if (!pool.ended) await pool.end();
    },
  };
}

const MIGRATION_TABLE = 'kysely_migration';

function migrator(db: Kysely<unknown>): Migrator {
  return new Migrator({ db, provider: { getMigrations: async () => migrations } });
}

/** Serialises migrators across processes; any constant no other lock user in the database takes. */
const MIGRATION_LOCK_ID = 7158325002;

/**
 * Runs a migration step in one transaction that first takes a transaction-level advisory lock.
 * Kysely's own Postgres lock is session-level: pg_advisory_lock, its transaction, then
 * pg_advisory_unlock, as three separate statements. Through a transaction-mode pooler those can
 * land on three server connections, and the lock stays held on the first one (blocking every later
 * migration) while the unlock fails on another. Inside one transaction every statement, Kysely's
 * lock and unlock included, runs on one server connection, and the lock ends with the commit.
 * Without Kysely's transaction (disableTransactions) the outcome is the same: all or nothing.
 */
async function migrateLocked(
  db: Kysely<unknown>,
  step: (m: Migrator) => Promise<MigrationResultSet>,
): Promise<MigrationResultSet> {
  return db.connection().execute(async (conn) => {
    await sql`begin`.execute(conn);
    let result: MigrationResultSet;
    try {
      await sql`select pg_advisory_xact_lock(${sql.lit(MIGRATION_LOCK_ID)})`.execute(conn);
      await assertKnownSchema(conn);
      result = await step(new Migrator({ db: conn, provider: { getMigrations: async () => migrations }, disableTransactions: true }));
    } catch (err) {
      await sql`rollback`.execute(conn).catch(() => undefined);
      throw err;
    }
    await sql.raw(result.error ? 'rollback' : 'commit').execute(conn);
    return result;
  });
}

/** Names of applied migrations this build does not know: a newer server wrote this schema. */
export async function unknownAppliedMigrations(db: Kysely<unknown>): Promise<string[]> {
  const exists = await sql<{ t: string | null }>`select to_regclass(${MIGRATION_TABLE}) as t`.execute(db);
  if (!exists.rows[0]?.t) return [];
  const applied = await sql<{ name: string }>`select name from ${sql.table(MIGRATION_TABLE)} order by name`.execute(db);
  return applied.rows.map((r) => r.name).filter((name) => !(name in migrations));
}

export class SchemaTooNewError extends Error {
  constructor(readonly unknown: string[]) {
    super(
      `the database schema is newer than this server knows (unknown migrations: ${unknown.join(', ')}); ` +
        'run a newer server, or roll the schema back with that newer build\'s "npm run migrate -- down"',
    );
    this.name = 'SchemaTooNewError';
  }
}

async function assertKnownSchema(db: Kysely<unknown>): Promise<void> {
  const unknown = await unknownAppliedMigrations(db);
  if (unknown.length > 0) throw new SchemaTooNewError(unknown);
}

function check(result: MigrationResultSet): MigrationResultSet {
  if (result.error) throw result.error instanceof Error ? result.error : new Error(String(result.error));
  return result;
}

export async function migrateUp(db: Kysely<unknown>): Promise<MigrationResultSet> {
  return check(await migrateLocked(db, (m) => m.migrateToLatest()));
}

export async function migrateDown(db: Kysely<unknown>): Promise<MigrationResultSet> {
  return check(await migrateLocked(db, (m) => m.migrateDown()));
}

export interface MigrationStatus {
  name: string;
  executedAt?: Date;
}

export async function migrationStatus(db: Kysely<unknown>): Promise<{ known: MigrationStatus[]; unknown: string[] }> {
  const unknown = await unknownAppliedMigrations(db);
  const info = await migrator(db).getMigrations();
  return { known: info.map((m) => ({ name: m.name, executedAt: m.executedAt })), unknown };
}

/** Pending migrations (the server refuses to serve a schema it has not brought up to date). */
export async function pendingMigrations(db: Kysely<unknown>): Promise<string[]> {
  await assertKnownSchema(db);
  const info = await migrator(db).getMigrations();
  return info.filter((m) => !m.executedAt).map((m) => m.name);
}
