import cluster from 'node:cluster';
import type { Logger } from 'pino';
import type { Closers } from '../closers.ts';
import type { Config } from '../config.ts';
import { prepareDataDir } from '../data-dir.ts';
import { StartupError } from '../startup-error.ts';
import { migrateUp, openDatabase, pendingMigrations, type Database } from '../storage/postgres/database.ts';
import { startEmbeddedPostgres } from '../storage/postgres/embedded/embedded-postgres.ts';
import { PostgresStorage } from '../storage/postgres/postgres-storage.ts';

/**
 * Start-up step: the database (the embedded PostgreSQL in the data dir unless --database-url names
 * one), its schema (migrated, or refused with pending migrations) and the storage on it.
 */
export async function openStorage(config: Config, logger: Logger, closers: Closers): Promise<{ database: Database; storage: PostgresStorage }> {
  const database = await openDatabase({
    url: await reachDatabase(config, logger, closers),
    listenUrl: config.databaseListenUrl,
    caFile: config.databaseCaFile,
    maxConnections: config.databaseMaxConnections,
    connectTimeoutMs: config.databaseConnectTimeoutMs,
    statementTimeoutMs: config.databaseStatementTimeoutMs,
    logger,
  });
  closers.add('database', () => database.close());
  await migrateOrRefuse(config, database, logger);
  const storage = new PostgresStorage({ database, logger });
  closers.add('storage', () => storage.close());
  await storage.start();
  return { database, storage };
}

/**
 * The URL of the database: --database-url, or the embedded PostgreSQL started in the data dir.
 * The data dir is prepared here too, except in a worker process (its primary did both, see
 * startup/workers/primary.ts, and a worker must not loosen the mode the embedded PostgreSQL needs).
 */
export async function reachDatabase(config: Config, logger: Logger, closers: Closers): Promise<string> {
  if (!config.databaseUrl) {
    const embedded = await startEmbeddedPostgres({ dataDir: config.dataDir, port: config.embeddedPostgresPort, logger });
    closers.add('embedded-postgres', () => embedded.stop());
    return embedded.url;
  }
  if (!cluster.isWorker) await prepareDataDir(config.dataDir, logger);
  return config.databaseUrl;
}

/** The schema: migrated with --auto-migrate, else refused while migrations are pending. */
export async function migrateOrRefuse(config: Config, database: Database, logger: Logger): Promise<void> {
  if (config.autoMigrate) {
    const result = await migrateUp(database.db);
    for (const r of result.results ?? []) logger.info({ migration: r.migrationName, status: r.status }, 'migration');
  } else {
    const pending = await pendingMigrations(database.db);
    if (pending.length > 0) {
      throw new StartupError(`the database schema has pending migrations (${pending.join(', ')}); run "npm run migrate -- up" or start with --auto-migrate=true`);
    }
  }
}
