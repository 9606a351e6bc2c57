import type { WorkEstimateInput } from '../work-estimator.ts';
import type { WorkEstimatorConfig } from './config.ts';
import { initialOnly, type WorkEstimate } from './estimate.ts';
import { seatCap } from './list-cost.ts';

const NS_PER_MS = 1e6;
/** Upstream keeps seat-seconds in fixed point, 1e-8 seat-seconds a unit: 10 ns per seat. */
const NS_PER_SEAT_SECOND_UNIT = 1e9 / 1e8;

/**
 * What a write costs, as kube-apiserver 1.34 estimates it: one seat while it runs, then the work of
 * sending its event to the resource's watchers. Each watcher is taken to cost a tenth of a seat for
 * 5 ms; the estimate counts that only from 10 watchers on, and reshapes it to at most the cap's
 * width held for correspondingly longer (same seat-seconds, narrower and longer), since a wide
 * request blocks its queue until that many seats are free.
 */
export function estimateMutatingWork(input: WorkEstimateInput, config: WorkEstimatorConfig): WorkEstimate {
  const minSeats = config.minimumSeats;
  if (!config.mutatingEstimatorEnabled) return initialOnly(minSeats);
  const { info } = input;
  // Minting a service account token writes nothing, so no watcher hears of it.
  if (info.resource === 'serviceaccounts' && info.subresource === 'token') return initialOnly(minSeats);

  const watchers = input.watchersOf(info.apiGroup, info.resource);
  if (watchers < Math.trunc(config.watchesPerSeat)) return initialOnly(1);

  const seats = Math.ceil(watchers / config.watchesPerSeat);
  // The work in upstream's fixed-point units, rounded as upstream rounds it, then spread over the capped seats.
  const workUnits = Math.round((seats * config.eventAdditionalDurationMs * NS_PER_MS) / NS_PER_SEAT_SECOND_UNIT);
  const finalSeats = Math.min(seats, seatCap(input.maxSeats, config.maximumMutatingSeatsLimit));
  const latencyNs = Math.trunc((workUnits / finalSeats) * NS_PER_SEAT_SECOND_UNIT);
  return { initialSeats: 1, finalSeats, additionalLatencyMs: latencyNs / NS_PER_MS };
}
