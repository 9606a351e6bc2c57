import type { Logger } from 'pino';
import { forbidden, namespaceTerminating, notFound } from '../api/errors.ts';
import type { StoredKubeObject } from '../api/types.ts';
import type { Storage, WatchHandle } from '../storage/storage.ts';
import type { AdmissionAttributes } from './attributes.ts';
import { handlesOperations, type AdmissionPlugin } from './plugin.ts';

const NAMESPACES = { group: '', resource: 'namespaces' };
const RESTART_DELAY_MS = 1000;
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
 * An in-memory view of the namespaces, kept by a watch, answers the common case (an active
 * namespace) without a query; anything else is confirmed against the store, since the view may lag
 * by a few milliseconds. The write itself checks again in its transaction (storage's
 * `requireNamespace`), so a lagging view can change which error is reported, never what is stored.
 */
export class NamespaceLifecycle implements AdmissionPlugin {
  readonly name = 'NamespaceLifecycle';
  readonly handles = handlesOperations('CREATE', 'UPDATE', 'DELETE');
  readonly #storage: Storage;
  readonly #logger: Logger;
  /** name → terminating? */
  readonly #known = new Map<string, boolean>();
  #watch: WatchHandle | null = null;
  #stopped = false;

  constructor(storage: Storage, logger: Logger) {
    this.#storage = storage;
    this.#logger = logger;
  }

  /** Fills the view from a list and keeps it current with a watch from the list's version. */
  async start(): Promise<void> {
    this.#stopped = false;
    const list = await this.#storage.list(NAMESPACES, {});
    this.#known.clear();
    for (const text of list.items) {
      const ns = JSON.parse(text) as StoredKubeObject;
      this.#known.set(ns.metadata.name, terminating(ns));
    }
    this.#watch = await this.#storage.watch(NAMESPACES, { fromVersion: list.resourceVersion }, {
      onEvent: (ev) => {
        if (ev.type === 'DELETED') this.#known.delete(ev.object.metadata.name);
        else this.#known.set(ev.object.metadata.name, terminating(ev.object));
      },
      onClose: (reason) => {
        this.#watch = null;
        if (this.#stopped || reason === 'shutdown') return;
        // Without the view every check goes to the store, which stays correct; get the view back.
        this.#known.clear();
        setTimeout(() => void this.start().catch((err) => this.#logger.warn({ err }, 'namespace view: restart failed')), RESTART_DELAY_MS).unref();
      },
    });
  }

  stop(): void {
    this.#stopped = true;
    this.#watch?.stop();
    this.#watch = null;
  }

  async admit(a: AdmissionAttributes): Promise<void> {
    const resource = { group: a.resource.group, resource: a.resource.resource };
    if (a.operation === 'DELETE' && isNamespaceKind(a) && IMMORTAL_NAMESPACES.has(a.name)) {
      throw forbidden(resource, a.name, 'this namespace may not be deleted');
    }
    // Cluster-scoped objects, namespaces themselves and deletes are always allowed.
    if (!a.namespace || isNamespaceKind(a) || a.operation === 'DELETE') return;
    if (this.#watch && this.#known.get(a.namespace) === false) return;
    const found = await this.#storage.get({ ...NAMESPACES, namespace: '', name: a.namespace });
    if (!found) throw notFound(NAMESPACES, a.namespace);
    if (a.operation === 'CREATE' && terminating(found.object)) throw namespaceTerminating(resource, a.name, a.namespace);
  }
}
