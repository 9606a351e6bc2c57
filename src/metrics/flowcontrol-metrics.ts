/**
 * API Priority and Fairness metrics (apiserver_flowcontrol_*), with kube-apiserver 1.34's names,
 * labels, help texts, stability levels and buckets (apiserver's util/flowcontrol/metrics). The
 * deprecated twins upstream still registers (request_concurrency_limit, request_concurrency_in_use)
 * are hidden in 1.34 and left out here. The dispatcher reports through per-level observers that
 * keep the series of each flow schema they met, so that a request bumps plain objects, never looks
 * a series up by its label strings.
 */
import type { CounterFamily, CounterSeries, GaugeFamily, GaugeSeries, HistogramFamily, HistogramSeries } from './families.ts';
import type { MetricsRegistry } from './metrics-registry.ts';
import type { HistogramDefinition, MetricDefinition } from './stability.ts';

const PL = 'priority_level';
const FS = 'flow_schema';

const QUEUE_LENGTH_BUCKETS = [0, 10, 25, 50, 100, 250, 500, 1000];
const REQUEST_DURATION_SECONDS_BUCKETS = [0, 0.005, 0.02, 0.05, 0.1, 0.2, 0.5, 1, 2, 5, 10, 15, 30];

export const REJECTED_REQUESTS_TOTAL: MetricDefinition = {
  name: 'apiserver_flowcontrol_rejected_requests_total',
  help: 'Number of requests rejected by API Priority and Fairness subsystem',
  stabilityLevel: 'BETA',
  labelNames: [PL, FS, 'reason'],
};
export const DISPATCHED_REQUESTS_TOTAL: MetricDefinition = {
  name: 'apiserver_flowcontrol_dispatched_requests_total',
  help: 'Number of requests executed by API Priority and Fairness subsystem',
  stabilityLevel: 'BETA',
  labelNames: [PL, FS],
};
export const CURRENT_INQUEUE_REQUESTS: MetricDefinition = {
  name: 'apiserver_flowcontrol_current_inqueue_requests',
  help: 'Number of requests currently pending in queues of the API Priority and Fairness subsystem',
  stabilityLevel: 'BETA',
  labelNames: [PL, FS],
};
export const CURRENT_INQUEUE_SEATS: MetricDefinition = {
  name: 'apiserver_flowcontrol_current_inqueue_seats',
  help: 'Number of seats currently pending in queues of the API Priority and Fairness subsystem',
  stabilityLevel: 'ALPHA',
  labelNames: [PL, FS],
};
export const REQUEST_QUEUE_LENGTH_AFTER_ENQUEUE: HistogramDefinition = {
  name: 'apiserver_flowcontrol_request_queue_length_after_enqueue',
  help: 'Length of queue in the API Priority and Fairness subsystem, as seen by each request after it is enqueued',
  stabilityLevel: 'ALPHA',
  labelNames: [PL, FS],
  buckets: QUEUE_LENGTH_BUCKETS,
};
export const CURRENT_EXECUTING_REQUESTS: MetricDefinition = {
  name: 'apiserver_flowcontrol_current_executing_requests',
  help: 'Number of requests in initial (for a WATCH) or any (for a non-WATCH) execution stage in the API Priority and Fairness subsystem',
  stabilityLevel: 'BETA',
  labelNames: [PL, FS],
};
export const CURRENT_EXECUTING_SEATS: MetricDefinition = {
  name: 'apiserver_flowcontrol_current_executing_seats',
  help: 'Concurrency (number of seats) occupied by the currently executing (initial stage for a WATCH, any stage otherwise) requests in the API Priority and Fairness subsystem',
  stabilityLevel: 'BETA',
  labelNames: [PL, FS],
};
export const REQUEST_WAIT_DURATION_SECONDS: HistogramDefinition = {
  name: 'apiserver_flowcontrol_request_wait_duration_seconds',
  help: 'Length of time a request spent waiting in its queue',
  stabilityLevel: 'BETA',
  labelNames: [PL, FS, 'execute'],
  buckets: REQUEST_DURATION_SECONDS_BUCKETS,
};
export const REQUEST_EXECUTION_SECONDS: HistogramDefinition = {
  name: 'apiserver_flowcontrol_request_execution_seconds',
  help: 'Duration of initial stage (for a WATCH) or any (for a non-WATCH) stage of request execution in the API Priority and Fairness subsystem',
  stabilityLevel: 'ALPHA',
  labelNames: [PL, FS, 'type'],
  buckets: REQUEST_DURATION_SECONDS_BUCKETS,
};
export const WORK_ESTIMATED_SEATS: HistogramDefinition = {
  name: 'apiserver_flowcontrol_work_estimated_seats',
  help: 'Number of estimated seats (maximum of initial and final seats) associated with requests in API Priority and Fairness',
  stabilityLevel: 'ALPHA',
  labelNames: [PL, FS],
  buckets: [1, 2, 4, 8, 16, 32, 64, 100],
};
export const NOMINAL_LIMIT_SEATS: MetricDefinition = {
  name: 'apiserver_flowcontrol_nominal_limit_seats',
  help: 'Nominal number of execution seats configured for each priority level',
  stabilityLevel: 'BETA',
  labelNames: [PL],
};
export const LOWER_LIMIT_SEATS: MetricDefinition = {
  name: 'apiserver_flowcontrol_lower_limit_seats',
  help: 'Configured lower bound on number of execution seats available to each priority level',
  stabilityLevel: 'ALPHA',
  labelNames: [PL],
};
export const UPPER_LIMIT_SEATS: MetricDefinition = {
  name: 'apiserver_flowcontrol_upper_limit_seats',
  help: 'Configured upper bound on number of execution seats available to each priority level',
  stabilityLevel: 'ALPHA',
  labelNames: [PL],
};
export const CURRENT_LIMIT_SEATS: MetricDefinition = {
  name: 'apiserver_flowcontrol_current_limit_seats',
  help: 'current derived number of execution seats available to each priority level',
  stabilityLevel: 'ALPHA',
  labelNames: [PL],
};
export const DEMAND_SEATS_HIGH_WATERMARK: MetricDefinition = {
  name: 'apiserver_flowcontrol_demand_seats_high_watermark',
  help: 'High watermark, over last adjustment period, of demand_seats',
  stabilityLevel: 'ALPHA',
  labelNames: [PL],
};
export const DEMAND_SEATS_AVERAGE: MetricDefinition = {
  name: 'apiserver_flowcontrol_demand_seats_average',
  help: 'Time-weighted average, over last adjustment period, of demand_seats',
  stabilityLevel: 'ALPHA',
  labelNames: [PL],
};
export const DEMAND_SEATS_STDEV: MetricDefinition = {
  name: 'apiserver_flowcontrol_demand_seats_stdev',
  help: 'Time-weighted standard deviation, over last adjustment period, of demand_seats',
  stabilityLevel: 'ALPHA',
  labelNames: [PL],
};
export const DEMAND_SEATS_SMOOTHED: MetricDefinition = {
  name: 'apiserver_flowcontrol_demand_seats_smoothed',
  help: 'Smoothed seat demands',
  stabilityLevel: 'ALPHA',
  labelNames: [PL],
};
export const TARGET_SEATS: MetricDefinition = {
  name: 'apiserver_flowcontrol_target_seats',
  help: 'Seat allocation targets',
  stabilityLevel: 'ALPHA',
  labelNames: [PL],
};
export const SEAT_FAIR_FRAC: MetricDefinition = {
  name: 'apiserver_flowcontrol_seat_fair_frac',
  help: "Fair fraction of server's concurrency to allocate to each priority level that can use it",
  stabilityLevel: 'ALPHA',
  labelNames: [],
};

/** The series one (priority level, flow schema) pair bumps. */
export interface FlowSeries {
  readonly dispatched: CounterSeries;
  readonly inQueueRequests: GaugeSeries;
  readonly inQueueSeats: GaugeSeries;
  readonly queueLength: HistogramSeries;
  readonly executingRequests: GaugeSeries;
  readonly executingSeats: GaugeSeries;
  readonly workEstimatedSeats: HistogramSeries;
  /** By the `execute` label: whether the request was to run after its wait. */
  readonly waitDuration: { readonly true: HistogramSeries; readonly false: HistogramSeries };
  /** By the `type` label. */
  readonly executionSeconds: { readonly regular: HistogramSeries; readonly watch: HistogramSeries };
  /** The rejection counter of a reason (queue-full, concurrency-limit, time-out). */
  rejected(reason: string): CounterSeries;
}

/** What the borrowing adjustment reports of a level every period. */
export interface LevelAdjustment {
  readonly highWatermark: number;
  readonly average: number;
  readonly stdDev: number;
  readonly smoothed: number;
  /** Undefined for the exempt level, which has no allocation target. */
  readonly target?: number;
  readonly currentLimit: number;
}

export class FlowcontrolMetrics {
  readonly #rejected: CounterFamily;
  readonly #dispatched: CounterFamily;
  readonly #inQueueRequests: GaugeFamily;
  readonly #inQueueSeats: GaugeFamily;
  readonly #queueLength: HistogramFamily;
  readonly #executingRequests: GaugeFamily;
  readonly #executingSeats: GaugeFamily;
  readonly #waitDuration: HistogramFamily;
  readonly #executionSeconds: HistogramFamily;
  readonly #workEstimatedSeats: HistogramFamily;
  readonly #nominalLimit: GaugeFamily;
  readonly #lowerLimit: GaugeFamily;
  readonly #upperLimit: GaugeFamily;
  readonly #currentLimit: GaugeFamily;
  readonly #demandHighWatermark: GaugeFamily;
  readonly #demandAverage: GaugeFamily;
  readonly #demandStdev: GaugeFamily;
  readonly #demandSmoothed: GaugeFamily;
  readonly #targetSeats: GaugeFamily;
  readonly #fairFrac: GaugeFamily;
  readonly #flows = new Map<string, Map<string, FlowSeries>>();

  constructor(registry: MetricsRegistry) {
    this.#rejected = registry.counter(REJECTED_REQUESTS_TOTAL);
    this.#dispatched = registry.counter(DISPATCHED_REQUESTS_TOTAL);
    this.#inQueueRequests = registry.gauge(CURRENT_INQUEUE_REQUESTS);
    this.#inQueueSeats = registry.gauge(CURRENT_INQUEUE_SEATS);
    this.#queueLength = registry.histogram(REQUEST_QUEUE_LENGTH_AFTER_ENQUEUE);
    this.#executingSeats = registry.gauge(CURRENT_EXECUTING_SEATS);
    this.#executingRequests = registry.gauge(CURRENT_EXECUTING_REQUESTS);
    this.#waitDuration = registry.histogram(REQUEST_WAIT_DURATION_SECONDS);
    this.#executionSeconds = registry.histogram(REQUEST_EXECUTION_SECONDS);
    this.#workEstimatedSeats = registry.histogram(WORK_ESTIMATED_SEATS);
    this.#nominalLimit = registry.gauge(NOMINAL_LIMIT_SEATS);
    this.#lowerLimit = registry.gauge(LOWER_LIMIT_SEATS);
    this.#upperLimit = registry.gauge(UPPER_LIMIT_SEATS);
    this.#demandHighWatermark = registry.gauge(DEMAND_SEATS_HIGH_WATERMARK);
    this.#demandAverage = registry.gauge(DEMAND_SEATS_AVERAGE);
    this.#demandStdev = registry.gauge(DEMAND_SEATS_STDEV);
    this.#demandSmoothed = registry.gauge(DEMAND_SEATS_SMOOTHED);
    this.#targetSeats = registry.gauge(TARGET_SEATS);
    this.#fairFrac = registry.gauge(SEAT_FAIR_FRAC);
    this.#currentLimit = registry.gauge(CURRENT_LIMIT_SEATS);
  }

  /** The series of a (priority level, flow schema) pair, made on first use and kept. */
  flow(level: string, schema: string): FlowSeries {
    let byLevel = this.#flows.get(level);
    if (!byLevel) this.#flows.set(level, (byLevel = new Map()));
    let series = byLevel.get(schema);
    if (!series) {
      const rejections = new Map<string, CounterSeries>();
      series = {
        dispatched: this.#dispatched.series(level, schema),
        inQueueRequests: this.#inQueueRequests.series(level, schema),
        inQueueSeats: this.#inQueueSeats.series(level, schema),
        queueLength: this.#queueLength.series(level, schema),
        executingRequests: this.#executingRequests.series(level, schema),
        executingSeats: this.#executingSeats.series(level, schema),
        workEstimatedSeats: this.#workEstimatedSeats.series(level, schema),
        waitDuration: { true: this.#waitDuration.series(level, schema, 'true'), false: this.#waitDuration.series(level, schema, 'false') },
        executionSeconds: { regular: this.#executionSeconds.series(level, schema, 'regular'), watch: this.#executionSeconds.series(level, schema, 'watch') },
        // Made when first counted, as upstream's: no series of 0 rejections for every reason.
        rejected: (reason) => {
          let counter = rejections.get(reason);
          if (!counter) rejections.set(reason, (counter = this.#rejected.series(level, schema, reason)));
          return counter;
        },
      };
      byLevel.set(schema, series);
    }
    return series;
  }

  /** A level's configured limits (nominal, lower and upper bounds), set at each configuration change. */
  levelLimits(level: string, nominal: number, lower: number, upper: number): void {
    this.#nominalLimit.series(level).set(nominal);
    this.#lowerLimit.series(level).set(lower);
    this.#upperLimit.series(level).set(upper);
  }

  levelAdjustment(level: string, a: LevelAdjustment): void {
    this.#demandHighWatermark.series(level).set(a.highWatermark);
    this.#demandAverage.series(level).set(a.average);
    this.#demandStdev.series(level).set(a.stdDev);
    this.#demandSmoothed.series(level).set(a.smoothed);
    if (a.target !== undefined) this.#targetSeats.series(level).set(a.target);
    this.#currentLimit.series(level).set(a.currentLimit);
  }

  fairFrac(value: number): void {
    this.#fairFrac.series().set(value);
  }
}
