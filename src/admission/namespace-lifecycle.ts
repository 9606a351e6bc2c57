import type { Logger } from 'pino';
import { namespaceTerminating, notFound, type QualifiedResource } from '../api/errors.ts';
import type { StoredKubeObject } from '../api/types.ts';
import type { NamespaceGate } from '../registry/resource-store.ts';
import type { Storage, WatchHandle } from '../storage/storage.ts';

const NAMESPACES = { group: '', resource: 'namespaces' };
const RESTART_DELAY_MS = 1000;

function terminating(ns: StoredKubeObject): boolean {
  return Boolean(ns.metadata.deletionTimestamp) || (ns.status as { phase?: string } | undefined)?.phase === 'Terminating';
}

/**
 * The NamespaceLifecycle admission rule for creates: the namespace must exist and must not be
 * terminating. An in-memory view of the namespaces, kept by a watch, answers the common case (an
 * active namespace) without a query; anything else is confirmed against the store, since the view
 * may lag by a few milliseconds. The write itself checks again in its transaction (storage's
 * `requireNamespace`), so a lagging view can change which error is reported, never what is stored.
 */
export class NamespaceLifecycle implements NamespaceGate {
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

  async assertWritable(namespace: string, resource: QualifiedResource, name: string): Promise<void> {
    if (this.#watch && this.#known.get(namespace) === false) return;
    const found = await this.#storage.get({ ...NAMESPACES, namespace: '', name: namespace });
    if (!found) throw notFound(NAMESPACES, namespace);
    if (terminating(found.object)) throw namespaceTerminating(resource, name, namespace);
  }
}
