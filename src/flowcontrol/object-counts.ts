import type pg from 'pg';
import type { ApiSurface } from '../registry/api-surface.ts';
import { storageRefOf } from '../registry/storage-view.ts';
import { INFINITE_OBJECT_COUNT, MAX_OBJECT_SIZE } from './work-estimator/config.ts';

/** What is stored of one served resource. */
export interface ObjectStats {
  readonly count: number;
  /** Average stored size of one object in bytes (0 when nothing is stored). */
  readonly averageSizeBytes: number;
}

/** One served resource in a read: its figures, or undefined when the read failed. */
export interface ServedObjectStats {
  readonly group: string;
  readonly resource: string;
  readonly stats: ObjectStats | undefined;
}

export interface ObjectCountsOptions {
  /** The clock staleness is judged by (tests move it). */
  readonly now?: () => number;
}

/** How long a read may take before it counts as failed. */
const READ_TIMEOUT_MS = 5000;
/** Upstream's storage refreshes its counts every minute. */
export const OBJECT_COUNT_REFRESH_INTERVAL_MS = 60_000;
/** Upstream tolerates two or three failed refreshes before it calls a count stale. */
export const OBJECT_COUNT_STALE_AFTER_MS = 3 * 60_000;
/** …and forgets a count an hour after its last refresh. */
export const OBJECT_COUNT_FORGOTTEN_AFTER_MS = 60 * 60_000;

const EMPTY: ObjectStats = Object.freeze({ count: 0, averageSizeBytes: 0 });

/**
 * The stored objects of each served resource, counted by one grouped query over the objects table
 * and kept in memory: APF's list estimate reads them per request (never a query per request), and
 * the apiserver_storage_objects metrics read them at every scrape (a scrape refreshes them too).
 *
 * Sizes are PostgreSQL's stored sizes of the objects (pg_column_size, which reads no TOASTed value:
 * large objects count compressed), the counterpart of upstream's estimate from etcd's value sizes.
 *
 * While reads keep failing, the counts go stale after three minutes and are then reported as
 * upstream reports a stale count (so many objects, each as large as allowed: a list costs the most);
 * an hour after the last good read they are forgotten (unknown: a list costs the least).
 */
export class ObjectCounts {
  readonly #pool: pg.Pool;
  readonly #now: () => number;
  #surface: ApiSurface | undefined;
  /** By served group, then resource. */
  #stats = new Map<string, Map<string, ObjectStats>>();
  #readAt = Number.NEGATIVE_INFINITY;
  #lastReadFailed = false;
  #reading: Promise<readonly ServedObjectStats[]> | undefined;
  #timer: NodeJS.Timeout | undefined;

  constructor(pool: pg.Pool, options: ObjectCountsOptions = {}) {
    this.#pool = pool;
    this.#now = options.now ?? Date.now;
  }

  /** The served resources are counted (a resource with nothing stored counts 0). */
  countServed(surface: ApiSurface): void {
    this.#surface = surface;
  }

  /** Reads the counts now; reads asked for while one runs share it. */
  refresh(): Promise<readonly ServedObjectStats[]> {
    return (this.#reading ??= this.#read().finally(() => (this.#reading = undefined)));
  }

  /** Refreshes now and then every interval until stop(); the timer keeps no process alive. */
  start(intervalMs = OBJECT_COUNT_REFRESH_INTERVAL_MS): void {
    if (this.#timer) return;
    void this.refresh();
    this.#timer = setInterval(() => void this.refresh(), intervalMs);
    this.#timer.unref();
  }

  stop(): void {
    if (this.#timer) clearInterval(this.#timer);
    this.#timer = undefined;
  }

  /** Stored objects of a served resource; undefined when not counted (or forgotten). */
  objectCount(group: string, resource: string): number | undefined {
    const stats = this.#current(group, resource);
    if (stats === undefined) return undefined;
    return this.#stale() ? INFINITE_OBJECT_COUNT : stats.count;
  }

  /** Average stored size of the resource's objects in bytes; undefined when not counted. */
  averageObjectSize(group: string, resource: string): number | undefined {
    const stats = this.#current(group, resource);
    if (stats === undefined) return undefined;
    return this.#stale() ? MAX_OBJECT_SIZE : stats.averageSizeBytes;
  }

  #current(group: string, resource: string): ObjectStats | undefined {
    if (this.#now() - this.#readAt > OBJECT_COUNT_FORGOTTEN_AFTER_MS) return undefined;
    return this.#stats.get(group)?.get(resource);
  }

  /** The last read failed and the last good one is too old to trust. */
  #stale(): boolean {
    return this.#lastReadFailed && this.#now() - this.#readAt > OBJECT_COUNT_STALE_AFTER_MS;
  }

  async #read(): Promise<readonly ServedObjectStats[]> {
    const served = this.#served();
    let stored: Map<string, ObjectStats> | undefined;
    try {
      const res = await this.#pool.query<{ api_group: string; resource: string; n: string; bytes: string }>({
        text: 'select api_group, resource, count(*) as n, coalesce(sum(pg_column_size(object)), 0) as bytes from objects group by api_group, resource',
        query_timeout: READ_TIMEOUT_MS,
      } as pg.QueryConfig);
      stored = new Map(
        res.rows.map((r) => {
          const count = Number(r.n);
          return [`${r.resource}/${r.api_group}`, { count, averageSizeBytes: count ? Math.floor(Number(r.bytes) / count) : 0 }];
        }),
      );
    } catch {
      this.#lastReadFailed = true;
      return served.map(({ group, resource }) => ({ group, resource, stats: undefined }));
    }
    const byGroup = new Map<string, Map<string, ObjectStats>>();
    const result = served.map(({ group, resource, storedKey }) => {
      const stats = stored.get(storedKey) ?? EMPTY;
      let byResource = byGroup.get(group);
      if (!byResource) byGroup.set(group, (byResource = new Map()));
      byResource.set(resource, stats);
      return { group, resource, stats };
    });
    this.#stats = byGroup;
    this.#readAt = this.#now();
    this.#lastReadFailed = false;
    return result;
  }

  /** Each served resource once (several versions share it), with the key of where its objects are stored. */
  #served(): { group: string; resource: string; storedKey: string }[] {
    const served = new Map<string, { group: string; resource: string; storedKey: string }>();
    for (const kind of this.#surface?.kinds ?? []) {
      // Kinds computed when read (ComponentStatus) or answered without storing (reviews) have no count upstream either.
      if (kind.computed || kind.respond) continue;
      const stored = storageRefOf(kind);
      // events.k8s.io Events are core Events in storage: both resources count them, as upstream's two stores do.
      served.set(`${kind.plural}/${kind.group}`, { group: kind.group, resource: kind.plural, storedKey: `${stored.resource}/${stored.group}` });
    }
    return [...served.values()];
  }
}
