/**
 * One priority level as the dispatcher keeps it across configuration changes: its object, its
 * queues, its concurrency limits (nominal, lower and upper bound, current) and its seat demand.
 */
import type { FlowcontrolMetrics } from '../metrics/flowcontrol-metrics.ts';
import type { PriorityLevelConfig } from './config-objects.ts';
import { Integrator, type IntegratorResults } from './integrator.ts';
import { queuingProblem, type Clock, type QueueSet, type QueueSetObserver, type QueuingConfig } from './queue-set.ts';

/** How fast the smoothed seat demand forgets: a half-life of about five minutes at one step per 10 s. */
const SEAT_DEMAND_SMOOTHING = 0.977;

export class SeatDemandStats {
  average = 0;
  stdDev = 0;
  highWatermark = 0;
  smoothed = 0;

  /** Takes a period's results: the smoothed figure rises at once to avg + stdDev, and decays slowly. */
  update(results: IntegratorResults): void {
    this.highWatermark = Math.round(results.max);
    if (results.duration <= 0) return;
    const deviation = Number.isNaN(results.deviation) ? 0 : results.deviation;
    this.average = results.average;
    this.stdDev = deviation;
    const envelope = results.average + deviation;
    this.smoothed = Math.max(envelope, SEAT_DEMAND_SMOOTHING * this.smoothed + (1 - SEAT_DEMAND_SMOOTHING) * envelope);
  }
}

export class PriorityLevelState {
  config: PriorityLevelConfig;
  /** Made at the first borrowing adjustment after the level appears, kept while it exists. */
  queues: QueueSet | undefined;
  /** The queuing configuration the next adjustment applies. */
  queuing: QueuingConfig;
  /** The level's object is gone but requests are still queued or running: it lives until they end. */
  quiescing = false;
  readonly demand: Integrator;
  readonly demandStats = new SeatDemandStats();
  readonly observer: QueueSetObserver;
  nominalCL = 0;
  /** Nominal less what it may lend. */
  minCL = 0;
  /** Nominal plus what it may borrow. */
  maxCL = 0;
  currentCL = 0;
  /** The most seats one request of this level may take (queuing levels; 0: no cap). */
  maxSeats = 0;

  constructor(config: PriorityLevelConfig, queuing: QueuingConfig, clock: Clock, metrics: FlowcontrolMetrics | undefined) {
    this.config = config;
    this.queuing = queuing;
    this.demand = new Integrator(() => clock.now());
    this.observer = levelObserver(config.name, this.demand, metrics);
  }

  get name(): string {
    return this.config.name;
  }

  get exempt(): boolean {
    return this.config.type === 'Exempt';
  }
}

/**
 * The queuing a level's object calls for (upstream's queueSetCompleterForPL), or why it cannot be
 * used: the union fields must agree with the type, only the level named `exempt` may be exempt, and
 * the queues must be dealable.
 */
export function queuingConfigOf(pl: PriorityLevelConfig): QueuingConfig | { problem: string } {
  if ((pl.type === 'Limited') !== (pl.limited !== undefined)) return { problem: 'broken union structure at the top, for Limited' };
  if ((pl.type === 'Exempt') !== (pl.exempt !== undefined)) return { problem: 'broken union structure at the top, for Exempt' };
  // A level does not switch between exempt and limited: the name decides.
  if ((pl.type === 'Exempt') !== (pl.name === 'exempt')) return { problem: 'non-alignment between name and type' };
  let config: QueuingConfig;
  if (pl.limited) {
    const response = pl.limited.limitResponse;
    if ((response.type === 'Reject') !== (response.queuing === undefined)) return { problem: 'broken union structure for limit response' };
    config = response.queuing
      ? { name: pl.name, desiredNumQueues: response.queuing.queues, queueLengthLimit: response.queuing.queueLengthLimit, handSize: response.queuing.handSize }
      : { name: pl.name, desiredNumQueues: 0, queueLengthLimit: 0, handSize: 0 };
  } else {
    config = { name: pl.name, desiredNumQueues: -1, queueLengthLimit: 0, handSize: 0 };
  }
  const problem = queuingProblem(config);
  if (problem) return { problem: `priority level "${pl.name}" has QueuingConfiguration ${JSON.stringify(config)}, which is invalid: ${problem}` };
  return config;
}

/** The queues' reports: into the metrics by flow schema, and into the level's seat demand. */
function levelObserver(level: string, demand: Integrator, metrics: FlowcontrolMetrics | undefined): QueueSetObserver {
  if (!metrics) {
    return {
      inQueue: () => undefined,
      executing: () => undefined,
      seatsInUse: () => undefined,
      rejected: () => undefined,
      queueLengthAfterEnqueue: () => undefined,
      seatDemand: (seats) => demand.set(seats),
    };
  }
  return {
    inQueue(fs, requests, seats) {
      const s = metrics.flow(level, fs);
      s.inQueueRequests.inc(requests);
      s.inQueueSeats.inc(seats);
    },
    executing(fs, requests) {
      metrics.flow(level, fs).executingRequests.inc(requests);
    },
    seatsInUse(fs, seats) {
      metrics.flow(level, fs).executingSeats.inc(seats);
    },
    rejected(fs, reason) {
      metrics.flow(level, fs).rejected(reason).inc();
    },
    queueLengthAfterEnqueue(fs, length) {
      metrics.flow(level, fs).queueLength.observe(length);
    },
    seatDemand: (seats) => demand.set(seats),
  };
}
