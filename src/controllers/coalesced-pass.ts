/**
 * A controller whose work is a whole pass over what it watches (sign every token, aggregate every
 * role): a burst of informer events becomes one pass after a short delay, a request during a pass
 * brings exactly one more after it, and a pass that asks to be retried runs again a little later.
 */
export class CoalescedPass {
  readonly #pass: () => Promise<'retry' | void>;
  readonly #delayMs: number;
  readonly #retryMs: number;
  #pending: NodeJS.Timeout | null = null;
  #running = false;
  #again = false;
  #stopped = false;

  constructor(pass: () => Promise<'retry' | void>, options: { delayMs?: number; retryMs?: number } = {}) {
    this.#pass = pass;
    this.#delayMs = options.delayMs ?? 10;
    this.#retryMs = options.retryMs ?? 1000;
  }

  /** Asks for a pass (coalesced with any already asked for). */
  request(delayMs = this.#delayMs): void {
    if (this.#stopped || this.#pending) return;
    this.#pending = setTimeout(() => {
      this.#pending = null;
      void this.#run();
    }, delayMs);
    this.#pending.unref();
  }

  stop(): void {
    this.#stopped = true;
    if (this.#pending) clearTimeout(this.#pending);
    this.#pending = null;
  }

  async #run(): Promise<void> {
    if (this.#running) {
      this.#again = true;
      return;
    }
    this.#running = true;
    let retry = false;
    try {
      retry = (await this.#pass()) === 'retry';
    } finally {
      this.#running = false;
      if (this.#again) {
        this.#again = false;
        this.request();
      } else if (retry) this.request(this.#retryMs);
    }
  }
}
