import type { ApiSurface } from '../src/registry/api-surface.ts';
import { systemContext } from '../src/api/request-context.ts';
import { ApiError } from '../src/api/errors.ts';

/** The namespaces every cluster starts with. */
export const BOOTSTRAP_NAMESPACES = ['default', 'kube-system', 'kube-public', 'kube-node-lease'] as const;

/** Creates the bootstrap namespaces that are missing (idempotent; safe with several replicas starting at once). */
export async function seedBootstrapNamespaces(surface: ApiSurface): Promise<string[]> {
  const store = surface.storeFor('', 'namespaces');
  const created: string[] = [];
  for (const name of BOOTSTRAP_NAMESPACES) {
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
