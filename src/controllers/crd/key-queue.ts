/**
 * The work queue every CRD controller runs on, as upstream's named rate-limited queues: a CRD name
 * is queued once however often it is added, never worked on twice at once, and a sync that throws
 * comes back after a backoff that doubles (5 ms up to 1000 s) until one succeeds. `addAfter` is
 * client-go's AddAfter (the establishing controller's delay on servers with several peers).
 */
import type { Logger } from 'pino';
import { WorkQueue } from '../garbage-collector/work-queue.ts';

export class KeyQueue {
  readonly #queue: WorkQueue<string>;
  readonly #timers = new Set<NodeJS.Timeout>();
  #stopped = false;

  constructor(name: string, sync: (key: string) => Promise<void>, logger: Logger, concurrency = 1) {
    this.#queue = new WorkQueue<string>(
      async (key) => {
        await sync(key);
        return 'forget';
      },
      (key, err) => logger.warn({ err, queue: name, key }, `${key} failed`),
      { concurrency },
    );
  }

  add(key: string): void {
    this.#queue.add(key);
  }

  addAfter(key: string, delayMs: number): void {
    if (delayMs <= 0) return this.add(key);
    if (this.#stopped) return;
    const timer = setTimeout(() => {
      this.#timers.delete(timer);
      this.#queue.add(key);
    }, delayMs);
    timer.unref();
    this.#timers.add(timer);
  }

  run(): void {
    this.#queue.run();
  }

  /** Resolves once nothing is queued or being worked on (tests). */
  idle(): Promise<void> {
    return this.#queue.idle();
  }

  stop(): void {
    this.#stopped = true;
    for (const t of this.#timers) clearTimeout(t);
    this.#timers.clear();
    this.#queue.shutDown();
  }
}
