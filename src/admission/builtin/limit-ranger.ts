import { ApiError } from '../../api/errors.ts';
import { systemContext } from '../../api/request-context.ts';
import type { StoredKubeObject } from '../../api/types.ts';
import type { Informer } from '../../registry/informer.ts';
import { parseListQuery } from '../../registry/list-options.ts';
import type { ResourceStore } from '../../registry/resource-store.ts';
import type { AdmissionAttributes } from '../attributes.ts';
import type { AdmissionDeps } from '../index.ts';
import { handlesOperations, type AdmissionPlugin } from '../plugin.ts';
import { admissionForbidden, isCoreKind, namespaceIndexedInformer, plainStore, servedKind, type Obj } from './common.ts';
import { addInto, aggregateMessage, goFloat, maxInto, MAX_MILLI_VALUE, milliValue, quantity, showText, value, type ResourceList } from './quantities.ts';

export const LIMIT_RANGER_ANNOTATION = 'kubernetes.io/limit-ranger';
/** Resources a pod may set for itself (spec.resources), which then stand for the sum of its containers. */
const POD_LEVEL_RESOURCES = new Set(['cpu', 'memory']);

type Item = { type?: string; max?: ResourceList; min?: ResourceList; default?: ResourceList; defaultRequest?: ResourceList; maxLimitRequestRatio?: ResourceList };
const itemsOf = (lr: StoredKubeObject): Item[] => ((lr as Obj).spec?.limits ?? []) as Item[];
const sortedEntries = (list: ResourceList | undefined) => Object.entries(list ?? {}).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));

/** A container's requests and limits (created when missing). */
function resourcesOf(c: Obj): { requests: ResourceList; limits: ResourceList } {
  const r = (c.resources ??= {}) as Obj;
  return { requests: (r.requests ?? {}) as ResourceList, limits: (r.limits ?? {}) as ResourceList };
}

/** Requests and limits at a common precision: thousandths when all three fit, else whole units. */
function comparable(req: string | undefined, lim: string | undefined, enforced: string): { req: bigint; lim: bigint; enforced: bigint } {
  const [r, l, e] = [quantity(req), quantity(lim), quantity(enforced)];
  if (value(r) <= MAX_MILLI_VALUE && value(l) <= MAX_MILLI_VALUE && value(e) <= MAX_MILLI_VALUE) return { req: milliValue(r), lim: milliValue(l), enforced: milliValue(e) };
  return { req: value(r), lim: value(l), enforced: value(e) };
}

function minConstraint(type: string, name: string, enforced: string, requests: ResourceList, limits: ResourceList): string | undefined {
  const v = comparable(requests[name], limits[name], enforced);
  if (!(name in requests)) return `minimum ${name} usage per ${type} is ${showText(enforced)}.  No request is specified`;
  if (v.req < v.enforced) return `minimum ${name} usage per ${type} is ${showText(enforced)}, but request is ${showText(requests[name]!)}`;
  if (name in limits && v.lim < v.enforced) return `minimum ${name} usage per ${type} is ${showText(enforced)}, but limit is ${showText(limits[name]!)}`;
  return undefined;
}

function maxConstraint(type: string, name: string, enforced: string, requests: ResourceList, limits: ResourceList): string | undefined {
  const v = comparable(requests[name], limits[name], enforced);
  if (!(name in limits)) return `maximum ${name} usage per ${type} is ${showText(enforced)}.  No limit is specified`;
  if (v.lim > v.enforced) return `maximum ${name} usage per ${type} is ${showText(enforced)}, but limit is ${showText(limits[name]!)}`;
  if (name in requests && v.req > v.enforced) return `maximum ${name} usage per ${type} is ${showText(enforced)}, but request is ${showText(requests[name]!)}`;
  return undefined;
}

/** The max of a type that has no limits (claims): against the request. */
function maxRequestConstraint(type: string, name: string, enforced: string, requests: ResourceList): string | undefined {
  const v = comparable(requests[name], undefined, enforced);
  if (!(name in requests)) return `maximum ${name} usage per ${type} is ${showText(enforced)}.  No request is specified`;
  if (v.req > v.enforced) return `maximum ${name} usage per ${type} is ${showText(enforced)}, but request is ${showText(requests[name]!)}`;
  return undefined;
}

function ratioConstraint(type: string, name: string, enforced: string, requests: ResourceList, limits: ResourceList): string | undefined {
  const v = comparable(requests[name], limits[name], enforced);
  if (!(name in requests) || v.req === 0n) return `${name} max limit to request ratio per ${type} is ${showText(enforced)}, but no request is specified or request is 0`;
  if (!(name in limits) || v.lim === 0n) return `${name} max limit to request ratio per ${type} is ${showText(enforced)}, but no limit is specified or limit is 0`;
  const observed = Number(v.lim) / Number(v.req);
  const e = quantity(enforced);
  let ratio = observed;
  let allowed = Number(value(e));
  if (value(e) <= MAX_MILLI_VALUE) {
    ratio = observed * 1000;
    allowed = Number(milliValue(e));
  }
  if (ratio > allowed) return `${name} max limit to request ratio per ${type} is ${showText(enforced)}, but provided ratio is ${goFloat(observed)}`;
  return undefined;
}

function checkItem(item: Item, requests: ResourceList, limits: ResourceList, out: string[]): void {
  const type = item.type ?? '';
  for (const [k, v] of sortedEntries(item.min)) push(out, minConstraint(type, k, v, requests, limits));
  for (const [k, v] of sortedEntries(item.max)) push(out, maxConstraint(type, k, v, requests, limits));
  for (const [k, v] of sortedEntries(item.maxLimitRequestRatio)) push(out, ratioConstraint(type, k, v, requests, limits));
}

function push(out: string[], message: string | undefined): void {
  if (message !== undefined) out.push(message);
}

const isSidecar = (c: Obj) => c.restartPolicy === 'Always';

/**
 * What a pod as a whole requests (or limits): its containers and sidecars added, raised to what any
 * init container needs while it runs (with the sidecars started before it); pod-level resources
 * stand for the sum, as upstream's podRequests/podLimits compute them.
 */
export function podTotal(spec: Obj, which: 'requests' | 'limits'): ResourceList {
  const total: ResourceList = {};
  for (const c of spec.containers ?? []) addInto(total, c?.resources?.[which]);
  const sidecars: ResourceList = {};
  const init: ResourceList = {};
  for (const c of spec.initContainers ?? []) {
    const own = (c?.resources?.[which] ?? {}) as ResourceList;
    let running: ResourceList;
    if (isSidecar(c)) {
      addInto(total, own);
      addInto(sidecars, own);
      running = { ...sidecars };
    } else {
      running = addInto(addInto({}, own), sidecars);
    }
    maxInto(init, running);
  }
  maxInto(total, init);
  for (const [k, v] of Object.entries((spec.resources?.[which] ?? {}) as ResourceList)) if (POD_LEVEL_RESOURCES.has(k)) total[k] = showText(v);
  return total;
}

/**
 * The LimitRanger admission plugin (mutating and validating), as upstream's
 * plugin/pkg/admission/limitranger, over the LimitRanges of the object's namespace:
 * - mutating, pod creates: each container and init container gets the `Container` items'
 *   defaultRequest as requests and default as limits where it sets none, and the pod says what was
 *   set in the `kubernetes.io/limit-ranger` annotation;
 * - validating, pod creates: min, max and maxLimitRequestRatio of `Container` items per container and
 *   init container, of `Pod` items over the pod's total; claim creates and updates: min and max of
 *   `PersistentVolumeClaim` items over the requested storage. The first limit range a request
 *   breaks refuses it (403) with every message it breaks, upstream's words.
 * Pod updates and subresources are not judged (containers cannot change), nor objects being deleted.
 * The informer answers; when it knows no limit range in the namespace the store is asked.
 */
export class LimitRanger implements AdmissionPlugin {
  readonly name = 'LimitRanger';
  readonly handles = handlesOperations('CREATE', 'UPDATE');
  readonly #store: ResourceStore;
  readonly #informer: Informer;
  readonly #inflight = new Map<string, Promise<StoredKubeObject[]>>();

  constructor(store: ResourceStore, informer: Informer) {
    this.#store = store;
    this.#informer = informer;
  }

  static build(deps: AdmissionDeps): { plugin: LimitRanger; start: () => Promise<void>; stop: () => void } {
    const store = plainStore(deps, servedKind(deps, '', 'LimitRange', 'LimitRanger'));
    const informer = namespaceIndexedInformer(deps, store);
    return { plugin: new LimitRanger(store, informer), start: () => informer.start(), stop: () => informer.stop() };
  }

  async admit(a: AdmissionAttributes): Promise<void> {
    if (!supports(a) || !isCoreKind(a, 'Pod')) return;
    for (const lr of await this.#limitRanges(a)) applyDefaults(lr, a.object as Obj);
  }

  async validate(a: AdmissionAttributes): Promise<void> {
    if (!supports(a)) return;
    const pod = isCoreKind(a, 'Pod');
    for (const lr of await this.#limitRanges(a)) {
      const messages = pod ? podMessages(lr, a.object as Obj) : claimMessages(lr, a.object as Obj);
      if (messages.length > 0) throw admissionForbidden(a, aggregateMessage(messages));
    }
  }

  /**
   * The namespace's limit ranges: the informer's, or when it knows none, the store's (concurrent
   * requests share one read). Upstream keeps such a read for 30 s; reading each time instead means
   * a limit range applies to the very next request after it is created, whatever the informer's lag.
   */
  async #limitRanges(a: AdmissionAttributes): Promise<StoredKubeObject[]> {
    const known = this.#informer.byIndex(a.namespace);
    if (known.length > 0) return known.sort(byName);
    let pending = this.#inflight.get(a.namespace);
    if (!pending) {
      pending = this.#liveList(a).finally(() => this.#inflight.delete(a.namespace));
      this.#inflight.set(a.namespace, pending);
    }
    return pending;
  }

  async #liveList(a: AdmissionAttributes): Promise<StoredKubeObject[]> {
    try {
      const page = await this.#store.list(systemContext(), a.namespace, parseListQuery(new URLSearchParams()));
      return page.items.map((text) => JSON.parse(text) as StoredKubeObject).sort(byName);
    } catch (err) {
      throw admissionForbidden(a, err instanceof ApiError ? err.message : `unable to ${a.operation} ${a.resource.resource} at this time because there was an error enforcing limit ranges`);
    }
  }
}

const byName = (x: StoredKubeObject, y: StoredKubeObject) => (x.metadata.name < y.metadata.name ? -1 : x.metadata.name > y.metadata.name ? 1 : 0);

/** Pods (creates only) and claims, main resource only, not while being deleted. */
function supports(a: AdmissionAttributes): boolean {
  if (a.subresource !== '' || !a.object) return false;
  if (isCoreKind(a, 'Pod')) {
    if (a.operation !== 'CREATE') return false;
  } else if (!isCoreKind(a, 'PersistentVolumeClaim')) {
    return false;
  }
  return !a.oldObject?.metadata?.deletionTimestamp;
}

/** The defaults of one limit range's Container items, set where a container has none. */
function applyDefaults(lr: StoredKubeObject, pod: Obj): void {
  const requests: ResourceList = {};
  const limits: ResourceList = {};
  for (const item of itemsOf(lr)) {
    if (item.type !== 'Container') continue;
    Object.assign(requests, item.defaultRequest ?? {});
    Object.assign(limits, item.default ?? {});
  }
  const notes: string[] = [];
  const spec = (pod.spec ?? {}) as Obj;
  for (const [which, label] of [['containers', 'container'], ['initContainers', 'init container']] as const) {
    for (const c of (spec[which] ?? []) as Obj[]) {
      const setLimits: string[] = [];
      const setRequests: string[] = [];
      const own = resourcesOf(c);
      for (const [k, v] of Object.entries(limits)) {
        if (k in own.limits) continue;
        own.limits[k] = showText(v);
        setLimits.push(k);
      }
      for (const [k, v] of Object.entries(requests)) {
        if (k in own.requests) continue;
        own.requests[k] = showText(v);
        setRequests.push(k);
      }
      if (Object.keys(own.limits).length > 0) c.resources.limits = own.limits;
      if (Object.keys(own.requests).length > 0) c.resources.requests = own.requests;
      if (setRequests.length > 0) notes.push(`${setRequests.sort().join(', ')} request for ${label} ${c.name}`);
      if (setLimits.length > 0) notes.push(`${setLimits.sort().join(', ')} limit for ${label} ${c.name}`);
    }
  }
  if (notes.length > 0) {
    const meta = (pod.metadata ??= {}) as Obj;
    meta.annotations = { ...(meta.annotations ?? {}), [LIMIT_RANGER_ANNOTATION]: `LimitRanger plugin set: ${notes.join('; ')}` };
  }
}

function podMessages(lr: StoredKubeObject, pod: Obj): string[] {
  const out: string[] = [];
  const spec = (pod.spec ?? {}) as Obj;
  for (const item of itemsOf(lr)) {
    if (item.type === 'Container') {
      for (const c of [...(spec.containers ?? []), ...(spec.initContainers ?? [])] as Obj[]) {
        checkItem(item, (c.resources?.requests ?? {}) as ResourceList, (c.resources?.limits ?? {}) as ResourceList, out);
      }
    } else if (item.type === 'Pod') {
      checkItem(item, podTotal(spec, 'requests'), podTotal(spec, 'limits'), out);
    }
  }
  return out;
}

function claimMessages(lr: StoredKubeObject, claim: Obj): string[] {
  const out: string[] = [];
  const requests = (claim.spec?.resources?.requests ?? {}) as ResourceList;
  for (const item of itemsOf(lr)) {
    if (item.type !== 'PersistentVolumeClaim') continue;
    for (const [k, v] of sortedEntries(item.min)) push(out, minConstraint('PersistentVolumeClaim', k, v, requests, {}));
    for (const [k, v] of sortedEntries(item.max)) push(out, maxRequestConstraint('PersistentVolumeClaim', k, v, requests));
  }
  return out;
}

