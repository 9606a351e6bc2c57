import type { FeatureGates } from '../../api/request-context.ts';

/**
 * The parameters of APF's work estimation, with kube-apiserver 1.34's values (apiserver's
 * flowcontrol/request config and list estimator). Seats are the unit of concurrency a request holds;
 * most requests hold one, lists and watches that start with a list hold more, and writes seen by
 * many watchers hold extra seats for a short while after they finish.
 */

/** No request holds fewer seats. */
export const MINIMUM_SEATS = 1;
/** The most a list may cost when SizeBasedListCostEstimate is on (its 1.34 default). */
export const MAXIMUM_LIST_SEATS_LIMIT = 100;
/** The most a list may cost with the older, count-based estimate (SizeBasedListCostEstimate off). */
export const MAXIMUM_LIST_SEATS_LIMIT_BY_COUNT = 10;
/** The most a write may hold after it finishes. */
export const MAXIMUM_MUTATING_SEATS_LIMIT = 10;
/** The count-based estimate: one seat per this many objects processed. */
export const OBJECTS_PER_SEAT = 100;
/** One final seat per this many watchers a write's event goes to. */
export const WATCHES_PER_SEAT = 10;
/** How long one final seat is held per event, before the reshaping to fewer seats. */
export const EVENT_ADDITIONAL_DURATION_MS = 5;

/** The size-based estimate: one seat per this many bytes loaded in memory at once. */
export const BYTES_PER_SEAT = 100_000;
/** A list served from the cache is streamed: it never holds more than this in memory. */
export const CACHE_WITH_STREAMING_MAX_MEMORY_USAGE = 1_000_000;
/** The largest object etcd is advised to accept; the size assumed when none is known. */
export const MAX_OBJECT_SIZE = 1_500_000;
/** The count assumed when the real one has gone stale: large enough to cost the most. */
export const INFINITE_OBJECT_COUNT = 1_000_000_000;

/** A queuing priority level's cap on one request's seats is this share of its nominal concurrency… */
export const PRIORITY_LEVEL_MAX_SEATS_PERCENT = 0.15;

export interface WorkEstimatorConfig {
  readonly minimumSeats: number;
  readonly maximumListSeatsLimit: number;
  readonly maximumMutatingSeatsLimit: number;
  readonly objectsPerSeat: number;
  readonly watchesPerSeat: number;
  readonly eventAdditionalDurationMs: number;
  /** Upstream keeps a switch for the write estimate (on by default) until it is tuned. */
  readonly mutatingEstimatorEnabled: boolean;
  /** SizeBasedListCostEstimate: lists cost by the bytes they load rather than the objects they touch. */
  readonly sizeBasedListCost: boolean;
  /** WatchList: a watch that asks for initial events costs what the list it starts with costs. */
  readonly watchListCost: boolean;
  /**
   * Whether a consistent list (no resourceVersion) counts as served from the watch cache.
   * kube-apiserver 1.34 does so when ConsistentListFromCache is on (GA, locked) and etcd supports
   * progress notifications (3.5.13 and later), which is how a current cluster runs; upstream's unit
   * tests run without etcd and so estimate such lists as reads from etcd.
   */
  readonly consistentReadsFromCache: boolean;
}

/** kube-apiserver 1.34 with its default feature gates. */
export const DEFAULT_WORK_ESTIMATOR_CONFIG: WorkEstimatorConfig = Object.freeze({
  minimumSeats: MINIMUM_SEATS,
  maximumListSeatsLimit: MAXIMUM_LIST_SEATS_LIMIT,
  maximumMutatingSeatsLimit: MAXIMUM_MUTATING_SEATS_LIMIT,
  objectsPerSeat: OBJECTS_PER_SEAT,
  watchesPerSeat: WATCHES_PER_SEAT,
  eventAdditionalDurationMs: EVENT_ADDITIONAL_DURATION_MS,
  mutatingEstimatorEnabled: true,
  sizeBasedListCost: true,
  watchListCost: true,
  consistentReadsFromCache: true,
});

/** The configuration a server with these feature gates estimates with (made once, at start). */
export function workEstimatorConfig(gates: FeatureGates): WorkEstimatorConfig {
  const sizeBasedListCost = gates.enabled('SizeBasedListCostEstimate');
  return Object.freeze({
    ...DEFAULT_WORK_ESTIMATOR_CONFIG,
    // Upstream raised the list cap when lists began to cost by size.
    maximumListSeatsLimit: sizeBasedListCost ? MAXIMUM_LIST_SEATS_LIMIT : MAXIMUM_LIST_SEATS_LIMIT_BY_COUNT,
    sizeBasedListCost,
    watchListCost: gates.enabled('WatchList'),
    consistentReadsFromCache: gates.enabled('ConsistentListFromCache'),
  });
}

/**
 * The per-request seat cap of a queuing priority level: 15% of its nominal concurrency limit, but
 * no more than the limit divided by the hand size (so that one request's hand of queues can hold
 * it), and at least one. 15% keeps the old cap of 10 for the default levels at the default total
 * concurrency of 600. Exempt and Reject levels have no cap of their own (give the estimator none).
 */
export function priorityLevelMaxSeats(nominalConcurrencyLimit: number, handSize: number): number {
  const byShare = Math.ceil(nominalConcurrencyLimit * PRIORITY_LEVEL_MAX_SEATS_PERCENT);
  const byHand = Math.trunc(nominalConcurrencyLimit / handSize);
  return Math.max(1, Math.min(byShare, byHand));
}
