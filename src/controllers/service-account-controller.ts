import type { Logger } from 'pino';
import { ApiError } from '../api/errors.ts';
import type { StoredKubeObject } from '../api/types.ts';
import { Informer } from '../registry/informer.ts';
import type { ResourceStore } from '../registry/resource-store.ts';
import { CoalescedPass } from './coalesced-pass.ts';
import { controllerContext } from './controller-context.ts';

const DEFAULT = 'default';

function active(ns: StoredKubeObject): boolean {
  return !ns.metadata.deletionTimestamp && (ns.status as { phase?: string } | undefined)?.phase !== 'Terminating';
}

/**
 * Upstream's serviceaccount-controller: every active namespace has a `default` ServiceAccount
 * (created when the namespace appears, and again when someone deletes it), which the ServiceAccount
 * admission plugin gives pods that name none. Driven by the shared namespace informer and its own
 * ServiceAccount informer; each pass creates what is missing.
 */
export class ServiceAccountController {
  readonly #store: ResourceStore;
  readonly #namespaces: Informer;
  readonly #logger: Logger;
  #accounts: Informer | undefined;
  #passes: CoalescedPass | undefined;
  #stopped = true;

  constructor(store: ResourceStore, namespaces: Informer, logger: Logger) {
    this.#store = store;
    this.#namespaces = namespaces;
    this.#logger = logger.child({ controller: 'serviceaccount' });
    const poke = () => this.#passes?.request();
    namespaces.on({ added: poke, updated: poke });
  }

  async start(): Promise<void> {
    this.#stopped = false;
    this.#passes = new CoalescedPass(() => this.#pass(), { delayMs: 0 });
    const accounts = new Informer(this.#store, { logger: this.#logger });
    this.#accounts = accounts;
    accounts.on({ deleted: (sa) => sa.metadata.name === DEFAULT && this.#passes?.request() });
    await accounts.start();
    this.#passes.request();
  }

  stop(): void {
    this.#stopped = true;
    this.#passes?.stop();
    this.#passes = undefined;
    this.#accounts?.stop();
    this.#accounts = undefined;
  }

  async #pass(): Promise<'retry' | void> {
    let retry = false;
    for (const ns of this.#namespaces.list()) {
      if (this.#stopped) return;
      const name = ns.metadata.name;
      if (!active(ns) || this.#accounts?.get(name, DEFAULT)) continue;
      try {
        await this.#store.create(controllerContext(), name, { apiVersion: 'v1', kind: 'ServiceAccount', metadata: { name: DEFAULT, namespace: name } });
      } catch (err) {
        // Someone made it meanwhile, or the namespace is going away.
        if (err instanceof ApiError && (err.code === 409 || err.code === 404 || err.code === 403)) continue;
        this.#logger.warn({ err, namespace: name }, 'creating the default service account failed; retrying');
        retry = true;
      }
    }
    return retry ? 'retry' : undefined;
  }
}
