import assert from 'node:assert/strict';
import pino from 'pino';
import { migrateUp, openDatabase, type Database } from '../../src/storage/postgres/database.ts';
import { PostgresStorage } from '../../src/storage/postgres/postgres-storage.ts';
import { createTestDatabase, type TestDatabase } from './database.ts';

export interface OpenedDatabase {
  readonly testDb: TestDatabase;
  /** The server's database layer (pool, prepared queries) on it. */
  readonly database: Database;
  /** Closes the pool and drops the database. */
  close(): Promise<void>;
}

/** A fresh database with the migrations run, opened as the server opens its own, without storage on it. */
export async function openTestDatabase(prefix: string): Promise<OpenedDatabase> {
  const testDb = await createTestDatabase(prefix);
  const database = await openDatabase({ url: testDb.url, logger: pino({ level: 'silent' }) });
  await migrateUp(database.db);
  return {
    testDb,
    database,
    close: async () => {
      await database.close();
      await testDb.drop();
    },
  };
}

export interface OpenedStorage extends OpenedDatabase {
  /** Started (its hub listens), polling every 200 ms in case a notification is missed. */
  readonly storage: PostgresStorage;
  /** Stops the storage, closes the pool and drops the database. */
  close(): Promise<void>;
}

/** A PostgresStorage on a fresh, migrated database, for storage-level tests without a server. */
export async function openTestStorage(prefix: string): Promise<OpenedStorage> {
  const opened = await openTestDatabase(prefix);
  const storage = new PostgresStorage({ database: opened.database, logger: pino({ level: 'silent' }), pollIntervalMs: 200 });
  await storage.start();
  return {
    ...opened,
    storage,
    close: async () => {
      await storage.close();
      await opened.close();
    },
  };
}

/** Waits for `probe` to hold, checking every 25 ms, `attempts` times at most; fails naming `what`. */
export async function until(probe: () => boolean, what: string, attempts = 400): Promise<void> {
  for (let i = 0; i < attempts && !probe(); i++) await new Promise((r) => setTimeout(r, 25));
  assert.ok(probe(), what);
}
