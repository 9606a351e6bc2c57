/**
 * API Priority and Fairness work estimation, as kube-apiserver 1.34 estimates it: how many seats of
 * its priority level a request occupies while it runs, and how many it keeps, and for how long,
 * after it finishes. Lists (and watches that start with a list) cost by the objects they read;
 * writes cost by the watchers their event goes to; everything else costs one seat.
 *
 * Pure and called for every request: the counts it needs come from the caller (work-inputs.ts keeps
 * them in memory), and the common results are shared frozen objects, so a get allocates nothing.
 *
 * Upstream estimates exempt requests too (only its metrics use the figure) and non-resource
 * requests by their lowercase method, which never names a list or a write it counts: one seat.
 */
import type { RequestInfo } from '../api/request-info.ts';
import { DEFAULT_WORK_ESTIMATOR_CONFIG, type WorkEstimatorConfig } from './work-estimator/config.ts';
import { initialOnly, type WorkEstimate } from './work-estimator/estimate.ts';
import { estimateListWork } from './work-estimator/list-cost.ts';
import { estimateMutatingWork } from './work-estimator/mutating-cost.ts';

export * from './work-estimator/config.ts';
export { ONE_SEAT, maxSeatsOf, type WorkEstimate } from './work-estimator/estimate.ts';

export interface WorkEstimateInput {
  readonly info: RequestInfo;
  /** The request's query. */
  readonly query: URLSearchParams;
  /**
   * Stored objects of the served resource (group, plural); undefined when it is not counted. A count
   * that has gone stale is reported as INFINITE_OBJECT_COUNT (with MAX_OBJECT_SIZE as its size), so
   * that the request costs the most, as upstream does.
   */
  objectCount(group: string, resource: string): number | undefined;
  /** Current watchers of the resource. */
  watchersOf(group: string, resource: string): number;
  /**
   * The priority level's per-request cap (priorityLevelMaxSeats of its nominal concurrency), for
   * queuing levels; absent or 0 for exempt and Reject levels, which upstream gives no cap: the
   * configured limits apply.
   */
  readonly maxSeats?: number;
  /**
   * The average stored size of the resource's objects in bytes (0 or undefined: unknown). The 1.34
   * default estimate is by size; without it, a list of objects from storage is costed as if every
   * object were as large as an object may be.
   */
  averageObjectSize?(group: string, resource: string): number | undefined;
  /** Default: 1.34 with its default feature gates (see workEstimatorConfig for other gates). */
  readonly config?: WorkEstimatorConfig;
}

export function estimateWork(input: WorkEstimateInput): WorkEstimate {
  const config = input.config ?? DEFAULT_WORK_ESTIMATOR_CONFIG;
  if (!input.info.isResourceRequest) return initialOnly(config.minimumSeats);
  switch (input.info.verb) {
    case 'list':
      return estimateListWork(input, config);
    case 'watch':
      // With WatchList a watch can begin by sending the list's contents: it costs that list.
      return config.watchListCost ? estimateListWork(input, config) : initialOnly(config.minimumSeats);
    case 'create':
    case 'update':
    case 'patch':
    case 'delete':
      return estimateMutatingWork(input, config);
    default:
      return initialOnly(config.minimumSeats);
  }
}
