import { performance } from 'node:perf_hooks';
import { rounded, summarize, type Summary } from './stats.ts';

/** How long one write's event may take to reach every watcher before the run fails. */
const DELIVERY_TIMEOUT_MS = 15_000;

/**
 * Write→event timing for a fan-out run (the server's watches and etcd's alike): writes numbered k are
 * sent one at a time, each watcher's arrival of k is recorded, and a write completes once all
 * `watchers` have it. Writes below `warmups` are waited for but not counted.
 */
export class Deliveries {
  readonly #watchers: number;
  readonly #warmups: number;
  readonly #sendAt: number[] = [];
  readonly #received: Int32Array;
  readonly #waiters = new Map<number, () => void>();
  readonly #latencies: number[] = [];
  readonly #firstArrival: number[] = [];
  readonly #lastArrival: number[] = [];

  constructor(watchers: number, writes: number, warmups: number) {
    this.#watchers = watchers;
    this.#warmups = warmups;
    this.#received = new Int32Array(writes + warmups);
  }

  /** A watcher received write k at `at` (performance.now()). */
  arrived(k: number, at: number): void {
    const count = ++this.#received[k];
    if (k >= this.#warmups) {
      const ms = at - this.#sendAt[k];
      this.#latencies.push(ms);
      if (count === 1) this.#firstArrival[k] = ms;
      if (count === this.#watchers) this.#lastArrival[k] = ms;
    }
    if (count === this.#watchers) this.#waiters.get(k)?.();
  }

  /** Sends write k and waits for every watcher to have it; returns the write's own latency (ms). */
  async write(k: number, send: () => Promise<void>, what = 'write'): Promise<number> {
    const delivered = new Promise<boolean>((resolve) => {
      const timer = setTimeout(() => resolve(false), DELIVERY_TIMEOUT_MS);
      this.#waiters.set(k, () => {
        clearTimeout(timer);
        resolve(true);
      });
    });
    this.#sendAt[k] = performance.now();
    await send();
    const ackMs = performance.now() - this.#sendAt[k];
    const ok = await delivered;
    this.#waiters.delete(k);
    if (!ok) throw new Error(`${what} ${k}: only ${this.#received[k]} of ${this.#watchers} watchers got the event within ${DELIVERY_TIMEOUT_MS} ms`);
    return ackMs;
  }

  /** Over every counted delivery, and over the first and the last watcher of each write. */
  summary(): { deliveries: Summary; firstWatcher: Summary; lastWatcher: Summary } {
    return {
      deliveries: rounded(summarize(this.#latencies)),
      firstWatcher: rounded(summarize(this.#firstArrival.filter((x) => x !== undefined))),
      lastWatcher: rounded(summarize(this.#lastArrival.filter((x) => x !== undefined))),
    };
  }
}
