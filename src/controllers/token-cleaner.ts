import type { Logger } from 'pino';
import { ApiError } from '../api/errors.ts';
import type { StoredKubeObject } from '../api/types.ts';
import { BOOTSTRAP_TOKEN_NAMESPACE, BOOTSTRAP_TOKEN_TYPE } from '../auth/authn/bootstrap-token-secret.ts';
import { Informer } from '../registry/informer.ts';
import type { ResourceStore } from '../registry/resource-store.ts';
import { controllerContext } from './controller-context.ts';

/** Node's timers overflow past 2^31-1 ms; a longer wait is taken in steps. */
const MAX_TIMER_MS = 2 ** 31 - 1;

const RFC3339 = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?(Z|[+-]\d{2}:\d{2})$/;

/**
 * When a bootstrap token Secret expires (ms since the epoch), or undefined when it has no
 * `expiration`. An unreadable one counts as expired already, as upstream's GetExpiration has it.
 */
export function tokenExpiry(secret: StoredKubeObject): number | undefined {
  const raw = (secret.data as Record<string, string> | undefined)?.expiration;
  if (typeof raw !== 'string') return undefined;
  const text = Buffer.from(raw, 'base64').toString('utf8');
  const at = RFC3339.test(text) ? Date.parse(text) : NaN;
  return Number.isNaN(at) ? 0 : at;
}

/**
 * Deletes bootstrap token Secrets once their expiration has passed, as upstream's tokencleaner: one
 * timer per Secret fires at its expiry (upstream requeues the key for that long), and the delete is
 * conditional on the uid seen, so a Secret recreated under the same name is not taken with it.
 */
export class TokenCleaner {
  readonly #secrets: ResourceStore;
  readonly #logger: Logger;
  readonly #timers = new Map<string, NodeJS.Timeout>();
  #informer: Informer | undefined;

  constructor(secrets: ResourceStore, logger: Logger) {
    this.#secrets = secrets;
    this.#logger = logger.child({ controller: 'tokencleaner' });
  }

  async start(): Promise<void> {
    const informer = new Informer(this.#secrets, { logger: this.#logger, namespace: BOOTSTRAP_TOKEN_NAMESPACE });
    this.#informer = informer;
    informer.on({
      added: (s) => this.#schedule(s),
      updated: (s) => this.#schedule(s),
      deleted: (s) => this.#cancel(s.metadata.name),
    });
    await informer.start();
  }

  stop(): void {
    this.#informer?.stop();
    this.#informer = undefined;
    for (const t of this.#timers.values()) clearTimeout(t);
    this.#timers.clear();
  }

  #cancel(name: string): void {
    const t = this.#timers.get(name);
    if (t) clearTimeout(t);
    this.#timers.delete(name);
  }

  #schedule(secret: StoredKubeObject): void {
    const name = secret.metadata.name;
    this.#cancel(name);
    if (secret.type !== BOOTSTRAP_TOKEN_TYPE) return;
    const expiry = tokenExpiry(secret);
    if (expiry === undefined) return;
    const wait = Math.min(MAX_TIMER_MS, Math.max(0, expiry - Date.now()));
    const timer = setTimeout(() => {
      this.#timers.delete(name);
      if (Date.now() < expiry) this.#schedule(secret);
      else void this.#delete(secret);
    }, wait);
    timer.unref();
    this.#timers.set(name, timer);
  }

  async #delete(secret: StoredKubeObject): Promise<void> {
    const { name, uid } = secret.metadata;
    try {
      await this.#secrets.delete(controllerContext(), BOOTSTRAP_TOKEN_NAMESPACE, name, { dryRun: false, preconditions: { uid } });
      this.#logger.info({ secret: name }, 'deleted expired bootstrap token secret');
    } catch (err) {
      // Gone already, or replaced by another object of that name: nothing of ours to remove.
      if (err instanceof ApiError && (err.code === 404 || err.code === 409)) return;
      this.#logger.warn({ err, secret: name }, 'deleting expired bootstrap token secret failed; retrying');
      const retry = setTimeout(() => void this.#delete(secret), 1000);
      retry.unref();
      this.#timers.set(name, retry);
    }
  }
}
