import { ApiError, notFound, type QualifiedResource } from '../api/errors.ts';
import type { NamespaceGate } from '../registry/resource-store.ts';
import type { Storage } from '../storage/storage.ts';

/**
 * The NamespaceLifecycle admission rule for creates: the namespace must exist and must not be
 * terminating. Reads the namespace each time (one primary-key lookup) so a just-created or
 * just-deleted namespace is never judged from stale state.
 */
export class NamespaceLifecycle implements NamespaceGate {
  readonly #storage: Storage;

  constructor(storage: Storage) {
    this.#storage = storage;
  }

  async assertWritable(namespace: string, resource: QualifiedResource, name: string): Promise<void> {
    const found = await this.#storage.get({ group: '', resource: 'namespaces', namespace: '', name: namespace });
    if (!found) throw notFound({ group: '', resource: 'namespaces' }, namespace);
    const phase = (found.object.status as { phase?: string } | undefined)?.phase;
    if (found.object.metadata.deletionTimestamp || phase === 'Terminating') {
      const qualified = resource.group ? `${resource.resource}.${resource.group}` : resource.resource;
      throw new ApiError(
        403,
        'Forbidden',
        `${qualified} "${name}" is forbidden: unable to create new content in namespace ${namespace} because it is being terminated`,
        {
          name,
          group: resource.group,
          kind: resource.resource,
          causes: [{ reason: 'NamespaceTerminating', message: `namespace ${namespace} is being terminated`, field: 'metadata.namespace' }],
        },
      );
    }
  }
}
