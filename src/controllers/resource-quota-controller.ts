import type { Logger } from 'pino';
import { ApiError } from '../api/errors.ts';
import type { KubeObject, StoredKubeObject } from '../api/types.ts';
import { scopeRequirements } from '../admission/builtin/resource-quota/admission.ts';
import { evaluatorFor, trackedKinds, type Evaluator, type GroupResource } from '../admission/builtin/resource-quota/evaluators.ts';
import { addInto, cmp, equalLists, quantity, showText, type ResourceList } from '../admission/builtin/quantities.ts';
import type { ApiSurface } from '../registry/api-surface.ts';
import { Informer } from '../registry/informer.ts';
import { parseListQuery } from '../registry/list-options.ts';
import type { ResourceStore } from '../registry/resource-store.ts';
import { controllerContext } from './controller-context.ts';

/** How often every quota is computed again from scratch (kube-controller-manager's --resource-quota-sync-period). */
const RESYNC_MS = 5 * 60_000;
/** How soon a quota whose sync failed is tried again. */
const RETRY_MS = 1000;
/**
 * How long a count lower than status.used waits to be confirmed by a second count. A create is
 * charged by admission a moment before it is stored: a count taken in between would take the
 * charge back, and let the quota be exceeded.
 */
const CONFIRM_DECREASE_MS = 500;

type Quota = StoredKubeObject & {
  spec?: { hard?: ResourceList; scopes?: string[] | null; scopeSelector?: { matchExpressions?: { scopeName: string; operator: string; values?: string[] | null }[] | null } | null };
  status?: { hard?: ResourceList; used?: ResourceList };
};

const keyOf = (obj: StoredKubeObject) => `${obj.metadata.namespace ?? ''}/${obj.metadata.name}`;
const grKey = (gr: GroupResource) => `${gr.group}/${gr.resource}`;

/** The quota's hard limits canonicalized, as the controller mirrors them into status.hard. */
function hardOf(q: Quota): ResourceList {
  const out: ResourceList = {};
  for (const [k, v] of Object.entries(q.spec?.hard ?? {})) out[k] = showText(v);
  return out;
}

/**
 * Upstream's resourcequota-controller: every ResourceQuota's status says what it enforces
 * (status.hard, the spec's hard limits) and how much of it the namespace uses (status.used, counted
 * from the objects the quota covers, within its scopes). A quota is counted again when its spec
 * changes or it has no status yet, when an object it covers is deleted or changes what it uses
 * (a pod that finishes), and every five minutes. (Creates are charged by the ResourceQuota
 * admission plugin as they happen.) Writes go through the status subresource, conditional on the
 * version the quota was read at, so that they never overwrite a charge admission made meanwhile.
 */
export class ResourceQuotaController {
  readonly #surface: ApiSurface;
  readonly #store: ResourceStore;
  readonly #logger: Logger;
  #quotas: Informer | undefined;
  /** Informers of the kinds some quota counts, which tell of deletes and changes of use. */
  readonly #monitors = new Map<string, Informer>();
  readonly #queue = new Set<string>();
  readonly #retries = new Map<string, NodeJS.Timeout>();
  /** Quotas counted lower than their status says, to be counted again before the lower count is written. */
  readonly #confirming = new Map<string, NodeJS.Timeout>();
  readonly #confirmed = new Set<string>();
  #resync: NodeJS.Timeout | null = null;
  #working = false;
  #stopped = true;

  constructor(surface: ApiSurface, logger: Logger) {
    this.#surface = surface;
    this.#store = surface.storeFor('', 'resourcequotas');
    this.#logger = logger.child({ controller: 'resourcequota' });
  }

  async start(): Promise<void> {
    this.#stopped = false;
    const quotas = new Informer(this.#store, { logger: this.#logger, index: (q) => [q.metadata.namespace ?? ''] });
    this.#quotas = quotas;
    quotas.on({
      added: (q) => this.#enqueue(keyOf(q)),
      updated: (q, old) => {
        const now = q as Quota;
        const before = old as Quota;
        // Admission's charges change status.used alone: those are not a reason to count again.
        const specChanged = JSON.stringify(now.spec ?? {}) !== JSON.stringify(before.spec ?? {});
        if (specChanged || !now.status?.hard || !now.status?.used || !equalLists(now.status.hard, hardOf(now))) this.#enqueue(keyOf(q));
      },
    });
    await quotas.start();
    this.#resync = setInterval(() => this.#enqueueAll(), RESYNC_MS);
    this.#resync.unref();
    this.#enqueueAll();
  }

  stop(): void {
    this.#stopped = true;
    if (this.#resync) clearInterval(this.#resync);
    this.#resync = null;
    for (const t of this.#retries.values()) clearTimeout(t);
    this.#retries.clear();
    for (const t of this.#confirming.values()) clearTimeout(t);
    this.#confirming.clear();
    this.#confirmed.clear();
    this.#queue.clear();
    this.#quotas?.stop();
    this.#quotas = undefined;
    for (const m of this.#monitors.values()) m.stop();
    this.#monitors.clear();
  }

  #enqueueAll(): void {
    for (const q of this.#quotas?.list() ?? []) this.#enqueue(keyOf(q));
  }

  #enqueue(key: string): void {
    if (this.#stopped) return;
    this.#queue.add(key);
    void this.#drain();
  }

  /** An object of a tracked kind went away or changed what it uses: count the quotas of its namespace that track its kind again. */
  #replenish(gr: GroupResource, namespace: string): void {
    const evaluator = evaluatorFor(gr);
    for (const q of (this.#quotas?.byIndex(namespace) ?? []) as Quota[]) {
      if (evaluator.matchingResources(Object.keys(q.spec?.hard ?? {})).length > 0) this.#enqueue(keyOf(q));
    }
  }

  /** Starts watching a kind some quota counts (once). */
  #monitor(gr: GroupResource): void {
    const key = grKey(gr);
    if (this.#monitors.has(key) || this.#stopped) return;
    const store = this.#surface.findStore(gr.group, gr.resource);
    if (!store || !store.kind.namespaced) return;
    const evaluator = evaluatorFor(gr);
    const informer = new Informer(store, { logger: this.#logger });
    informer.on({
      deleted: (obj) => this.#replenish(gr, obj.metadata.namespace ?? ''),
      updated: (obj, old) => {
        if (!equalLists(evaluator.usage(old), evaluator.usage(obj))) this.#replenish(gr, obj.metadata.namespace ?? '');
      },
    });
    this.#monitors.set(key, informer);
    informer.start().catch((err: unknown) => this.#logger.warn({ err, resource: gr.resource }, 'quota monitor failed to start'));
  }

  async #drain(): Promise<void> {
    if (this.#working) return;
    this.#working = true;
    try {
      while (this.#queue.size > 0 && !this.#stopped) {
        const key = this.#queue.values().next().value as string;
        this.#queue.delete(key);
        try {
          await this.#sync(key);
        } catch (err) {
          if (!(err instanceof ApiError && err.code === 409)) this.#logger.warn({ err, quota: key }, 'quota sync failed; will retry');
          this.#retryLater(key);
        }
      }
    } finally {
      this.#working = false;
    }
  }

  #retryLater(key: string): void {
    if (this.#stopped || this.#retries.has(key)) return;
    const t = setTimeout(() => {
      this.#retries.delete(key);
      this.#enqueue(key);
    }, RETRY_MS);
    t.unref();
    this.#retries.set(key, t);
  }

  /** Counts the quota again a little later; that count is written even if it is lower. */
  #confirmLater(key: string): void {
    if (this.#stopped || this.#confirming.has(key)) return;
    const t = setTimeout(() => {
      this.#confirming.delete(key);
      this.#confirmed.add(key);
      this.#enqueue(key);
    }, CONFIRM_DECREASE_MS);
    t.unref();
    this.#confirming.set(key, t);
  }

  /** Counts one quota and writes its status when it changed (a lower count once confirmed). */
  async #sync(key: string): Promise<void> {
    const confirmed = this.#confirmed.delete(key);
    const slash = key.indexOf('/');
    const namespace = key.slice(0, slash);
    const name = key.slice(slash + 1);
    let quota: Quota;
    try {
      quota = (await this.#store.get(controllerContext(), namespace, name)).object as Quota;
    } catch (err) {
      if (err instanceof ApiError && err.code === 404) return;
      throw err;
    }
    const hard = hardOf(quota);
    const names = Object.keys(hard);
    const used: ResourceList = {};
    for (const [k, v] of Object.entries(quota.status?.used ?? {})) used[k] = v;
    for (const gr of trackedKinds(names)) {
      this.#monitor(gr);
      const counted = await this.#usage(gr, namespace, quota, names);
      if (counted) Object.assign(used, counted);
    }
    const masked: ResourceList = {};
    for (const n of names) if (n in used) masked[n] = used[n]!;
    const status = { hard, used: masked };
    const before = quota.status;
    if (before?.hard && before.used && equalLists(before.hard, hard) && equalLists(before.used, masked)) return;
    const lower = Object.keys(masked).some((k) => k in (before?.used ?? {}) && cmp(quantity(masked[k]), quantity(before!.used![k])) < 0);
    if (lower && !confirmed) {
      this.#confirmLater(key);
      return;
    }
    await this.#store.update(controllerContext('status'), namespace, name, {
      precondition: Number(quota.metadata.resourceVersion),
      build: (current) => ({ ...current, status } as KubeObject),
    });
  }

  /** What the namespace's objects of one kind use, for the quota's names and within its scopes; undefined when the kind is not served. */
  async #usage(gr: GroupResource, namespace: string, quota: Quota, names: readonly string[]): Promise<ResourceList | undefined> {
    const store = this.#surface.findStore(gr.group, gr.resource);
    if (!store || !store.kind.namespaced) return undefined;
    const evaluator: Evaluator = evaluatorFor(gr);
    const resources = evaluator.matchingResources(names);
    if (resources.length === 0) return undefined;
    const total: ResourceList = Object.fromEntries(resources.map((r) => [r, '0']));
    const scopes = scopeRequirements(quota);
    const page = await store.list(controllerContext(), namespace, parseListQuery(new URLSearchParams()));
    const now = Date.now();
    for (const text of page.items) {
      const obj = JSON.parse(text) as KubeObject;
      if (!scopes.every((s) => evaluator.matchesScope(s, obj))) continue;
      addInto(total, evaluator.usage(obj, now));
    }
    const out: ResourceList = {};
    for (const r of resources) out[r] = total[r]!;
    return out;
  }
}
