import type { Logger } from 'pino';
import { controllerContext } from './controller-context.ts';
import { ApiError } from '../api/errors.ts';
import type { KubeObject } from '../api/types.ts';
import type { ResourceStore } from '../registry/resource-store.ts';

const PAGE = 500;

type EventTimes = { series?: { lastObservedTime?: string }; lastTimestamp?: string; eventTime?: string | null };

/** When an event was last touched, by the newest of its own timestamps. */
export function lastTouched(event: KubeObject): number {
  const e = event as KubeObject & EventTimes;
  const times = [e.series?.lastObservedTime, e.lastTimestamp, e.eventTime ?? undefined, event.metadata?.creationTimestamp]
    .filter((t): t is string => typeof t === 'string' && t !== '')
    .map((t) => Date.parse(t))
    .filter((t) => !Number.isNaN(t));
  return times.length > 0 ? Math.max(...times) : 0;
}

/**
 * Events are kept for a limited time (--event-ttl, one hour by default, as upstream): this removes
 * the ones not touched for that long. Each delete is conditional on the version it saw, so an event
 * updated in the meantime stays.
 */
export class EventTtlController {
  readonly #events: ResourceStore;
  readonly #ttlMs: number;
  readonly #logger: Logger;
  #timer: NodeJS.Timeout | null = null;
  #running: Promise<number> | null = null;

  constructor(events: ResourceStore, ttlMs: number, logger: Logger) {
    this.#events = events;
    this.#ttlMs = ttlMs;
    this.#logger = logger.child({ controller: 'event-ttl' });
  }

  start(): void {
    const every = Math.min(60_000, Math.max(1000, this.#ttlMs / 4));
    this.#timer = setInterval(() => void this.sweep(), every);
    this.#timer.unref();
  }

  stop(): void {
    if (this.#timer) clearInterval(this.#timer);
    this.#timer = null;
  }

  /** One pass; returns how many events were removed. */
  sweep(now = Date.now()): Promise<number> {
    this.#running ??= this.#sweep(now).finally(() => {
      this.#running = null;
    });
    return this.#running;
  }

  async #sweep(now: number): Promise<number> {
    let removed = 0;
    try {
      let after: { namespace: string; name: string } | undefined;
      for (;;) {
        const page = await this.#events.storage.list({ group: '', resource: 'events' }, { limit: PAGE, after });
        for (const text of page.items) {
          const event = JSON.parse(text) as KubeObject;
          if (now - lastTouched(event) < this.#ttlMs) continue;
          const meta = event.metadata ?? {};
          try {
            await this.#events.delete(controllerContext(), String(meta.namespace), String(meta.name), {
              dryRun: false,
              preconditions: { resourceVersion: meta.resourceVersion },
            });
            removed++;
          } catch (err) {
            // Gone already, or changed since we looked: either way not ours to remove now.
            if (!(err instanceof ApiError && (err.code === 404 || err.code === 409))) throw err;
          }
        }
        if (!page.next) break;
        after = page.next;
      }
      if (removed > 0) this.#logger.info({ removed }, 'removed expired events');
    } catch (err) {
      this.#logger.warn({ err }, 'event expiry failed; will retry');
    }
    return removed;
  }
}
