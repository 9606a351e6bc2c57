import type { WorkEstimateInput } from '../work-estimator.ts';
import {
  BYTES_PER_SEAT,
  CACHE_WITH_STREAMING_MAX_MEMORY_USAGE,
  MAX_OBJECT_SIZE,
  type WorkEstimatorConfig,
} from './config.ts';
import { initialOnly, type WorkEstimate } from './estimate.ts';
import { hasSelector, listFromStorage, listLimit, listOptionsConvert, sendsInitialEvents } from './list-options.ts';

/**
 * What a list costs (and a watch that starts with one), as kube-apiserver 1.34 estimates it: from
 * how many objects of the resource are stored and how large they are on average, how many of them
 * the request reads, and whether the watch cache or storage answers it.
 */
export function estimateListWork(input: WorkEstimateInput, config: WorkEstimatorConfig): WorkEstimate {
  const { info, query } = input;
  const minSeats = config.minimumSeats;
  const maxSeats = seatCap(input.maxSeats, config.maximumListSeatsLimit);

  if (!listOptionsConvert(query)) return initialOnly(maxSeats);
  // A watch costs its list only when it asks for initial events; otherwise it just starts.
  if (info.verb === 'watch' && !sendsInitialEvents(query)) return initialOnly(minSeats);

  const limit = listLimit(query);
  // A watch's initial events always come from the cache.
  const fromCache = info.verb === 'watch' || !listFromStorage(query, limit, config.consistentReadsFromCache);

  const count = input.objectCount(info.apiGroup, info.resource);
  // Not counted: a typo, a resource long gone, or an aggregated API another server answers (cheap
  // for this one). Upstream cannot tell them apart and charges the least rather than overcharge.
  if (count === undefined) return initialOnly(minSeats);

  // A list naming one object (metadata.name=) is a get to storage.
  const single = info.name !== '';
  const seats = config.sizeBasedListCost
    ? seatsByObjectSize(count, input.averageObjectSize?.(info.apiGroup, info.resource) ?? 0, limit, fromCache, single, hasSelector(query))
    : seatsByObjectCount(count, limit, fromCache, single, hasSelector(query), config.objectsPerSeat);
  return initialOnly(Math.min(Math.max(seats, minSeats), maxSeats));
}

/** The priority level's cap when it has one below the configured limit, else the limit. */
export function seatCap(levelMaxSeats: number | undefined, limit: number): number {
  return levelMaxSeats === undefined || levelMaxSeats <= 0 || levelMaxSeats > limit ? limit : levelMaxSeats;
}

/**
 * Seats by the memory the request holds at once: the objects it loads times their average size,
 * one seat per 100 kB. The cache streams, so it never holds more than 1 MB; storage with a selector
 * reads at least half the objects to find the matching ones.
 */
function seatsByObjectSize(count: number, averageSize: number, limit: number, fromCache: boolean, single: boolean, selector: boolean): number {
  // Objects are stored but their size is unknown: assume the largest.
  const size = averageSize <= 0 && count !== 0 ? MAX_OBJECT_SIZE : averageSize;
  const limited = limit > 0 && limit < count ? limit : count;
  let loaded: number;
  if (single) loaded = 1;
  else if (fromCache) loaded = limited;
  else if (selector) loaded = Math.max(limited, Math.trunc(count / 2));
  else loaded = limited;
  let bytes = loaded * size;
  if (fromCache) bytes = Math.min(bytes, CACHE_WITH_STREAMING_MAX_MEMORY_USAGE);
  return Math.ceil(bytes / BYTES_PER_SEAT);
}

/**
 * Seats by the objects processed (SizeBasedListCostEstimate off): the cache walks all of them;
 * storage with a selector reads all and returns up to the limit; storage without one reads and
 * returns the limit.
 */
function seatsByObjectCount(count: number, limit: number, fromCache: boolean, single: boolean, selector: boolean, objectsPerSeat: number): number {
  const limited = limit > 0 && limit < count ? limit : count;
  let processed: number;
  if (single) processed = 1;
  else if (fromCache) processed = count;
  else if (selector) processed = count + limited;
  else processed = 2 * limited;
  return Math.ceil(processed / objectsPerSeat);
}
