/**
 * The live figures APF's work estimate needs, kept in memory so that estimating costs no query:
 *
 *   - stored objects (and their average size) per served resource: the ObjectCounts the storage
 *     metrics already keep (ServerMetrics.objectCounts), refreshed from PostgreSQL every minute
 *     once `start()` is called (a /metrics scrape refreshes them too);
 *   - watchers per resource: the storage's watch hub (PostgresStorage.hub), which registers every
 *     watch this process serves.
 *
 * The dispatcher builds one per server and estimates through it:
 *
 *   const work = new WorkInputs({ objectCounts: metrics.objectCounts, watchers: storage.hub, surface,
 *                                 config: workEstimatorConfig(featureGates) });
 *   work.start();                                   // at start-up; work.stop() at shutdown
 *   const estimate = work.estimate(info, query, maxSeats);   // per request, no allocation for a get
 *
 * or passes `work.objectCount`, `work.averageObjectSize` and `work.watchersOf` (bound) to estimateWork.
 *
 * Two differences from upstream's sources, both from how this server stores and watches: the hub
 * counts every watcher of a resource, where upstream's watch tracker counts the watchers scoped to
 * the written object's namespace or name (or to none) and skips pod watches by node (their
 * spec.nodeName index), so a write here can cost more final seats; and the hub keys watchers by
 * where objects are stored, so a core Event write counts events.k8s.io watchers too (they do get
 * the event here).
 */
import type { RequestInfo } from '../api/request-info.ts';
import type { ApiSurface } from '../registry/api-surface.ts';
import { storageRefOf } from '../registry/storage-view.ts';
import type { ResourceRef } from '../storage/storage.ts';
import type { ObjectCounts } from './object-counts.ts';
import { estimateWork, DEFAULT_WORK_ESTIMATOR_CONFIG, type WorkEstimate, type WorkEstimateInput, type WorkEstimatorConfig } from './work-estimator.ts';

/** What the watch hub offers (PostgresStorage.hub is one). */
export interface WatcherCounter {
  watcherCount(ref: ResourceRef): number;
}

export interface WorkInputsOptions {
  readonly objectCounts: ObjectCounts;
  readonly watchers: WatcherCounter;
  /** The served kinds: which stored resource each served one is. */
  readonly surface: ApiSurface;
  /** Default: 1.34's default feature gates. */
  readonly config?: WorkEstimatorConfig;
  /** How often the object counts are read; default every minute, as upstream's storage does. */
  readonly refreshIntervalMs?: number;
}

/** One reused input: estimateWork is synchronous and keeps nothing of it, so per-request fields can be swapped in. */
interface ReusedInput {
  info: RequestInfo;
  query: URLSearchParams;
  maxSeats: number | undefined;
  readonly config: WorkEstimatorConfig;
  objectCount(group: string, resource: string): number | undefined;
  averageObjectSize(group: string, resource: string): number | undefined;
  watchersOf(group: string, resource: string): number;
}

const NO_QUERY = new URLSearchParams();

export class WorkInputs {
  readonly #objectCounts: ObjectCounts;
  readonly #watchers: WatcherCounter;
  readonly #surface: ApiSurface;
  readonly #refreshIntervalMs: number | undefined;
  /** Served group → resource → stored ref, rebuilt when the served kinds change. */
  #storedRefs = new Map<string, Map<string, ResourceRef>>();
  #storedRefsGeneration = -1;
  readonly #input: ReusedInput;

  constructor(options: WorkInputsOptions) {
    this.#objectCounts = options.objectCounts;
    this.#watchers = options.watchers;
    this.#surface = options.surface;
    this.#refreshIntervalMs = options.refreshIntervalMs;
    options.objectCounts.countServed(options.surface);
    this.#input = {
      info: undefined as unknown as RequestInfo,
      query: NO_QUERY,
      maxSeats: undefined,
      config: options.config ?? DEFAULT_WORK_ESTIMATOR_CONFIG,
      objectCount: this.objectCount,
      averageObjectSize: this.averageObjectSize,
      watchersOf: this.watchersOf,
    };
  }

  /** Starts refreshing the object counts (now, then every interval). */
  start(): void {
    this.#objectCounts.start(this.#refreshIntervalMs);
  }

  stop(): void {
    this.#objectCounts.stop();
  }

  /** The request's estimated work, for the priority level's cap (undefined or 0: none). */
  estimate(info: RequestInfo, query: URLSearchParams, maxSeats?: number): WorkEstimate {
    const input = this.#input;
    input.info = info;
    input.query = query;
    input.maxSeats = maxSeats;
    try {
      return estimateWork(input as WorkEstimateInput);
    } finally {
      // Keep nothing of the request alive.
      input.info = undefined as unknown as RequestInfo;
      input.query = NO_QUERY;
    }
  }

  readonly objectCount = (group: string, resource: string): number | undefined => this.#objectCounts.objectCount(group, resource);

  readonly averageObjectSize = (group: string, resource: string): number | undefined =>
    this.#objectCounts.averageObjectSize(group, resource);

  /** Watchers of the served resource's stored objects; 0 for a resource this server does not serve. */
  readonly watchersOf = (group: string, resource: string): number => {
    const ref = this.#storedRef(group, resource);
    return ref ? this.#watchers.watcherCount(ref) : 0;
  };

  #storedRef(group: string, resource: string): ResourceRef | undefined {
    if (this.#storedRefsGeneration !== this.#surface.generation) {
      const refs = new Map<string, Map<string, ResourceRef>>();
      for (const kind of this.#surface.kinds) {
        let byResource = refs.get(kind.group);
        if (!byResource) refs.set(kind.group, (byResource = new Map()));
        byResource.set(kind.plural, storageRefOf(kind));
      }
      this.#storedRefs = refs;
      this.#storedRefsGeneration = this.#surface.generation;
    }
    return this.#storedRefs.get(group)?.get(resource);
  }
}
