import pino from 'pino';
import type { StoredKubeObject } from '../../src/api/types.ts';
import { gadgetKind } from '../helpers/test-kinds.ts';
import { storageFor } from '../../src/registry/storage-view.ts';
import { migrateUp, openDatabase } from '../../src/storage/postgres/database.ts';
import { PostgresStorage } from '../../src/storage/postgres/postgres-storage.ts';
import { createTestDatabase } from '../helpers/database.ts';
import { storageConformance, type StorageUnderTest } from './conformance.ts';

const logger = pino({ level: 'silent' });

async function openPostgres(): Promise<{ storage: PostgresStorage; close(): Promise<void> }> {
  const db = await createTestDatabase('pgkube_conformance');
  const database = await openDatabase({ url: db.url, logger });
  await migrateUp(database.db);
  const storage = new PostgresStorage({ database, logger, pollIntervalMs: 200, futureVersionWaitMs: 300 });
  await storage.start();
  return {
    storage,
    close: async () => {
      await storage.close();
      await database.close();
      await db.drop();
    },
  };
}

storageConformance('PostgresStorage', async (): Promise<StorageUnderTest> => {
  const pg = await openPostgres();
  return { storage: pg.storage, ref: { group: '', resource: 'configmaps' }, close: pg.close };
});

/** A kind kept in another resource's storage, converted on the way in and out (as events.k8s.io Events are). */
const MARK = 'test.example.com/stored-as';
const mapped = gadgetKind({
  storage: {
    group: '',
    resource: 'configmaps',
    toStorage: (o) => ({ ...o, metadata: { ...o.metadata, annotations: { ...(o.metadata?.annotations ?? {}), [MARK]: 'configmap' } } }),
    fromStorage: (o) => {
      const { [MARK]: _mark, ...annotations } = (o.metadata?.annotations ?? {}) as Record<string, string>;
      const metadata = { ...o.metadata } as StoredKubeObject['metadata'];
      if (Object.keys(annotations).length > 0) metadata.annotations = annotations;
      else delete metadata.annotations;
      return { ...o, metadata };
    },
  },
});

storageConformance('a converting view (storageFor a kind stored as another)', async (): Promise<StorageUnderTest> => {
  const pg = await openPostgres();
  return { storage: storageFor(mapped, pg.storage), ref: { group: 'test.example.com', resource: 'gadgets' }, close: pg.close };
});
