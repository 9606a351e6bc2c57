import type { Logger } from 'pino';
import type { Closers } from '../closers.ts';
import type { Config } from '../config.ts';
import { CachedStorage, DEFAULT_WATCH_CACHE_MAX_BYTES } from '../storage/cache/cached-storage.ts';
import { parseWatchCacheSizes } from '../storage/cache/cache-sizes.ts';
import { postgresFreshnessProbe } from '../storage/cache/freshness-probe.ts';
import { postgresResourceCount } from '../storage/cache/resource-count.ts';
import type { Database } from '../storage/postgres/database.ts';
import type { Storage } from '../storage/storage.ts';

/**
 * Start-up step: the watch cache in front of the storage the API reads (unless --watch-cache=false).
 * It goes outside the timed storage, so that the PostgreSQL request metrics count only the reads that
 * reach PostgreSQL, as upstream's etcd metrics count only what reaches etcd.
 */
export function withWatchCache(config: Config, storage: Storage, database: Database, logger: Logger, closers: Closers): { storage: Storage; cache?: CachedStorage } {
  if (!config.watchCache) return { storage };
  const cache = new CachedStorage(storage, {
    probe: postgresFreshnessProbe(database.queries),
    countUpTo: postgresResourceCount(database.queries),
    logger,
    sizes: parseWatchCacheSizes(config.watchCacheSizes),
    // --workers processes each keep their own caches: they share the one budget.
    maxBytes: Math.floor(DEFAULT_WATCH_CACHE_MAX_BYTES / Math.max(1, config.workers || 1)),
  });
  closers.add('watch cache', () => cache.close());
  return { storage: cache, cache };
}
