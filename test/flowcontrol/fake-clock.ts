import type { Clock } from '../../src/flowcontrol/queue-set.ts';

/** A clock the test moves: `advance` runs the timers that fall due, in order. */
export class FakeClock implements Clock {
  #now = 0;
  #timers: { at: number; fn: () => void }[] = [];
  readonly epoch = Date.UTC(2025, 0, 2, 3, 4, 5, 600);

  now(): number {
    return this.#now;
  }

  wallNow(): number {
    return this.epoch + this.#now;
  }

  after(ms: number, fn: () => void): void {
    this.#timers.push({ at: this.#now + ms, fn });
  }

  advance(ms: number): void {
    const until = this.#now + ms;
    for (;;) {
      this.#timers.sort((a, b) => a.at - b.at);
      const next = this.#timers[0];
      if (!next || next.at > until) break;
      this.#timers.shift();
      this.#now = next.at;
      next.fn();
    }
    this.#now = until;
  }
}
