import type { Logger } from 'pino';
import type { StoredKubeObject } from '../../api/types.ts';
import type { ReadCheck } from '../read-check.ts';
import type {
  GetOptions,
  ListCursor,
  ListOptions,
  ListResult,
  ObjectKey,
  ResourceRef,
  Storage,
  StoredObject,
  WatchHandle,
  WatchListener,
  WatchOptions,
} from '../storage.ts';
import { cacheSizeKey } from './cache-sizes.ts';
import type { FreshnessProbe } from './freshness-probe.ts';
import { ResourceCache, type TextBudget } from './resource-cache.ts';
import { SnapshotCursor } from './snapshot-cursor.ts';

export interface CachedStorageOptions {
  /** The store's current revision (and whether rows were written outside the server), for consistent reads. */
  readonly probe: FreshnessProbe;
  readonly logger: Logger;
  /** --watch-cache-sizes: a resource (`group/resource`) given 0 is never cached. */
  readonly sizes?: ReadonlyMap<string, number>;
  /** Text all caches of the process may hold together (default DEFAULT_WATCH_CACHE_MAX_BYTES). */
  readonly maxBytes?: number;
  /** How long a read waits for the cache to reach the version it needs (upstream: 3 s). */
  readonly freshWaitMs?: number;
  /** How long after a cache closed (watch ended, build failed) it may be built again. */
  readonly rebuildDelayMs?: number;
  /** How long after a cache went over the budget it may be built again. */
  readonly overBudgetRetryMs?: number;
  /**
   * Counts a resource's objects, stopping at `atMost` (a bounded index scan). With it, a resource whose
   * cache went over the budget is counted before it is built again, and built only once it holds
   * fewer objects than did not fit: a resource too large for the budget is not loaded (and dropped)
   * again every overBudgetRetryMs while it is read.
   */
  readonly countUpTo?: (ref: ResourceRef, atMost: number) => Promise<number>;
  /** How old the "rows written outside" answer may be for a read that asks the database nothing (resourceVersion=0). */
  readonly outsideCheckMs?: number;
}

/**
 * What all caches of one process hold at most: past it the cache that grew over it is dropped and its
 * resource read from PostgreSQL (as with --watch-cache=false) until it is tried again. Sized so that a
 * server with the scale run (100,000 objects, 1,000 watchers) stays under 512 MiB: objects are
 * held as their stored JSON text, about their stored size each, and a resource of 1,000,000 objects
 * of a few hundred bytes would not fit, which is the point: it is read from the database instead.
 */
export const DEFAULT_WATCH_CACHE_MAX_BYTES = 256 * 1024 * 1024;

/** Counts of how reads were served (tests, and a look from a debugger). */
export interface CacheStats {
  /** Gets and lists answered from a cache. */
  cacheReads: number;
  /** Gets and lists with a resourceVersion, and lists, passed to the database (continue, Exact, cache not ready or not fresh, rows written outside). */
  delegatedReads: number;
  /** Consistent lists passed to the database because the cache did not reach the current revision in time (upstream's fallback). */
  consistentFallbacks: number;
  /** Caches built (lists of a whole resource). */
  builds: number;
}

interface Slot {
  cache: ResourceCache;
  /** When a closed cache may be built again. */
  retryAt: number;
  /** Rows of the resource were written outside the server when last asked: reads go to the database. */
  outside: boolean;
  /** When `outside` was last asked (0: never). */
  checkedAt: number;
  checking?: Promise<void>;
  /** The objects its cache held when it went over the budget: it is built again only once the resource holds fewer. */
  tooBigAt?: number;
  /** The count (countUpTo) that decides whether to build it again, while it runs. */
  counting?: Promise<void>;
}

/**
 * Storage with a watch cache in front of its reads, as kube-apiserver's cacher sits in front of etcd
 * (see docs/architecture.md, "Watch cache"). Which reads the cache answers follows upstream 1.34
 * (cacher/delegator.go):
 *
 * - get without a resourceVersion: the database (a consistent get, as upstream).
 * - get or list with resourceVersion=0: the cache as it is, without asking the database anything; a
 *   list's limit is ignored there (the whole list, no continue token), as upstream's cache ignores it.
 * - get or list with resourceVersion=N, NotOlderThan: the cache once it has reached N (a version the
 *   database has not reached yet fails as the database fails it: 504 Too large resource version).
 * - list without a resourceVersion (a consistent list, ConsistentListFromCache): the database's
 *   current revision is read (one cheap statement), and the cache answers once it has reached it; if
 *   it does not within 3 s the database answers (upstream's fallback). Limit and remaining count as
 *   from the database; the continue token holds the list's version.
 * - continue tokens, Exact (and a version with a limit, the legacy Exact), and the server's own
 *   lists that skip unreadable rows: the database. The cache keeps no snapshots of past versions
 *   (upstream's ListFromCacheSnapshot): a continued list reads the database at the token's version,
 *   which is the same state the first page showed.
 *
 * A resource's cache is built at the first read that could use it (the reads meanwhile go to the
 * database), from one list and a watch from its version. Writes, watches and everything else pass
 * through. close() stops the caches only: the storage beneath is closed by its owner.
 */
export class CachedStorage implements Storage {
  readonly #inner: Storage;
  readonly #options: CachedStorageOptions;
  readonly #slots = new Map<string, Slot>();
  readonly #budget: TextBudget;
  /** rebuildDelayMs and overBudgetRetryMs with their defaults. */
  readonly #rebuildDelayMs: number;
  readonly #overBudgetRetryMs: number;
  /** Reads waiting for a cache to reach a version (see #reach), and the one timer that checks them. */
  readonly #waiters = new Set<{ cache: ResourceCache; version: number; deadline: number; resolve: (reached: boolean) => void }>();
  #waitTimer: NodeJS.Timeout | undefined;
  /** The version of this server's latest write, by resource (see #wrote). */
  readonly #written = new Map<string, number>();
  #closed = false;
  readonly stats: CacheStats = { cacheReads: 0, delegatedReads: 0, consistentFallbacks: 0, builds: 0 };
  readonly deleteUnreadable?: Storage['deleteUnreadable'];
  readonly registerReadCheck?: (ref: ResourceRef, check: ReadCheck) => void;

  constructor(inner: Storage, options: CachedStorageOptions) {
    this.#inner = inner;
    this.#options = options;
    this.#budget = { used: 0, max: options.maxBytes ?? DEFAULT_WATCH_CACHE_MAX_BYTES };
    this.#rebuildDelayMs = options.rebuildDelayMs ?? 1000;
    this.#overBudgetRetryMs = options.overBudgetRetryMs ?? 60_000;
    // Optional capabilities exist here exactly when they exist beneath.
    const deleteUnreadable = inner.deleteUnreadable?.bind(inner);
    if (deleteUnreadable) {
      this.deleteUnreadable = async (key, expectedVersion, message) => {
        const version = await deleteUnreadable(key, expectedVersion, message);
        this.#record(key, version);
        return version;
      };
    }
    if (inner.registerReadCheck) this.registerReadCheck = inner.registerReadCheck.bind(inner);
  }

  /** The cache of a resource, when one is ready (tests). */
  cacheOf(ref: ResourceRef): ResourceCache | undefined {
    const cache = this.#slots.get(cacheSizeKey(ref.group, ref.resource))?.cache;
    return cache?.state === 'ready' ? cache : undefined;
  }

  /** Text held by all caches. */
  get bytes(): number {
    return this.#budget.used;
  }

  async get(key: ObjectKey, options?: GetOptions): Promise<StoredObject | null> {
    const minVersion = options?.minVersion;
    if (minVersion === undefined) return this.#inner.get(key, options);
    const cache = await this.#usable(key, minVersion > 0 ? { minVersion } : { anyVersion: true });
    if (!cache) {
      this.stats.delegatedReads++;
      return this.#inner.get(key, options);
    }
    this.stats.cacheReads++;
    return cache.get(key.namespace, key.name);
  }

  async list(ref: ResourceRef, options: ListOptions): Promise<ListResult> {
    const cache = await this.#forList(ref, options);
    if (!cache) return this.#inner.list(ref, options);
    return cache.list({
      namespace: options.namespace,
      filter: options.filter,
      limit: options.anyVersion ? undefined : options.limit,
      countRemaining: options.countRemaining,
    });
  }

  async openList(ref: ResourceRef, options: ListOptions): Promise<ListCursor> {
    const cache = await this.#forList(ref, options);
    if (!cache) return this.#inner.openList(ref, options);
    const { items, resourceVersion } = cache.list({ namespace: options.namespace, filter: options.filter });
    return new SnapshotCursor(resourceVersion, items);
  }

  async create(key: ObjectKey, object: StoredKubeObject, options?: { requireNamespace?: boolean }): Promise<StoredObject> {
    return this.#wrote(key, await this.#inner.create(key, object, options));
  }

  async update(key: ObjectKey, object: StoredKubeObject, expectedVersion?: number, expectedUid?: string): Promise<StoredObject> {
    return this.#wrote(key, await this.#inner.update(key, object, expectedVersion, expectedUid));
  }

  async delete(key: ObjectKey, expectedVersion?: number, expectedUid?: string): Promise<StoredObject> {
    return this.#wrote(key, await this.#inner.delete(key, expectedVersion, expectedUid));
  }

  /**
   * Remembers the version of this server's last write to a resource: a resourceVersion=0 or
   * NotOlderThan read waits (briefly: one NOTIFY) for the cache to have it, so that this server never answers with less than
   * it has already answered a write with. Upstream allows older data at 0; clients and this server's
   * own controllers that write and then read at 0 are spared the surprise at almost no cost.
   */
  #wrote(key: ObjectKey, stored: StoredObject): StoredObject {
    this.#record(key, stored.resourceVersion);
    return stored;
  }

  #record(key: ObjectKey, version: number): void {
    const ref = cacheSizeKey(key.group, key.resource);
    if (version > (this.#written.get(ref) ?? 0)) this.#written.set(ref, version);
  }

  watch(ref: ResourceRef, options: WatchOptions, listener: WatchListener): Promise<WatchHandle> {
    return this.#inner.watch(ref, options, listener);
  }

  waitForVersion(version: number): Promise<void> {
    return this.#inner.waitForVersion(version);
  }

  currentVersion(): Promise<number> {
    return this.#inner.currentVersion();
  }

  compactedVersion(): Promise<number> {
    return this.#inner.compactedVersion();
  }

  ping(timeoutMs?: number): Promise<void> {
    return this.#inner.ping(timeoutMs);
  }

  async close(): Promise<void> {
    this.#closed = true;
    for (const slot of this.#slots.values()) slot.cache.close('shutdown');
    this.#checkWaiters();
  }

  /** The cache that answers a list, or undefined when the database does. */
  async #forList(ref: ResourceRef, options: ListOptions): Promise<ResourceCache | undefined> {
    // Continue tokens and Exact read a past version; the server's informers want unreadable rows named.
    const past = options.after || options.exactVersion !== undefined || options.skipUnreadable;
    const cache = past ? undefined : await this.#usable(ref, options);
    if (cache) this.stats.cacheReads++;
    else this.stats.delegatedReads++;
    return cache;
  }

  /**
   * The resource's cache when it may answer a read of this freshness (anyVersion, minVersion, or
   * neither: consistent), having waited for it to be fresh enough; undefined sends the read to the
   * database.
   */
  async #usable(ref: ResourceRef, want: Pick<ListOptions, 'anyVersion' | 'minVersion'>): Promise<ResourceCache | undefined> {
    const slot = this.#slotFor(ref);
    if (!slot || slot.cache.state !== 'ready') return undefined;
    const cache = slot.cache;
    let needed: number;
    if (want.anyVersion) {
      // Asks the database nothing; the "written outside" answer is refreshed in the background.
      this.#recheckOutside(ref, slot);
      if (slot.outside) return undefined;
      return (await this.#reach(cache, this.#written.get(cacheSizeKey(ref.group, ref.resource)) ?? 0)) ? cache : undefined;
    }
    if (want.minVersion !== undefined) {
      // A version the database has not reached either fails there, with the database's current version.
      if (cache.version() < want.minVersion) await this.#inner.waitForVersion(want.minVersion);
      this.#recheckOutside(ref, slot);
      if (slot.outside) return undefined;
      // Never less than this server's own writes already answered, as at resourceVersion=0.
      needed = Math.max(want.minVersion, this.#written.get(cacheSizeKey(ref.group, ref.resource)) ?? 0);
    } else {
      const fresh = await this.#options.probe(ref);
      slot.outside = fresh.outside;
      slot.checkedAt = Date.now();
      if (fresh.outside) return undefined;
      needed = fresh.version;
    }
    if (await this.#reach(cache, needed)) return cache;
    if (want.minVersion === undefined) this.stats.consistentFallbacks++;
    return undefined;
  }

  /** Waits (up to freshWaitMs) for the cache to reach a version; false when it did not, or closed meanwhile. */
  #reach(cache: ResourceCache, version: number): Promise<boolean> | boolean {
    if (cache.state !== 'ready') return false;
    if (cache.version() >= version) return true;
    return new Promise<boolean>((resolve) => {
      this.#waiters.add({ cache, version, deadline: Date.now() + (this.#options.freshWaitMs ?? 3000), resolve });
      // The watch beneath offers no "reached N" signal for changes of other resources, so one timer
      // looks for every waiting read each millisecond: the gap is normally one NOTIFY and one fetch.
      this.#waitTimer ??= setInterval(() => this.#checkWaiters(), 1);
    });
  }

  #checkWaiters(): void {
    const now = Date.now();
    for (const w of this.#waiters) {
      const reached = w.cache.state === 'ready' && w.cache.version() >= w.version;
      if (reached || w.cache.state !== 'ready' || now >= w.deadline) {
        this.#waiters.delete(w);
        w.resolve(reached);
      }
    }
    if (this.#waiters.size === 0 && this.#waitTimer) {
      clearInterval(this.#waitTimer);
      this.#waitTimer = undefined;
    }
  }

  /** The resource's slot, starting a cache build when there is none (or a closed one may be rebuilt). */
  #slotFor(ref: ResourceRef): Slot | undefined {
    if (this.#closed) return undefined;
    const key = cacheSizeKey(ref.group, ref.resource);
    if (this.#options.sizes?.get(key) === 0) return undefined;
    const slot = this.#slots.get(key);
    if (slot && (slot.cache.state !== 'closed' || Date.now() < slot.retryAt)) return slot;
    if (slot?.tooBigAt !== undefined && this.#options.countUpTo) {
      this.#buildIfFits(ref, key, slot, slot.tooBigAt, this.#options.countUpTo);
      return slot;
    }
    this.#build(ref, key);
    return this.#slots.get(key);
  }

  /** Builds the cache of a resource that went over the budget once it holds fewer objects than did not fit (reads go to the database meanwhile). */
  #buildIfFits(ref: ResourceRef, key: string, slot: Slot, tooBigAt: number, countUpTo: (ref: ResourceRef, atMost: number) => Promise<number>): void {
    if (slot.counting) return;
    slot.counting = countUpTo(ref, tooBigAt)
      .then((count) => {
        if (this.#closed || this.#slots.get(key) !== slot) return;
        if (count < tooBigAt) this.#build(ref, key);
        else slot.retryAt = Date.now() + this.#overBudgetRetryMs;
      })
      .catch((err: unknown) => {
        this.#options.logger.debug({ err, group: ref.group, resource: ref.resource }, 'watch cache: counting failed; reads go to the database');
        slot.retryAt = Date.now() + this.#rebuildDelayMs;
      })
      .finally(() => {
        slot.counting = undefined;
      });
  }

  #build(ref: ResourceRef, key: string): void {
    const cache = new ResourceCache({ group: ref.group, resource: ref.resource }, this.#budget, (closed) => this.#closedCache(key, closed));
    const slot: Slot = { cache, retryAt: 0, outside: false, checkedAt: 0 };
    this.#slots.set(key, slot);
    this.stats.builds++;
    void (async () => {
      // Rows written outside the server have no history: a cache would never see them change.
      const fresh = await this.#options.probe(ref);
      slot.outside = fresh.outside;
      slot.checkedAt = Date.now();
      if (fresh.outside) {
        cache.close('rows written outside the server');
        return;
      }
      await cache.build(this.#inner);
    })().catch((err: unknown) => {
      this.#options.logger.debug({ err, group: ref.group, resource: ref.resource }, 'watch cache: building failed; reads go to the database');
      cache.close('build failed');
    });
  }

  #closedCache(key: string, cache: ResourceCache): void {
    const slot = this.#slots.get(key);
    if (!slot || slot.cache !== cache) return;
    const overBudget = cache.closedBecause === 'over budget';
    slot.retryAt = Date.now() + (overBudget ? this.#overBudgetRetryMs : this.#rebuildDelayMs);
    slot.tooBigAt = overBudget ? Math.max(1, cache.sizeAtClose) : undefined;
    if (cache.closedBecause !== 'shutdown') {
      this.#options.logger.debug({ group: cache.ref.group, resource: cache.ref.resource, reason: cache.closedBecause }, 'watch cache closed');
    }
  }

  /** Refreshes the "written outside" answer when it is older than outsideCheckMs, without waiting for it. */
  #recheckOutside(ref: ResourceRef, slot: Slot): void {
    if (slot.checking || Date.now() - slot.checkedAt < (this.#options.outsideCheckMs ?? 1000)) return;
    slot.checking = this.#options
      .probe(ref)
      .then((fresh) => {
        slot.outside = fresh.outside;
        slot.checkedAt = Date.now();
      })
      .catch(() => undefined)
      .finally(() => {
        slot.checking = undefined;
      });
  }
}
