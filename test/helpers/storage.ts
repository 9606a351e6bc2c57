import pino from 'pino';
import { migrateUp, openDatabase, type Database } from '../../src/storage/postgres/database.ts';
import { PostgresStorage } from '../../src/storage/postgres/postgres-storage.ts';
import { createTestDatabase, type TestDatabase } from './database.ts';

export interface OpenedStorage {
  readonly testDb: TestDatabase;
  readonly database: Database;
  /** Started (its hub listens), polling every 200 ms in case a notification is missed. */
  readonly storage: PostgresStorage;
  /** Stops the storage, closes the pool and drops the database. */
  close(): Promise<void>;
}

/** A PostgresStorage on a fresh, migrated database, for storage-level tests without a server. */
export async function openTestStorage(prefix: string): Promise<OpenedStorage> {
  const logger = pino({ level: 'silent' });
  const testDb = await createTestDatabase(prefix);
  const database = await openDatabase({ url: testDb.url, logger });
  await migrateUp(database.db);
  const storage = new PostgresStorage({ database, logger, pollIntervalMs: 200 });
  await storage.start();
  return {
    testDb,
    database,
    storage,
    close: async () => {
      await storage.close();
      await database.close();
      await testDb.drop();
    },
  };
}
