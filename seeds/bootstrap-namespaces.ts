import { NO_ADMISSION } from '../src/admission/chain.ts';
import { namespaces } from '../src/kinds/namespace.ts';
import { ResourceStore } from '../src/registry/resource-store.ts';
import { storageRefOf } from '../src/registry/storage-view.ts';
import type { Storage } from '../src/storage/storage.ts';
import { systemContext } from '../src/api/request-context.ts';
import { ApiError } from '../src/api/errors.ts';

/** The namespaces every cluster starts with. */
export const BOOTSTRAP_NAMESPACES = ['default', 'kube-system', 'kube-public', 'kube-node-lease'] as const;

/**
 * Creates the bootstrap namespaces that are missing (idempotent; safe with several replicas starting
 * at once). The server's own objects do not pass admission: a plugin that refuses writes (AlwaysDeny,
 * a webhook that is down) must not keep the server from starting.
 */
export async function seedBootstrapNamespaces(storage: Storage): Promise<string[]> {
  const store = new ResourceStore(namespaces, storage, NO_ADMISSION);
  const created: string[] = [];
  for (const name of BOOTSTRAP_NAMESPACES) {
    // Every start but the first finds them: a read spares the whole create path answering AlreadyExists.
    if (await storage.get({ ...storageRefOf(namespaces), namespace: '', name })) continue;
    try {
      await store.create(systemContext(), '', { apiVersion: 'v1', kind: 'Namespace', metadata: { name } });
      created.push(name);
    } catch (err) {
      if (err instanceof ApiError && err.reason === 'AlreadyExists') continue;
      throw err;
    }
  }
  return created;
}
