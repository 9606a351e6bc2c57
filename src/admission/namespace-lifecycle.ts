import { ApiError, forbidden, namespaceTerminating, notFound } from '../api/errors.ts';
import { systemContext } from '../api/request-context.ts';
import type { StoredKubeObject } from '../api/types.ts';
import type { Informer } from '../registry/informer.ts';
import type { ResourceStore } from '../registry/resource-store.ts';
import type { AdmissionAttributes } from './attributes.ts';
import { handlesOperations, type AdmissionPlugin } from './plugin.ts';

const NAMESPACES = { group: '', resource: 'namespaces' };
/** Namespaces that may never be deleted: the cluster's own components live in them. */
export const IMMORTAL_NAMESPACES: ReadonlySet<string> = new Set(['default', 'kube-system', 'kube-public']);

function terminating(ns: StoredKubeObject): boolean {
  return Boolean(ns.metadata.deletionTimestamp) || (ns.status as { phase?: string } | undefined)?.phase === 'Terminating';
}

function isNamespaceKind(a: AdmissionAttributes): boolean {
  return a.kind.group === '' && a.kind.kind === 'Namespace';
}

/**
 * The NamespaceLifecycle admission plugin (mutating phase, as upstream):
 * - `default`, `kube-system` and `kube-public` cannot be deleted (403);
 * - a namespaced object can be created or updated only in a namespace that exists (404), and not
 *   created in one that is terminating (403 with the NamespaceTerminating cause).
 *
 * The shared namespace informer answers the common case (an active namespace) without a query;
 * anything else is confirmed against the store, since the view may lag by a few milliseconds. The write itself checks again in its transaction (storage's
 * `requireNamespace`), so a lagging view can change which error is reported, never what is stored.
 */
export class NamespaceLifecycle implements AdmissionPlugin {
  readonly name = 'NamespaceLifecycle';
  readonly handles = handlesOperations('CREATE', 'UPDATE', 'DELETE');
  readonly #namespaces: ResourceStore;
  readonly #view: Informer;

  /** `namespaces` reads the namespaces; `view` is the shared namespace informer. */
  constructor(namespaces: ResourceStore, view: Informer) {
    this.#namespaces = namespaces;
    this.#view = view;
  }

  admit(a: AdmissionAttributes): Promise<void> | void {
    const resource = { group: a.resource.group, resource: a.resource.resource };
    if (a.operation === 'DELETE' && isNamespaceKind(a) && IMMORTAL_NAMESPACES.has(a.name)) {
      throw forbidden(resource, a.name, 'this namespace may not be deleted');
    }
    // Cluster-scoped objects, namespaces themselves and deletes are always allowed.
    if (!a.namespace || isNamespaceKind(a) || a.operation === 'DELETE') return;
    const known = this.#view.watching ? this.#view.get('', a.namespace) : undefined;
    // The common case answers without a promise: writes into an active namespace.
    if (known && !terminating(known)) return;
    return this.#confirm(a, resource);
  }

  /** The view does not know the namespace as active: the store decides. */
  async #confirm(a: AdmissionAttributes, resource: { group: string; resource: string }): Promise<void> {
    let found: StoredKubeObject;
    try {
      found = (await this.#namespaces.get(systemContext(), '', a.namespace)).object;
    } catch (err) {
      if (err instanceof ApiError && err.code === 404) throw notFound(NAMESPACES, a.namespace);
      throw err;
    }
    if (a.operation === 'CREATE' && terminating(found)) throw namespaceTerminating(resource, a.name, a.namespace);
  }
}
