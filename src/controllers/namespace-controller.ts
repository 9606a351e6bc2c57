import type { Logger } from 'pino';
import { controllerContext } from './controller-context.ts';
import { ApiError } from '../api/errors.ts';
import type { KubeObject, StoredKubeObject } from '../api/types.ts';
import { KUBERNETES_FINALIZER } from '../kinds/namespace.ts';
import type { ApiSurface } from '../registry/api-surface.ts';
import { storageRefOf } from '../registry/storage-view.ts';
import { nowTimestamp } from '../registry/system-fields.ts';
import type { Informer } from '../registry/informer.ts';
import { deletionConditions, type NamespaceCondition, type RemainingContent } from './namespace-conditions.ts';

const PAGE = 500;
/** How soon a namespace whose content is still terminating is looked at again. */
const RETRY_MS = 2000;
/** A full resync catches anything a missed event or a failure left behind. */
const RESYNC_MS = 30_000;

type NamespaceLike = StoredKubeObject & { spec?: { finalizers?: string[] } };

/**
 * Empties deleted namespaces: deletes every namespaced object in them (objects with finalizers stay
 * until those are removed), then removes the `kubernetes` finalizer through /finalize, and the
 * namespace leaves storage. Driven by the shared namespace informer, like any client controller.
 */
export class NamespaceController {
  readonly #surface: ApiSurface;
  readonly #namespaces: Informer;
  readonly #logger: Logger;
  readonly #queue = new Set<string>();
  readonly #retryTimers = new Map<string, NodeJS.Timeout>();
  #resync: NodeJS.Timeout | null = null;
  #working = false;
  #stopped = true;

  constructor(surface: ApiSurface, namespaces: Informer, logger: Logger) {
    this.#surface = surface;
    this.#namespaces = namespaces;
    this.#logger = logger.child({ controller: 'namespace' });
    // Handlers stay for the life of the informer; they act only while this controller runs (leads).
    namespaces.on({
      added: (ns) => this.#consider(ns),
      updated: (ns) => this.#consider(ns),
    });
  }

  start(): void {
    this.#stopped = false;
    this.#enqueueTerminating();
    this.#resync = setInterval(() => this.#enqueueTerminating(), RESYNC_MS);
    this.#resync.unref();
  }

  stop(): void {
    this.#stopped = true;
    if (this.#resync) clearInterval(this.#resync);
    for (const t of this.#retryTimers.values()) clearTimeout(t);
    this.#retryTimers.clear();
    this.#queue.clear();
  }

  #consider(ns: StoredKubeObject): void {
    if (ns.metadata.deletionTimestamp) this.#enqueue(ns.metadata.name);
  }

  /** Queues every terminating namespace the informer knows (at start, and as a periodic resync). */
  #enqueueTerminating(): void {
    for (const ns of this.#namespaces.list()) this.#consider(ns);
  }

  #enqueue(name: string): void {
    if (this.#stopped) return;
    this.#queue.add(name);
    void this.#drain();
  }

  async #drain(): Promise<void> {
    if (this.#working) return;
    this.#working = true;
    try {
      while (this.#queue.size > 0 && !this.#stopped) {
        const name = this.#queue.values().next().value as string;
        this.#queue.delete(name);
        try {
          const done = await this.#sync(name);
          if (!done) this.#retryLater(name);
        } catch (err) {
          this.#logger.warn({ err, namespace: name }, 'namespace cleanup failed; will retry');
          this.#retryLater(name);
        }
      }
    } finally {
      this.#working = false;
    }
  }

  #retryLater(name: string): void {
    if (this.#stopped || this.#retryTimers.has(name)) return;
    const t = setTimeout(() => {
      this.#retryTimers.delete(name);
      this.#enqueue(name);
    }, RETRY_MS);
    t.unref();
    this.#retryTimers.set(name, t);
  }

  /** One pass over a namespace; true when nothing more is left to do for it. */
  async #sync(name: string): Promise<boolean> {
    const namespaces = this.#surface.storeFor('', 'namespaces');
    let ns: NamespaceLike;
    try {
      ns = (await namespaces.get(controllerContext(), '', name)).object as NamespaceLike;
    } catch (err) {
      if (err instanceof ApiError && err.code === 404) return true;
      throw err;
    }
    if (!ns.metadata.deletionTimestamp) return true;
    if (!(ns.spec?.finalizers ?? []).includes(KUBERNETES_FINALIZER)) return true;

    const left = await this.#deleteContent(name);
    await this.#reportProgress(name, left);
    if (left.resources.size > 0) return false;
    await namespaces.update(controllerContext('finalize'), '', name, {
      build: (current) => {
        const spec = ((current as NamespaceLike).spec ?? {}) as { finalizers?: string[] };
        return { ...current, spec: { ...spec, finalizers: (spec.finalizers ?? []).filter((f) => f !== KUBERNETES_FINALIZER) } } as KubeObject;
      },
    });
    this.#logger.info({ namespace: name }, 'namespace emptied and finalized');
    return true;
  }

  /** Writes the deletion conditions to the namespace's status (nothing is written when they are unchanged). */
  async #reportProgress(name: string, left: RemainingContent): Promise<void> {
    await this.#surface.storeFor('', 'namespaces').update(controllerContext('status'), '', name, {
      build: (current) => {
        const status = ((current as KubeObject).status ?? {}) as { conditions?: NamespaceCondition[] };
        const conditions = deletionConditions(status.conditions, left, nowTimestamp());
        return { ...(current as KubeObject), status: { ...status, conditions } };
      },
    });
  }

  /** Deletes every namespaced object in the namespace; returns what still exists (terminating, held by finalizers). */
  async #deleteContent(namespace: string): Promise<RemainingContent> {
    const resources = new Map<string, number>();
    const finalizers = new Map<string, number>();
    const count = (map: Map<string, number>, key: string) => map.set(key, (map.get(key) ?? 0) + 1);
    const visited = new Set<string>();
    for (const kind of this.#surface.kinds) {
      if (!kind.namespaced || !kind.verbs.includes('delete')) continue;
      // Kinds that share storage (core and events.k8s.io Events) are one set of objects.
      const ref = storageRefOf(kind);
      if (visited.has(`${ref.group}/${ref.resource}`)) continue;
      visited.add(`${ref.group}/${ref.resource}`);
      // Custom resource kinds come and go while a pass runs: one no longer served is skipped (its
      // objects, if any, are found again once it is served, or were its CRD's to delete).
      const store = this.#surface.findStore(kind.group, kind.plural);
      if (!store) continue;
      const label = `${kind.plural}.${kind.group}`;
      let after: { namespace: string; name: string } | undefined;
      for (;;) {
        const page = await store.storage.list(ref, { namespace, limit: PAGE, after });
        for (const text of page.items) {
          let obj = JSON.parse(text) as StoredKubeObject;
          // Terminating objects are deleted again too, as upstream's deleter does: Background drops
          // the garbage collector's finalizers (an owner waiting in the foreground goes like the rest).
          try {
            const outcome = await store.delete(controllerContext(), namespace, obj.metadata.name, { dryRun: false, propagationPolicy: 'Background' });
            if (outcome.gone) continue;
            obj = outcome.object.object;
          } catch (err) {
            if (err instanceof ApiError && err.code === 404) continue;
            throw err;
          }
          count(resources, label);
          for (const f of obj.metadata.finalizers ?? []) count(finalizers, f);
        }
        if (!page.next) break;
        after = page.next;
      }
    }
    return { resources, finalizers };
  }
}
