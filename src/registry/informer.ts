import type { Logger } from 'pino';
import { systemContext } from '../api/request-context.ts';
import type { StoredKubeObject, WatchEventType } from '../api/types.ts';
import type { CorruptObject } from '../storage/read-check.ts';
import { parseListQuery } from './list-options.ts';
import type { ResourceStore, WatchHandle } from './resource-store.ts';
import type { Deliverable } from './watch-start.ts';

/** What an informer tells its handlers; `updated` gets the object before the change too. */
export interface InformerHandlers {
  added?(obj: StoredKubeObject): void;
  updated?(obj: StoredKubeObject, old: StoredKubeObject): void;
  deleted?(obj: StoredKubeObject): void;
}

export interface InformerOptions {
  readonly logger: Logger;
  /** Only this namespace (namespaced kinds); all when unset. */
  readonly namespace?: string;
  /** A secondary index: the values an object is found under with `byIndex`. */
  readonly index?: (obj: StoredKubeObject) => readonly string[];
  /** Delay before a closed watch is started again (doubling up to 30 s while starts fail). */
  readonly restartDelayMs?: number;
  /**
   * What is kept of each object (client-go's SetTransform): a reader that needs little of every
   * object (the garbage collector's metadata) keeps little. It must keep metadata's name,
   * namespace and resourceVersion, and return a new object (events' objects are shared).
   */
  readonly transform?: (obj: StoredKubeObject) => StoredKubeObject;
}

const MAX_RESTART_DELAY_MS = 30_000;

function keyOf(obj: StoredKubeObject): string {
  return `${obj.metadata.namespace ?? ''}/${obj.metadata.name}`;
}

/**
 * One shared, in-memory view of a kind's objects, as client-go's shared informer keeps one: it lists
 * (the watch's initial events), then watches from the list's version through the store; when the
 * watch ends (expired version, storage restart, slow consumer) it starts again with a fresh list and
 * tells the handlers what changed meanwhile (deleted objects included). `synced` resolves once the
 * first list is in. Readers (admission plugins, controllers, later RBAC and flow control) ask it
 * instead of the database.
 *
 * Objects that cannot be read (rows changed outside the server that no longer decode) do not stop it,
 * as they would stop the server: its lists leave them out, with a warning per object, so that the
 * server runs and the object can be removed with the unsafe delete. An object it knew before it
 * became unreadable is kept as it was last read (it still exists: telling the handlers it was deleted
 * could make them act on a deletion that did not happen); its unsafe deletion ends the watch, and the
 * next list reports it deleted.
 */
export class Informer {
  readonly #store: ResourceStore;
  readonly #options: InformerOptions;
  readonly #handlers: InformerHandlers[] = [];
  #objects = new Map<string, StoredKubeObject>();
  #index = new Map<string, Set<string>>();
  #handle: WatchHandle | undefined;
  #stopped = false;
  #synced = false;
  #restartDelay: number;
  /** Storage keys of the objects the last list left out as unreadable (each is warned of once). */
  #unreadable = new Set<string>();
  #resolveSynced!: () => void;
  /** Resolves once the first list has been read. */
  readonly synced: Promise<void>;

  constructor(store: ResourceStore, options: InformerOptions) {
    this.#store = store;
    this.#options = options;
    this.#restartDelay = options.restartDelayMs ?? 1000;
    this.synced = new Promise((resolve) => (this.#resolveSynced = resolve));
  }

  /** Adds handlers; they hear of every object already known as `added`. */
  on(handlers: InformerHandlers): void {
    this.#handlers.push(handlers);
    for (const obj of this.#objects.values()) handlers.added?.(obj);
  }

  /** Starts listing and watching; resolves when the first list is in (rejects if that fails). */
  async start(): Promise<void> {
    this.#stopped = false;
    await this.#run();
  }

  stop(): void {
    this.#stopped = true;
    this.#handle?.stop();
    this.#handle = undefined;
  }

  hasSynced(): boolean {
    return this.#synced;
  }

  /** Whether the view is being kept current right now (a watch is running). */
  get watching(): boolean {
    return this.#handle !== undefined;
  }

  get(namespace: string, name: string): StoredKubeObject | undefined {
    return this.#objects.get(`${namespace}/${name}`);
  }

  list(): StoredKubeObject[] {
    return [...this.#objects.values()];
  }

  byIndex(value: string): StoredKubeObject[] {
    const keys = this.#index.get(value);
    return keys ? [...keys].map((k) => this.#objects.get(k)!).filter(Boolean) : [];
  }

  async #run(): Promise<void> {
    // The watch's initial events are the list; they fill a fresh view, which replaces the old one
    // once complete, so that a restart reports what changed while no watch was running.
    let initial: Map<string, StoredKubeObject> | undefined = new Map();
    const unreadable: CorruptObject[] = [];
    let closed = false;
    /** Why a live event could not be taken (the watch is then ended, and the informer lists again). */
    let failed: unknown;
    const started = await this.#store.watch(systemContext(), this.#options.namespace, parseListQuery(new URLSearchParams()), undefined, {
      event: (type: WatchEventType, ev: Deliverable) => {
        try {
          const obj = this.#options.transform ? this.#options.transform(ev.object as StoredKubeObject) : (ev.object as StoredKubeObject);
          if (initial) {
            if (type === 'DELETED') initial.delete(keyOf(obj));
            else initial.set(keyOf(obj), obj);
          } else {
            this.#apply(type, obj);
          }
          return true;
        } catch (err) {
          // A change whose object is no object (history written by hand) or one a handler chokes on
          // must not end the informer, nor fail the watchers after it: it ends this watch, and a list
          // (which leaves out what cannot be read) starts over. During the start, the start fails.
          if (initial) throw err;
          failed = err;
          return false;
        }
      },
      room: () => undefined,
      get closed() {
        return closed;
      },
      onClose: (reason: string) => {
        closed = true;
        this.#handle = undefined;
        if (this.#stopped) return;
        if (failed !== undefined) {
          this.#options.logger.warn({ err: failed, resource: this.#store.kind.plural }, 'informer could not take a watch event; listing again');
        } else {
          this.#options.logger.info({ resource: this.#store.kind.plural, reason }, 'informer watch closed; listing again');
        }
        this.#scheduleRestart();
      },
      unreadable: (objects: readonly CorruptObject[]) => void unreadable.push(...objects),
    });
    if (!started) return;
    // A watch that ended while it started (its restart is already scheduled) keeps nothing current.
    this.#handle = closed ? undefined : started.handle;
    const fresh = initial;
    initial = undefined;
    this.#noteUnreadable(unreadable);
    this.#replace(fresh, unreadable);
    this.#restartDelay = this.#options.restartDelayMs ?? 1000;
    if (!this.#synced) {
      this.#synced = true;
      this.#resolveSynced();
    }
  }

  /** Warns of each object a list left out, once for as long as lists keep leaving it out. */
  #noteUnreadable(objects: readonly CorruptObject[]): void {
    const now = new Set<string>();
    for (const c of objects) {
      now.add(c.key);
      if (this.#unreadable.has(c.key)) continue;
      this.#options.logger.warn(
        { resource: this.#store.kind.plural, key: c.key, resourceVersion: c.resourceVersion, reason: c.message },
        'informer left out an object that cannot be read; fix its row or remove it with a delete that sets ignoreStoreReadErrorWithClusterBreakingPotential',
      );
    }
    this.#unreadable = now;
  }

  #scheduleRestart(): void {
    const delay = this.#restartDelay;
    this.#restartDelay = Math.min(delay * 2, MAX_RESTART_DELAY_MS);
    setTimeout(() => {
      if (this.#stopped) return;
      this.#run().catch((err) => {
        this.#options.logger.warn({ err, resource: this.#store.kind.plural }, 'informer restart failed');
        this.#scheduleRestart();
      });
    }, delay).unref();
  }

  /**
   * Swaps in a freshly listed view, telling the handlers the difference. An object the list left out
   * as unreadable is not gone: what was known of it stays.
   */
  #replace(fresh: Map<string, StoredKubeObject>, unreadable: readonly CorruptObject[]): void {
    const old = this.#objects;
    const leftOut = new Set(unreadable.map((c) => `${c.namespace}/${c.name}`));
    for (const [key, obj] of old) if (!fresh.has(key) && !leftOut.has(key)) this.#apply('DELETED', obj);
    for (const obj of fresh.values()) this.#apply('ADDED', obj);
  }

  #apply(type: WatchEventType, obj: StoredKubeObject): void {
    const key = keyOf(obj);
    const old = this.#objects.get(key);
    this.#unindex(key, old);
    if (type === 'DELETED') {
      if (!old) return;
      this.#objects.delete(key);
      for (const h of this.#handlers) h.deleted?.(obj);
      return;
    }
    this.#objects.set(key, obj);
    this.#indexObject(key, obj);
    if (!old) for (const h of this.#handlers) h.added?.(obj);
    else if (old.metadata.resourceVersion !== obj.metadata.resourceVersion) for (const h of this.#handlers) h.updated?.(obj, old);
  }

  #indexObject(key: string, obj: StoredKubeObject): void {
    for (const value of this.#options.index?.(obj) ?? []) {
      let keys = this.#index.get(value);
      if (!keys) this.#index.set(value, (keys = new Set()));
      keys.add(key);
    }
  }

  #unindex(key: string, old: StoredKubeObject | undefined): void {
    if (!old) return;
    for (const value of this.#options.index?.(old) ?? []) this.#index.get(value)?.delete(key);
  }
}
