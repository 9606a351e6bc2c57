import pino from 'pino';
import { seedBootstrapNamespaces } from '../../seeds/bootstrap-namespaces.ts';
import { AdmissionChain, NO_ADMISSION } from '../../src/admission/chain.ts';
import { NamespaceLifecycle } from '../../src/admission/namespace-lifecycle.ts';
import type { AdmissionPlugin } from '../../src/admission/plugin.ts';
import { systemContext, type RequestContext } from '../../src/api/request-context.ts';
import { builtinKinds } from '../../src/kinds/index.ts';
import { ApiSurface } from '../../src/registry/api-surface.ts';
import type { KindDefinition } from '../../src/registry/kind.ts';
import { ResourceStore } from '../../src/registry/resource-store.ts';
import { Informer } from '../../src/registry/informer.ts';
import { namespaces } from '../../src/kinds/namespace.ts';
import { migrateUp, openDatabase, type Database } from '../../src/storage/postgres/database.ts';
import { PostgresStorage } from '../../src/storage/postgres/postgres-storage.ts';
import { createTestDatabase, dropInBackground, type TestDatabase } from './database.ts';

/** The registry (stores, admission) on a fresh PostgreSQL database, without HTTP. */
export interface TestRegistry {
  readonly storage: PostgresStorage;
  readonly surface: ApiSurface;
  /** The store of a served kind by its plural (and group, for kinds outside the core group). */
  store(plural: string, group?: string): ResourceStore;
  close(): Promise<void>;
}

export interface TestRegistryOptions {
  /** Kinds to serve; default every built-in kind. */
  readonly kinds?: readonly KindDefinition[];
  /** Admission plugins after NamespaceLifecycle (which always runs first, as by default). */
  readonly plugins?: readonly AdmissionPlugin[];
}

/**
 * Opens a migrated fresh database, the storage on it, NamespaceLifecycle and the given plugins, and
 * a surface of the given kinds, with the bootstrap namespaces created (namespaced objects need one).
 */
export async function openTestRegistry(options: TestRegistryOptions = {}): Promise<TestRegistry> {
  const logger = pino({ level: process.env.TEST_LOG_LEVEL ?? 'silent' });
  // Already migrated (a copy of the template); migrateUp below finds nothing to do.
  const db: TestDatabase = await createTestDatabase(undefined, { migrated: true });
  const database: Database = await openDatabase({ url: db.url, logger });
  await migrateUp(database.db);
  const storage = new PostgresStorage({ database, logger });
  await storage.start();
  const namespaceStore = new ResourceStore(namespaces, storage, NO_ADMISSION);
  const namespaceView = new Informer(namespaceStore, { logger });
  await namespaceView.start();
  const lifecycle = new NamespaceLifecycle(namespaceStore, namespaceView);
  const surface = new ApiSurface(options.kinds ?? builtinKinds, storage, new AdmissionChain([lifecycle, ...(options.plugins ?? [])]));
  if (surface.findStore('', 'namespaces')) await seedBootstrapNamespaces(storage);
  return {
    storage,
    surface,
    store: (plural, group = '') => surface.storeFor(group, plural),
    close: async () => {
      namespaceView.stop();
      await storage.close();
      await database.close();
      dropInBackground(db); // nothing reads it again; no need to wait for the drop's checkpoint
    },
  };
}

/** A request context for tests: an admin user, optionally dry-run or aimed at a subresource. */
export function testContext(options: { dryRun?: boolean; subresource?: string } = {}): RequestContext {
  return systemContext({ user: { name: 'test-admin', groups: ['system:masters', 'system:authenticated'] }, ...options });
}
