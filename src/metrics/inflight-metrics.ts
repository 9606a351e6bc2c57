import type { Context } from 'koa';
import type { GaugeFamily } from './families.ts';
import type { RequestMetrics } from './request-metrics.ts';

/** The two kinds the max-in-flight filter limits separately. */
export type InFlightKind = 'mutating' | 'nonMutating';

/** What the max-in-flight filter reports: how many of a kind run now, and each request it refused. */
export interface InFlightObserver {
  /** The filter limits at least one kind: the gauge is kept from now on. */
  start(): void;
  inFlight(kind: InFlightKind, count: number): void;
  dropped(ctx: Context): void;
}

const PUBLISH_INTERVAL_MS = 1000;

/**
 * apiserver_current_inflight_requests as upstream keeps it: the highest number of requests of each
 * kind (readOnly, mutating) in flight during the last second, published once a second. The watermark
 * starts each second from the number still in flight (upstream's starts from 0, which reads 0 for a
 * second in which long requests ran but none began or ended).
 */
export class InFlightMetrics implements InFlightObserver {
  readonly #gauge: GaugeFamily;
  readonly #requests: () => RequestMetrics | undefined;
  readonly #current = { mutating: 0, nonMutating: 0 };
  readonly #highest = { mutating: 0, nonMutating: 0 };
  #timer: NodeJS.Timeout | undefined;

  constructor(gauge: GaugeFamily, requests: () => RequestMetrics | undefined) {
    this.#gauge = gauge;
    this.#requests = requests;
  }

  start(): void {
    if (this.#timer) return;
    this.#publish();
    this.#timer = setInterval(() => this.#publish(), PUBLISH_INTERVAL_MS);
    this.#timer.unref();
  }

  inFlight(kind: InFlightKind, count: number): void {
    this.#current[kind] = count;
    if (count > this.#highest[kind]) this.#highest[kind] = count;
  }

  dropped(ctx: Context): void {
    this.#requests()?.dropped(ctx);
  }

  stop(): void {
    clearInterval(this.#timer);
    this.#timer = undefined;
  }

  #publish(): void {
    this.#gauge.series('readOnly').set(this.#highest.nonMutating);
    this.#gauge.series('mutating').set(this.#highest.mutating);
    this.#highest.nonMutating = this.#current.nonMutating;
    this.#highest.mutating = this.#current.mutating;
  }
}
