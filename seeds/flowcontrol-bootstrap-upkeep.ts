/**
 * Keeps the API priority and fairness bootstrap configuration current after start: upstream's
 * post-start hook runs its ensure pass again every minute on every kube-apiserver, so that a deleted
 * suggested object comes back, a mandatory one is restored, and objects of an older release go.
 * A failed pass is logged and the next one tries again.
 */
import type { Logger } from 'pino';
import type { KindDefinition } from '../src/registry/kind.ts';
import type { Storage } from '../src/storage/storage.ts';
import { ensureFlowControlBootstrap } from './flowcontrol-bootstrap.ts';

/** Upstream's period. */
export const ENSURE_PERIOD_MS = 60_000;

export interface UpkeepOptions {
  readonly storage: Storage;
  readonly kinds: readonly KindDefinition[];
  readonly logger: Logger;
  /** Time between passes; tests shorten it. */
  readonly periodMs?: number;
}

export class FlowControlBootstrapUpkeep {
  readonly #options: UpkeepOptions;
  #timer: NodeJS.Timeout | undefined;
  #running: Promise<string[]> | undefined;

  constructor(options: UpkeepOptions) {
    this.#options = options;
  }

  start(): void {
    if (this.#timer) return;
    this.#timer = setInterval(() => void this.runPass().catch(() => undefined), this.#options.periodMs ?? ENSURE_PERIOD_MS);
    // A pending pass must not keep the process alive.
    this.#timer.unref();
  }

  /** Stops the timer and waits for a pass under way, so that nothing writes after shutdown. */
  async stop(): Promise<void> {
    clearInterval(this.#timer);
    this.#timer = undefined;
    await this.#running?.catch(() => undefined);
  }

  /** One pass now (or the one under way): what it changed. Failures are logged, then rethrown. */
  runPass(): Promise<string[]> {
    this.#running ??= ensureFlowControlBootstrap(this.#options.storage, this.#options.kinds, this.#options.logger)
      .catch((err: unknown) => {
        this.#options.logger.warn({ err }, 'API priority and fairness bootstrap ensurer failed; retrying on its next pass');
        throw err;
      })
      .finally(() => {
        this.#running = undefined;
      });
    return this.#running;
  }
}
