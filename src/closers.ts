import type { Logger } from 'pino';

/**
 * What start-up brought up, to be closed in reverse order: at shutdown, and when start-up fails
 * half-way (so a failed start never leaves an embedded PostgreSQL or a pool behind). A closer that
 * fails is logged and the rest still run.
 */
export class Closers {
  readonly #logger: Logger;
  readonly #closers: { name: string; close: () => unknown }[] = [];

  constructor(logger: Logger) {
    this.#logger = logger;
  }

  add(name: string, close: () => unknown): void {
    this.#closers.push({ name, close });
  }

  async closeAll(): Promise<void> {
    for (const { name, close } of this.#closers.splice(0).reverse()) {
      try {
        await close();
      } catch (err) {
        this.#logger.error({ err, step: name }, 'shutdown step failed');
      }
    }
  }
}
