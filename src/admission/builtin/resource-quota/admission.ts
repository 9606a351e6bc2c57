import { ApiError, internalError } from '../../../api/errors.ts';
import { systemContext } from '../../../api/request-context.ts';
import type { KubeObject, StoredKubeObject } from '../../../api/types.ts';
import { cloneJson } from '../../../codecs/deep-json.ts';
import type { Informer } from '../../../registry/informer.ts';
import type { ResourceStore } from '../../../registry/resource-store.ts';
import type { AdmissionAttributes } from '../../attributes.ts';
import type { AdmissionDeps } from '../../index.ts';
import { handlesOperations, type AdmissionPlugin } from '../../plugin.ts';
import { admissionForbidden, isCoreKind, namespaceIndexedInformer, plainStore, servedKind, type Obj } from '../common.ts';
import { addLists, cmp, equalLists, quantity, show, showText, sub, type ResourceList } from '../quantities.ts';
import { DEFAULT_RESOURCE_QUOTA_CONFIGURATION, loadResourceQuotaConfiguration, type LimitedResource, type ResourceQuotaConfiguration } from './configuration.ts';
import { evaluatorFor, ignoredResource, type Evaluator, type ScopeRequirement } from './evaluators.ts';

/** How long a request waits for its namespace's quota evaluation. */
const EVALUATION_TIMEOUT_MS = 10_000;
/** How many times a batch re-reads quotas whose status update lost a race. */
const UPDATE_RETRIES = 3;

type Quota = StoredKubeObject & { spec?: { hard?: ResourceList; scopes?: string[] | null; scopeSelector?: { matchExpressions?: ScopeRequirement[] | null } | null }; status?: { hard?: ResourceList; used?: ResourceList } };

/** A request waiting for its namespace's evaluation; `result` stays "pending" until a status update carrying it succeeds. */
interface Waiter {
  readonly attributes: AdmissionAttributes;
  result: 'pending' | 'ok' | Error;
  done(): void;
}

const hardOf = (q: Quota): ResourceList => q.status?.hard ?? {};
const usedOf = (q: Quota): ResourceList => q.status?.used ?? {};
const sortedNames = (list: ResourceList | readonly string[]) => [...(Array.isArray(list) ? list : Object.keys(list))].sort();

/** Keeps only the names in `names` (quota.Mask). */
function mask(list: ResourceList, names: readonly string[]): ResourceList {
  const out: ResourceList = {};
  for (const n of names) if (n in list) out[n] = list[n]!;
  return out;
}

/** name=value,… in name order (prettyPrint). */
function prettyPrint(list: ResourceList): string {
  return sortedNames(list)
    .map((k) => `${k}=${showText(list[k]!)}`)
    .join(',');
}

/** The quota's scopes as selector requirements: spec.scopes (Exists) then spec.scopeSelector. */
export function scopeRequirements(q: Quota): ScopeRequirement[] {
  const out: ScopeRequirement[] = (q.spec?.scopes ?? []).map((s) => ({ scopeName: s, operator: 'Exists' }));
  for (const r of q.spec?.scopeSelector?.matchExpressions ?? []) out.push({ scopeName: r.scopeName, operator: r.operator, values: r.values ?? [] });
  return out;
}

/** Whether a quota (by what its status says it enforces, and its scopes) covers the object. */
function matches(evaluator: Evaluator, q: Quota, obj: KubeObject): boolean {
  if (evaluator.matchingResources(Object.keys(hardOf(q))).length === 0) return false;
  return scopeRequirements(q).every((r) => evaluator.matchesScope(r, obj));
}

/** a − b per name of a, never below zero (quota.SubtractWithNonNegativeResult). */
function subtractNonNegative(a: ResourceList, b: ResourceList): ResourceList {
  const out: ResourceList = {};
  for (const [k, v] of Object.entries(a)) {
    const q = quantity(v);
    if (!(k in b)) out[k] = showText(v);
    else out[k] = cmp(q, quantity(b[k])) <= 0 ? '0' : show(sub(q, quantity(b[k])));
  }
  for (const k of Object.keys(b)) if (!(k in a)) out[k] = '0';
  return out;
}

function removeZeros(list: ResourceList): ResourceList {
  return Object.fromEntries(Object.entries(list).filter(([, v]) => quantity(v).unscaled !== 0n));
}

/** The resources the object uses that a limited resource of its kind names: each must be under some quota (limitedByDefault). */
function limitedByDefault(usage: ResourceList, limited: readonly LimitedResource[]): string[] {
  const out = new Set<string>();
  for (const l of limited) {
    for (const [name, amount] of Object.entries(usage)) {
      if (quantity(amount).unscaled > 0n && l.matchContains.some((part) => name.includes(part))) out.add(name);
    }
  }
  return [...out];
}

/** An error upstream returns without a status: the client sees a 500 whose Status has no reason. */
function plainError(message: string): ApiError {
  const err = new ApiError(500, '', message);
  delete err.status.reason;
  return err;
}

/** Go's %v of scope selector requirements: `[{PriorityClass In [a b]}]`. */
function goScopes(scopes: readonly ScopeRequirement[]): string {
  return `[${scopes.map((s) => `{${s.scopeName} ${s.operator} [${(s.values ?? []).join(' ')}]}`).join(' ')}]`;
}

/**
 * One request against the namespace's quotas (upstream's CheckRequest): the quotas that cover it must
 * know their usage, the pod must say what it requests when cpu or memory are under quota, what it
 * adds must fit, and what the configuration limits by default (`limited`: resources by name, objects
 * by scope) must be under some quota; returns the quotas with the new usage (unchanged ones as given).
 */
export function checkRequest(quotas: readonly Quota[], a: AdmissionAttributes, evaluator: Evaluator, limited: readonly LimitedResource[] = []): Quota[] {
  const obj = a.object!;
  const limitedScopes = limited.flatMap((l) => evaluator.matchingScopes(obj, l.matchScopes));
  const limitedOfKind = limited.filter((l) => l.apiGroup === a.resource.group && l.resource === a.resource.resource);
  const limitedNames = limitedOfKind.length > 0 ? limitedByDefault(evaluator.usage(obj), limitedOfKind) : [];

  const interesting: number[] = [];
  // What the quotas that cover the object restrict, to tell whether the limited names and scopes are covered.
  const restrictedNames = new Set<string>();
  const restrictedScopes: ScopeRequirement[] = [];
  quotas.forEach((q, i) => {
    restrictedScopes.push(...evaluator.matchingScopes(obj, scopeRequirements(q)));
    if (!matches(evaluator, q, obj)) return;
    const restricted = evaluator.matchingResources(Object.keys(hardOf(q)));
    const why = evaluator.constraints(restricted, obj);
    if (why) throw admissionForbidden(a, `failed quota: ${q.metadata.name}: ${why}`);
    const unknown = Object.keys(hardOf(q)).filter((k) => restricted.includes(k) && !(k in usedOf(q)));
    if (unknown.length > 0) throw admissionForbidden(a, `status unknown for quota: ${q.metadata.name}, resources: ${sortedNames(restricted).join(',')}`);
    interesting.push(i);
    for (const n of restricted) restrictedNames.add(n);
  });

  const input = evaluator.usage(obj);
  const negative = Object.keys(input).filter((k) => quantity(input[k]).unscaled < 0n);
  if (negative.length > 0) throw admissionForbidden(a, `quota usage is negative for resource(s): ${sortedNames(negative).join(',')}`);

  const deltas = new Map<number, ResourceList>(interesting.map((i) => [i, input]));
  // With no quota covering the object, the limits by default still judge what it adds.
  let uncoveredDelta: ResourceList = a.operation === 'CREATE' && interesting.length === 0 ? input : {};
  if (a.operation === 'UPDATE') {
    const prev = a.oldObject;
    if (!prev) throw admissionForbidden(a, 'unable to get previous usage since prior version of object was not found');
    if (prev.metadata?.resourceVersion) {
      const delta = subtractNonNegative(input, evaluator.usage(prev));
      if (interesting.length === 0) uncoveredDelta = delta;
      for (const i of interesting) if (matches(evaluator, quotas[i]!, prev)) deltas.set(i, delta);
    } else if (interesting.length === 0) {
      uncoveredDelta = input;
    }
  }
  for (const [i, d] of deltas) {
    const kept = removeZeros(d);
    if (Object.keys(kept).length === 0) deltas.delete(i);
    else deltas.set(i, kept);
  }
  if (interesting.length > 0 ? deltas.size === 0 : Object.keys(removeZeros(uncoveredDelta)).length === 0) return [...quotas];

  const uncoveredNames = sortedNames([...new Set(limitedNames)].filter((n) => !restrictedNames.has(n)));
  if (uncoveredNames.length > 0) throw admissionForbidden(a, `insufficient quota to consume: ${uncoveredNames.join(',')}`);
  const uncoveredScopes = evaluator.uncoveredQuotaScopes(limitedScopes, restrictedScopes);
  if (uncoveredScopes.length > 0) throw plainError(`insufficient quota to match these scopes: ${goScopes(uncoveredScopes)}`);
  if (interesting.length === 0) return [...quotas];

  const out = quotas.map((q) => q);
  for (const i of interesting) {
    const delta = deltas.get(i);
    if (!delta) continue;
    const q = quotas[i]!;
    const requested = mask(delta, Object.keys(hardOf(q)));
    const newUsed = addLists(usedOf(q), requested);
    if (a.subresource !== 'status') {
      const exceeded = Object.keys(requested).filter((k) => k in hardOf(q) && cmp(quantity(newUsed[k]), quantity(hardOf(q)[k])) > 0);
      if (exceeded.length > 0) {
        throw admissionForbidden(
          a,
          `exceeded quota: ${q.metadata.name}, requested: ${prettyPrint(mask(requested, exceeded))}, used: ${prettyPrint(mask(usedOf(q), exceeded))}, limited: ${prettyPrint(mask(hardOf(q), exceeded))}`,
        );
      }
    }
    const next = cloneJson(q);
    next.status = { ...(next.status ?? {}), used: newUsed };
    out[i] = next;
  }
  return out;
}

/**
 * The ResourceQuota admission plugin (validating), as upstream's
 * k8s.io/apiserver/pkg/admission/plugin/resourcequota: every create and update in a namespace
 * (namespaces themselves and core events excepted) is judged against the namespace's
 * ResourceQuotas, and what it adds is charged to their status.used before the write, so that
 * concurrent requests cannot together exceed a quota.
 *
 * Requests of one namespace are evaluated in batches, one batch at a time per namespace in this
 * process: each request is checked against the quotas as the previous ones left them, then every
 * changed quota is written once through its status with its resourceVersion as precondition. A
 * write that loses a race (another replica, the quota controller) makes the batch read those quotas
 * again from the store and check again, up to three times; a request waits at most 10 s.
 * Dry-run requests are checked and charge nothing. The plugin's configuration (from
 * --admission-control-config-file) may limit resources by default: then a request that uses them
 * needs a quota that covers it, in namespaces without any quota too.
 */
export class ResourceQuotaAdmission implements AdmissionPlugin {
  readonly name = 'ResourceQuota';
  readonly handles = handlesOperations('CREATE', 'UPDATE');
  readonly #store: ResourceStore;
  readonly #informer: Informer;
  /** Quotas this plugin wrote, newer than the informer may know yet. */
  readonly #written = new Map<string, Quota>();
  readonly #queues = new Map<string, Waiter[]>();
  readonly #running = new Set<string>();
  readonly #limited: readonly LimitedResource[];

  constructor(store: ResourceStore, informer: Informer, config: ResourceQuotaConfiguration = DEFAULT_RESOURCE_QUOTA_CONFIGURATION) {
    this.#store = store;
    this.#informer = informer;
    this.#limited = config.limitedResources;
  }

  /** `configuration`: the plugin's text from the admission configuration file, if any (a bad one stops the start). */
  static build(deps: AdmissionDeps, configuration?: string): { plugin: ResourceQuotaAdmission; start: () => Promise<void>; stop: () => void } {
    const config = loadResourceQuotaConfiguration(configuration);
    const store = plainStore(deps, servedKind(deps, '', 'ResourceQuota', 'ResourceQuota'));
    const informer = namespaceIndexedInformer(deps, store);
    return { plugin: new ResourceQuotaAdmission(store, informer, config), start: () => informer.start(), stop: () => informer.stop() };
  }

  validate(a: AdmissionAttributes): Promise<void> | void {
    if (!a.namespace || !a.object) return;
    if (a.operation === 'CREATE' && isCoreKind(a, 'Namespace')) return;
    const gr = { group: a.resource.group, resource: a.resource.resource };
    if (ignoredResource(gr)) return;
    if (!evaluatorFor(gr).handles(a)) return;
    // Most namespaces have no quota: nothing to wait for, unless something is limited by default.
    if (this.#limited.length === 0 && this.#informer.byIndex(a.namespace).length === 0) return;
    return this.#evaluate(a);
  }

  #evaluate(a: AdmissionAttributes): Promise<void> {
    return new Promise<void>((resolve, reject) => {
      let settled = false;
      const timer = setTimeout(() => {
        settled = true;
        const err = internalError();
        err.status.message = 'Internal error occurred: resource quota evaluation timed out';
        err.status.details = { causes: [{ message: 'resource quota evaluation timed out' }] };
        reject(err);
      }, EVALUATION_TIMEOUT_MS);
      const waiter: Waiter = {
        attributes: a,
        result: 'pending',
        done: () => {
          clearTimeout(timer);
          if (settled) return;
          settled = true;
          if (waiter.result === 'ok') resolve();
          else reject(waiter.result === 'pending' ? new Error('resource quota evaluation did not complete') : waiter.result);
        },
      };
      const queue = this.#queues.get(a.namespace);
      if (queue) queue.push(waiter);
      else this.#queues.set(a.namespace, [waiter]);
      if (!this.#running.has(a.namespace)) void this.#drain(a.namespace);
    });
  }

  /** Evaluates the namespace's waiting requests, batch after batch, until none wait. */
  async #drain(ns: string): Promise<void> {
    this.#running.add(ns);
    try {
      for (;;) {
        const batch = this.#queues.get(ns);
        if (!batch || batch.length === 0) break;
        this.#queues.delete(ns);
        try {
          const quotas = this.#quotas(ns);
          if (quotas.length > 0 || this.#limited.length > 0) await this.#checkQuotas(quotas, batch, UPDATE_RETRIES);
          else for (const w of batch) w.result = 'ok';
        } catch (err) {
          for (const w of batch) if (w.result === 'pending') w.result = err instanceof Error ? err : new Error(String(err));
        } finally {
          for (const w of batch) w.done();
        }
      }
    } finally {
      this.#running.delete(ns);
      this.#queues.delete(ns);
    }
  }

  /** The namespace's quotas: the informer's, or this plugin's own later write of one. */
  #quotas(ns: string): Quota[] {
    return (this.#informer.byIndex(ns) as Quota[])
      .map((q) => {
        const key = `${ns}/${q.metadata.name}`;
        const mine = this.#written.get(key);
        if (!mine) return q;
        if (Number(q.metadata.resourceVersion) >= Number(mine.metadata.resourceVersion)) {
          this.#written.delete(key);
          return q;
        }
        return mine;
      })
      .sort((x, y) => (x.metadata.name < y.metadata.name ? -1 : x.metadata.name > y.metadata.name ? 1 : 0));
  }

  async #checkQuotas(initial: Quota[], batch: Waiter[], retries: number): Promise<void> {
    let quotas = initial;
    let changed = false;
    for (const w of batch) {
      const a = w.attributes;
      const evaluator = evaluatorFor({ group: a.resource.group, resource: a.resource.resource });
      let next: Quota[];
      try {
        next = checkRequest(quotas, a, evaluator, this.#limited);
      } catch (err) {
        w.result = err instanceof Error ? err : new Error(String(err));
        continue;
      }
      if (a.dryRun) {
        w.result = 'ok';
        continue;
      }
      const mine = next.some((q, i) => !equalLists(usedOf(quotas[i]!), usedOf(q)));
      if (mine) changed = true;
      else w.result = 'ok';
      quotas = next;
    }
    if (!changed) return;

    const failed: Quota[] = [];
    let lastError: Error | undefined;
    for (let i = 0; i < quotas.length; i++) {
      const q = quotas[i]!;
      if (equalLists(usedOf(initial[i]!), usedOf(q))) continue;
      try {
        await this.#writeStatus(q);
      } catch (err) {
        failed.push(q);
        lastError = err instanceof Error ? err : new Error(String(err));
      }
    }
    if (failed.length === 0) {
      for (const w of batch) if (w.result === 'pending') w.result = 'ok';
      return;
    }
    if (retries <= 0) {
      for (const w of batch) if (w.result === 'pending') w.result = lastError!;
      return;
    }
    // Read the quotas that lost a race again, from the store (the informer may not have their news
    // yet), and check the batch against them; quotas deleted meanwhile no longer count.
    const fresh: Quota[] = [];
    for (const q of failed) {
      try {
        fresh.push((await this.#store.get(systemContext(), q.metadata.namespace ?? '', q.metadata.name)).object as Quota);
      } catch (err) {
        if (!(err instanceof ApiError && err.code === 404)) throw err;
      }
    }
    if (fresh.length === 0) {
      for (const w of batch) if (w.result === 'pending') w.result = 'ok';
      return;
    }
    return this.#checkQuotas(fresh, batch, retries - 1);
  }

  /** Writes a quota's status.used, conditional on the version it was read at. */
  async #writeStatus(q: Quota): Promise<void> {
    const ns = q.metadata.namespace ?? '';
    const used = usedOf(q);
    const { stored } = await this.#store.update(systemContext({ subresource: 'status' }), ns, q.metadata.name, {
      precondition: Number(q.metadata.resourceVersion),
      build: (current) => {
        const next = current as Obj;
        next.status = { ...(next.status ?? {}), used };
        return next as KubeObject;
      },
    });
    this.#written.set(`${ns}/${q.metadata.name}`, stored.object as Quota);
  }
}
