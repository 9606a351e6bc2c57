/**
 * What the quota system knows of each kind, as upstream's quota evaluators (pkg/quota/v1/evaluator/core
 * and the generic object count evaluator): which quota resources an object uses, which scopes it is
 * in, and what a pod must set when cpu or memory are under quota.
 */
import type { KubeObject } from '../../../api/types.ts';
import { isExtendedResource, isNativeResource } from '../../../kinds/core-resources.ts';
import { podQosClass } from '../../../kinds/pod-qos.ts';
import type { AdmissionAttributes } from '../../attributes.ts';
import type { Obj } from '../common.ts';
import { podTotal } from '../limit-ranger.ts';
import { add, addInto, cmp, quantity, show, showText, value, type ResourceList } from '../quantities.ts';

export interface ScopeRequirement {
  readonly scopeName: string;
  readonly operator: string;
  readonly values?: readonly string[] | null;
}

export interface GroupResource {
  readonly group: string;
  readonly resource: string;
}

export interface Evaluator {
  readonly groupResource: GroupResource;
  /** Whether a request can change what this kind uses. */
  handles(a: AdmissionAttributes): boolean;
  /** The names among `names` that this kind's objects use. */
  matchingResources(names: readonly string[]): string[];
  /** Whether the object is in the scope a requirement names. */
  matchesScope(requirement: ScopeRequirement, obj: KubeObject): boolean;
  /** The selectors among `selectors` whose scope the object is in (MatchingScopes). */
  matchingScopes(obj: KubeObject, selectors: readonly ScopeRequirement[]): ScopeRequirement[];
  /** The limited scopes that no scope of a quota matching the object covers (UncoveredQuotaScopes). */
  uncoveredQuotaScopes(limited: readonly ScopeRequirement[], matched: readonly ScopeRequirement[]): ScopeRequirement[];
  /** Why the object cannot be judged against quotas that track `required`, or undefined. */
  constraints(required: readonly string[], obj: KubeObject): string | undefined;
  /** What the object uses. */
  usage(obj: KubeObject, now?: number): ResourceList;
}

/** `count/<resource>` or `count/<resource>.<group>`. */
export function objectCountName(gr: GroupResource): string {
  return gr.group ? `count/${gr.resource}.${gr.group}` : `count/${gr.resource}`;
}

/** Kinds with scopes count a limited scope as covered by any matched quota scope of the same name. */
function uncoveredByScopeName(limited: readonly ScopeRequirement[], matched: readonly ScopeRequirement[]): ScopeRequirement[] {
  return limited.filter((l) => !matched.some((m) => m.scopeName === l.scopeName));
}

/** The legacy names that count objects of some core kinds. */
const LEGACY_ALIASES: Readonly<Record<string, string>> = {
  configmaps: 'configmaps',
  resourcequotas: 'resourcequotas',
  replicationcontrollers: 'replicationcontrollers',
  secrets: 'secrets',
};

/** The object count evaluator of any kind: creates only, one object each, no scopes. */
export function objectCountEvaluator(gr: GroupResource): Evaluator {
  const names = [objectCountName(gr)];
  const alias = gr.group === '' ? LEGACY_ALIASES[gr.resource] : undefined;
  if (alias) names.push(alias);
  return {
    groupResource: gr,
    handles: (a) => a.operation === 'CREATE' && a.subresource === '',
    matchingResources: (input) => input.filter((n) => names.includes(n)),
    matchesScope: () => false,
    matchingScopes: () => [],
    uncoveredQuotaScopes: () => [],
    constraints: () => undefined,
    usage: () => Object.fromEntries(names.map((n) => [n, '1'])),
  };
}

// ---- pods ----

const POD_RESOURCES = new Set(['count/pods', 'cpu', 'memory', 'ephemeral-storage', 'requests.cpu', 'requests.memory', 'requests.ephemeral-storage', 'limits.cpu', 'limits.memory', 'limits.ephemeral-storage', 'pods']);
const POD_RESOURCE_PREFIXES = ['hugepages-', 'requests.hugepages-'];
/** A quota on these makes every container say what it requests (upstream keeps this old rule for them alone). */
const VALIDATION_SET = new Set(['cpu', 'memory', 'requests.cpu', 'requests.memory', 'limits.cpu', 'limits.memory']);
const REQUESTS_PREFIX = 'requests.';

function isExtendedQuotaName(name: string): boolean {
  return name.startsWith(REQUESTS_PREFIX) && (!isNativeResource(name) || name.startsWith('requests.deviceclass.resource.kubernetes.io/'));
}

/** What one set of requests and limits counts for: pods, cpu/requests.cpu, limits.cpu, and so on. */
function computeUsage(requests: ResourceList, limits: ResourceList): ResourceList {
  const out: ResourceList = { pods: '1' };
  for (const r of ['cpu', 'memory', 'ephemeral-storage']) {
    if (r in requests) out[r] = out[`requests.${r}`] = showText(requests[r]!);
    if (r in limits) out[`limits.${r}`] = showText(limits[r]!);
  }
  for (const [k, v] of Object.entries(requests)) {
    if (k.startsWith('hugepages-')) out[k] = out[`requests.${k}`] = showText(v);
    if (isExtendedResource(k)) out[`requests.${k}`] = showText(v);
  }
  return out;
}

/** Active deadline set: the pod ends by itself (the Terminating scope). */
export function isTerminatingPod(pod: Obj): boolean {
  const d = pod.spec?.activeDeadlineSeconds;
  return typeof d === 'number' && d >= 0;
}

/** Whether a pod still counts for compute quota: not finished, and not past its deletion grace period. */
export function podCounts(pod: Obj, now = Date.now()): boolean {
  const phase = pod.status?.phase;
  if (phase === 'Failed' || phase === 'Succeeded') return false;
  const deletion = pod.metadata?.deletionTimestamp;
  const grace = pod.metadata?.deletionGracePeriodSeconds;
  if (deletion && typeof grace === 'number' && now > Date.parse(deletion) + grace * 1000) return false;
  return true;
}

/** What a whole pod requests or limits (resourcehelper.PodRequests/PodLimits): containers, init containers, pod-level values and overhead. */
function podResources(spec: Obj, which: 'requests' | 'limits'): ResourceList {
  const total = podTotal(spec, which);
  for (const [k, v] of Object.entries((spec.overhead ?? {}) as ResourceList)) {
    if (which === 'requests') total[k] = k in total ? show(add(quantity(total[k]), quantity(v))) : showText(v);
    else if (k in total) total[k] = show(add(quantity(total[k]), quantity(v)));
  }
  return total;
}

function labelRequirementMatches(req: ScopeRequirement, value: string | undefined): boolean {
  const values = req.values ?? [];
  switch (req.operator) {
    case 'In':
      return value !== undefined && values.includes(value);
    case 'NotIn':
      return value === undefined || !values.includes(value);
    case 'Exists':
      return value !== undefined;
    case 'DoesNotExist':
      return value === undefined;
    default:
      return false;
  }
}

function crossNamespaceTerms(terms: Obj[] | undefined, weighted: boolean): boolean {
  return (terms ?? []).some((t) => {
    const term = weighted ? t?.podAffinityTerm : t;
    return (Array.isArray(term?.namespaces) && term.namespaces.length > 0) || (term?.namespaceSelector !== undefined && term?.namespaceSelector !== null);
  });
}

function usesCrossNamespaceAffinity(spec: Obj): boolean {
  for (const a of [spec.affinity?.podAffinity, spec.affinity?.podAntiAffinity]) {
    if (!a) continue;
    if (crossNamespaceTerms(a.requiredDuringSchedulingIgnoredDuringExecution, false)) return true;
    if (crossNamespaceTerms(a.preferredDuringSchedulingIgnoredDuringExecution, true)) return true;
  }
  return false;
}

function podLevelResourcesSet(spec: Obj): boolean {
  const r = spec.resources;
  return Boolean(r && (Object.keys(r.requests ?? {}).length > 0 || Object.keys(r.limits ?? {}).length > 0));
}

export const podEvaluator: Evaluator = {
  groupResource: { group: '', resource: 'pods' },
  handles(a) {
    if (a.subresource === '') {
      if (a.operation === 'UPDATE' && a.object && a.oldObject) return isTerminatingPod(a.object as Obj) !== isTerminatingPod(a.oldObject as Obj);
      return a.operation === 'CREATE';
    }
    return a.subresource === 'resize' && a.operation === 'UPDATE';
  },
  matchingResources(input) {
    const out = input.filter((n) => POD_RESOURCES.has(n));
    for (const n of input) {
      if (POD_RESOURCE_PREFIXES.some((p) => n.startsWith(p))) out.push(n);
      if (isExtendedQuotaName(n)) out.push(n);
    }
    return out;
  },
  matchesScope(req, obj) {
    const pod = obj as Obj;
    const spec = (pod.spec ?? {}) as Obj;
    switch (req.scopeName) {
      case 'Terminating':
        return isTerminatingPod(pod);
      case 'NotTerminating':
        return !isTerminatingPod(pod);
      case 'BestEffort':
        return podQosClass(spec) === 'BestEffort';
      case 'NotBestEffort':
        return podQosClass(spec) !== 'BestEffort';
      case 'PriorityClass':
        if (req.operator === 'Exists') return Boolean(spec.priorityClassName);
        return labelRequirementMatches(req, spec.priorityClassName ? String(spec.priorityClassName) : undefined);
      case 'CrossNamespacePodAffinity':
        return usesCrossNamespaceAffinity(spec);
      default:
        return false;
    }
  },
  matchingScopes: (obj, selectors) => selectors.filter((s) => podEvaluator.matchesScope(s, obj)),
  uncoveredQuotaScopes: uncoveredByScopeName,
  constraints(required, obj) {
    const spec = ((obj as Obj).spec ?? {}) as Obj;
    if (podLevelResourcesSet(spec)) return undefined;
    const needed = [...new Set(required)].filter((r) => VALIDATION_SET.has(r));
    if (needed.length === 0) return undefined;
    const missing = new Map<string, Set<string>>();
    for (const c of [...(spec.containers ?? []), ...(spec.initContainers ?? [])] as Obj[]) {
      const own = computeUsage((c.resources?.requests ?? {}) as ResourceList, (c.resources?.limits ?? {}) as ResourceList);
      for (const r of needed) {
        if (r in own) continue;
        if (!missing.has(r)) missing.set(r, new Set());
        missing.get(r)!.add(String(c.name ?? ''));
      }
    }
    if (missing.size === 0) return undefined;
    const parts = [...missing.keys()].sort().map((r) => `${r} for: ${[...missing.get(r)!].sort().join(',')}`);
    return `must specify ${parts.join('; ')}`;
  },
  usage(obj, now) {
    const pod = obj as Obj;
    const out: ResourceList = { 'count/pods': '1' };
    if (!podCounts(pod, now)) return out;
    const spec = (pod.spec ?? {}) as Obj;
    return addInto(out, computeUsage(podResources(spec, 'requests'), podResources(spec, 'limits')));
  },
};

// ---- persistent volume claims ----

const STORAGE_CLASS_SUFFIX = '.storageclass.storage.k8s.io/';
const PVC_RESOURCES = ['persistentvolumeclaims', 'requests.storage'];

/** The claim's storage class: the beta annotation wins over spec.storageClassName. */
function claimClass(pvc: Obj): string {
  const beta = pvc.metadata?.annotations?.['volume.beta.kubernetes.io/storage-class'];
  if (typeof beta === 'string') return beta;
  return typeof pvc.spec?.storageClassName === 'string' ? pvc.spec.storageClassName : '';
}

/** The storage a claim is charged: its request in whole bytes, or what was allocated when that is more. */
function claimStorage(pvc: Obj): string | undefined {
  const requested = pvc.spec?.resources?.requests?.storage;
  if (requested === undefined) return undefined;
  const wholeBytes = (text: string) => {
    const q = quantity(text);
    return q.scale >= 0 ? show(q) : show({ unscaled: value(q), scale: 0, format: q.format });
  };
  let result = wholeBytes(String(requested));
  const allocated = pvc.status?.allocatedResources?.storage;
  if (allocated !== undefined && cmp(quantity(String(allocated)), quantity(result)) > 0) result = wholeBytes(String(allocated));
  return result;
}

export const pvcEvaluator: Evaluator = {
  groupResource: { group: '', resource: 'persistentvolumeclaims' },
  // Status writes too: what was allocated counts when it is more than the request.
  handles: (a) => a.operation === 'CREATE' || a.operation === 'UPDATE',
  matchingResources(input) {
    return input.filter((n) => n === 'count/persistentvolumeclaims' || PVC_RESOURCES.includes(n) || PVC_RESOURCES.some((r) => n.endsWith(STORAGE_CLASS_SUFFIX + r)));
  },
  matchesScope(req, obj) {
    if (req.scopeName !== 'VolumeAttributesClass') return false;
    const pvc = obj as Obj;
    const names = [pvc.spec?.volumeAttributesClassName, pvc.status?.currentVolumeAttributesClassName, pvc.status?.modifyVolumeStatus?.targetVolumeAttributesClassName].filter(
      (n): n is string => typeof n === 'string' && n !== '',
    );
    if (req.operator === 'Exists') return names.length > 0;
    if (req.operator === 'DoesNotExist') return names.length === 0;
    if (names.length === 0) return labelRequirementMatches(req, undefined);
    return names.some((n) => labelRequirementMatches(req, n));
  },
  matchingScopes: (obj, selectors) => selectors.filter((s) => pvcEvaluator.matchesScope(s, obj)),
  uncoveredQuotaScopes: uncoveredByScopeName,
  constraints: () => undefined,
  usage(obj) {
    const pvc = obj as Obj;
    const out: ResourceList = { persistentvolumeclaims: '1', 'count/persistentvolumeclaims': '1' };
    const cls = claimClass(pvc);
    if (cls) out[`${cls}${STORAGE_CLASS_SUFFIX}persistentvolumeclaims`] = '1';
    const storage = claimStorage(pvc);
    if (storage !== undefined) {
      out['requests.storage'] = storage;
      if (cls) out[`${cls}${STORAGE_CLASS_SUFFIX}requests.storage`] = storage;
    }
    return out;
  },
};

/** Resources whose use quota never tracks (kube-apiserver's default configuration). */
export function ignoredResource(gr: GroupResource): boolean {
  return gr.group === '' && gr.resource === 'events';
}

/** The evaluator of a kind: pods and claims have their own, any other kind counts objects. */
export function evaluatorFor(gr: GroupResource): Evaluator {
  if (gr.group === '' && gr.resource === 'pods') return podEvaluator;
  if (gr.group === '' && gr.resource === 'persistentvolumeclaims') return pvcEvaluator;
  return objectCountEvaluator(gr);
}

/**
 * The kinds whose objects a quota with these hard resources counts: pods and claims by their
 * evaluators' names, the legacy aliases, and `count/<resource>[.<group>]`.
 */
export function trackedKinds(names: readonly string[]): GroupResource[] {
  const out = new Map<string, GroupResource>();
  const put = (gr: GroupResource) => out.set(`${gr.group}/${gr.resource}`, gr);
  if (podEvaluator.matchingResources(names).length > 0) put(podEvaluator.groupResource);
  if (pvcEvaluator.matchingResources(names).length > 0) put(pvcEvaluator.groupResource);
  for (const n of names) {
    if (LEGACY_ALIASES[n]) put({ group: '', resource: n });
    if (!n.startsWith('count/')) continue;
    const rest = n.slice('count/'.length);
    const dot = rest.indexOf('.');
    put(dot < 0 ? { group: '', resource: rest } : { group: rest.slice(dot + 1), resource: rest.slice(0, dot) });
  }
  return [...out.values()];
}
