import type { PreparedQueries } from '../postgres/prepared-queries.ts';
import { orUnavailable } from '../postgres/unavailable.ts';
import type { ResourceRef } from '../storage.ts';

/**
 * Counts a resource's objects, stopping at `atMost`: an index-only scan of at most that many
 * primary-key entries, so asking whether a million-object resource still holds 200,000 reads
 * 200,000 entries, not a million rows (CachedStorageOptions.countUpTo).
 */
export function postgresResourceCount(queries: PreparedQueries): (ref: ResourceRef, atMost: number) => Promise<number> {
  return async (ref, atMost) => {
    const res = await orUnavailable(() =>
      queries.query<{ n: number }>(
        'watch_cache_count_up_to',
        'select count(*)::int as n from (select 1 from objects where api_group = $1 and resource = $2 limit $3) up_to',
        [ref.group, ref.resource, atMost],
      ),
    );
    return res.rows[0].n;
  };
}
