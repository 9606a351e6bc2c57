/**
 * The `Retry-After` of a 429 from a priority level, as upstream's dropped-requests tracker derives
 * it: 1 second normally; while a level keeps rejecting (at least 3 × the current value per current
 * value's worth of seconds) it doubles, up to 32, at most once per current value's worth of seconds;
 * when rejections fall below one per second of it, it comes back down a second at a time.
 */
const MAX_RETRY_AFTER = 32;

interface SecondCount {
  readonly second: number;
  readonly count: number;
}

class LevelDrops {
  history: SecondCount[] = [];
  currentSecond = 0;
  currentCount = 0;
  retryAfter = 1;
  retryAfterUpdatedAt = 0;

  record(second: number): void {
    if (second === this.currentSecond) {
      this.currentCount++;
      return;
    }
    this.#addHistory(this.currentSecond, this.currentCount);
    this.currentSecond = second;
    this.currentCount = 1;
    this.#update(second);
  }

  #addHistory(second: number, count: number): void {
    this.history.push({ second, count });
    const keep = Math.min(2 * this.retryAfter, MAX_RETRY_AFTER);
    let start = 0;
    while (start < this.history.length && second - this.history[start]!.second > keep) start++;
    if (start > 0) this.history = this.history.slice(start);
  }

  /** Drops in the last retryAfter seconds before `second` decide the next value. */
  #update(second: number): void {
    let dropped = 0;
    for (let i = this.history.length - 1; i >= 0; i--) {
      const h = this.history[i]!;
      if (second - h.second > this.retryAfter) break;
      if (h.second < second) dropped += h.count;
    }
    if (second - this.retryAfterUpdatedAt >= this.retryAfter && dropped >= 3 * this.retryAfter) {
      this.retryAfter = Math.min(this.retryAfter * 2, MAX_RETRY_AFTER);
      this.retryAfterUpdatedAt = second;
      return;
    }
    if (dropped < this.retryAfter && this.retryAfter > 1) this.retryAfter--;
  }
}

export class DroppedRequests {
  readonly #levels = new Map<string, LevelDrops>();
  readonly #nowMs: () => number;

  constructor(nowMs: () => number = Date.now) {
    this.#nowMs = nowMs;
  }

  record(levelName: string): void {
    let level = this.#levels.get(levelName);
    if (!level) this.#levels.set(levelName, (level = new LevelDrops()));
    level.record(Math.floor(this.#nowMs() / 1000));
  }

  /** Seconds a rejected client of this level is told to wait. */
  retryAfter(levelName: string): number {
    return this.#levels.get(levelName)?.retryAfter ?? 1;
  }
}
