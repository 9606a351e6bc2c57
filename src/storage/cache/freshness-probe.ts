import type { PreparedQueries } from '../postgres/prepared-queries.ts';
import { orUnavailable } from '../postgres/unavailable.ts';
import type { ResourceRef } from '../storage.ts';

/** What a consistent read from the cache must know first: the store's revision now, and whether the cache can be trusted for the resource. */
export interface Freshness {
  /** The newest committed version (what Storage.currentVersion reads). */
  readonly version: number;
  /**
   * Rows of the resource were written outside the server (migrations/0004): they have no history,
   * so no watch (and no cache) sees them; their reads must go to the database, which checks them.
   */
  readonly outside: boolean;
}

export type FreshnessProbe = (ref: ResourceRef) => Promise<Freshness>;

/**
 * One round trip of two index probes: the newest history row (the primary key's last entry; commit
 * order is version order, see migrations/0002) and the partial index of rows written outside the
 * server (empty normally). Upstream asks etcd for its current revision the same way before a
 * consistent list from the watch cache (GetCurrentResourceVersionFromStorage). The sequence's
 * last_value would be cheaper still, but a value taken by a batch that then failed never commits,
 * and a cache waiting for it would wait in vain.
 */
export function postgresFreshnessProbe(queries: PreparedQueries): FreshnessProbe {
  return async (ref) => {
    const res = await orUnavailable(() =>
      queries.query(
        'watch_cache_freshness',
        `select coalesce((select max(resource_version) from history), (select compacted_resource_version from compaction)) as rv,
                exists (select 1 from objects where api_group = $1 and resource = $2 and written_outside) as outside`,
        [ref.group, ref.resource],
      ),
    );
    return { version: Number(res.rows[0].rv), outside: res.rows[0].outside === true };
  };
}
