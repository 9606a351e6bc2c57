/**
 * client-go's rate-limited work queue, as the garbage collector uses it: an item is queued once
 * however often it is added; an item being worked on that is added again is worked on again after
 * (never twice at once); a failed item comes back after a per-item exponential backoff that a
 * success resets. Up to `concurrency` items are worked on at once.
 */

/** What the worker asks for an item it finished: forget its failures, or try it again later. */
export type WorkResult = 'forget' | 'requeue';

export interface WorkQueueOptions {
  readonly concurrency: number;
  /** The first retry's delay; each further failure doubles it (upstream: 5 ms). */
  readonly baseDelayMs?: number;
  /** The longest delay (upstream: 1000 s). */
  readonly maxDelayMs?: number;
}

export class WorkQueue<T> {
  readonly #work: (item: T) => Promise<WorkResult>;
  readonly #onError: (item: T, err: unknown) => void;
  readonly #concurrency: number;
  readonly #baseDelayMs: number;
  readonly #maxDelayMs: number;
  readonly #queue: T[] = [];
  readonly #dirty = new Set<T>();
  readonly #processing = new Set<T>();
  readonly #failures = new Map<T, number>();
  readonly #timers = new Set<NodeJS.Timeout>();
  #active = 0;
  #running = false;
  #shutDown = false;
  #idle: (() => void)[] = [];

  constructor(work: (item: T) => Promise<WorkResult>, onError: (item: T, err: unknown) => void, options: WorkQueueOptions) {
    this.#work = work;
    this.#onError = onError;
    this.#concurrency = options.concurrency;
    this.#baseDelayMs = options.baseDelayMs ?? 5;
    this.#maxDelayMs = options.maxDelayMs ?? 1_000_000;
  }

  /** Queues an item (a no-op when it is queued already). Items wait until `run`. */
  add(item: T): void {
    if (this.#shutDown || this.#dirty.has(item)) return;
    this.#dirty.add(item);
    // Being worked on: it is queued again when that ends.
    if (this.#processing.has(item)) return;
    this.#queue.push(item);
    this.#pump();
  }

  /** Queues an item after its backoff, which doubles with each call until `forget`. */
  addRateLimited(item: T): void {
    if (this.#shutDown) return;
    const failures = this.#failures.get(item) ?? 0;
    this.#failures.set(item, failures + 1);
    const delay = Math.min(this.#baseDelayMs * 2 ** failures, this.#maxDelayMs);
    const timer = setTimeout(() => {
      this.#timers.delete(timer);
      this.add(item);
    }, delay);
    timer.unref();
    this.#timers.add(timer);
  }

  forget(item: T): void {
    this.#failures.delete(item);
  }

  /** Starts working on queued items. */
  run(): void {
    this.#running = true;
    this.#pump();
  }

  /** Drops everything queued and waiting; items being worked on finish, their results ignored. */
  shutDown(): void {
    this.#shutDown = true;
    for (const t of this.#timers) clearTimeout(t);
    this.#timers.clear();
    this.#queue.length = 0;
    this.#dirty.clear();
    this.#failures.clear();
  }

  /** Items queued or being worked on (for tests and logs). */
  get length(): number {
    return this.#queue.length + this.#active;
  }

  /** Resolves once nothing is queued or being worked on (items waiting for their backoff aside). */
  idle(): Promise<void> {
    if (this.length === 0) return Promise.resolve();
    return new Promise((resolve) => this.#idle.push(resolve));
  }

  #pump(): void {
    if (!this.#running || this.#shutDown) return;
    while (this.#active < this.#concurrency && this.#queue.length > 0) {
      const item = this.#queue.shift() as T;
      this.#dirty.delete(item);
      this.#processing.add(item);
      this.#active++;
      void this.#process(item);
    }
  }

  async #process(item: T): Promise<void> {
    let result: WorkResult = 'requeue';
    try {
      result = await this.#work(item);
    } catch (err) {
      this.#onError(item, err);
    }
    this.#active--;
    this.#processing.delete(item);
    if (!this.#shutDown) {
      if (result === 'requeue') this.addRateLimited(item);
      else this.forget(item);
      if (this.#dirty.has(item)) this.#queue.push(item);
      this.#pump();
    }
    if (this.length === 0) {
      const waiting = this.#idle;
      this.#idle = [];
      for (const resolve of waiting) resolve();
    }
  }
}
