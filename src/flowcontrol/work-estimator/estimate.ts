/**
 * The work a request is estimated to be: the seats it holds while it runs, and the seats it keeps
 * for a while after it finishes (a write's events still being sent to watchers).
 */
export interface WorkEstimate {
  readonly initialSeats: number;
  readonly finalSeats: number;
  readonly additionalLatencyMs: number;
}

/** Estimates that only hold seats while they run are shared and frozen: no allocation per request. */
const SHARED_LIMIT = 1000;
const INITIAL_ONLY: readonly WorkEstimate[] = Array.from({ length: SHARED_LIMIT + 1 }, (_, seats) =>
  Object.freeze({ initialSeats: seats, finalSeats: 0, additionalLatencyMs: 0 }),
);

/** One seat, nothing after: what most requests cost. */
export const ONE_SEAT: WorkEstimate = INITIAL_ONLY[1]!;

export function initialOnly(seats: number): WorkEstimate {
  return INITIAL_ONLY[seats] ?? Object.freeze({ initialSeats: seats, finalSeats: 0, additionalLatencyMs: 0 });
}

/** The most seats the request holds at any time, which is what a queue must have free to start it. */
export function maxSeatsOf(estimate: WorkEstimate): number {
  return Math.max(estimate.initialSeats, estimate.finalSeats);
}
