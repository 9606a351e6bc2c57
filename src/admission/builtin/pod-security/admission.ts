import { ApiError, forbidden, invalid, type FieldError } from '../../../api/errors.ts';
import { systemContext } from '../../../api/request-context.ts';
import type { StoredKubeObject } from '../../../api/types.ts';
import type { Informer } from '../../../registry/informer.ts';
import { parseListQuery } from '../../../registry/list-options.ts';
import type { ResourceStore } from '../../../registry/resource-store.ts';
import type { AdmissionAttributes } from '../../attributes.ts';
import type { AdmissionDeps } from '../../index.ts';
import { handlesOperations, type AdmissionPlugin } from '../../plugin.ts';
import { isCoreKind, plainStore, servedKind, type Obj } from '../common.ts';
import { DEFAULT_CONFIGURATION, loadPodSecurityConfiguration, type PodSecurityConfiguration } from './configuration.ts';
import {
  ANNOTATION_PREFIX,
  compareLevels,
  equivalentPolicies,
  evaluatePod,
  forbiddenDetail,
  forbiddenReason,
  fullyPrivileged,
  LABELS,
  levelVersionString,
  PRIVILEGED_LATEST,
  policyToEvaluate,
  sameLevelVersion,
  sameVersion,
  type AggregateResult,
  type LevelVersion,
  type Policy,
} from './policy.ts';

export { DEFAULT_CONFIGURATION, type PodSecurityConfiguration } from './configuration.ts';

/** Pod subresources that never change what the standards judge. */
const IGNORED_POD_SUBRESOURCES = new Set(['exec', 'attach', 'binding', 'eviction', 'log', 'portforward', 'proxy', 'status']);
/** At most this many pods are judged when a namespace's enforce level rises, for at most this long. */
const NAMESPACE_MAX_PODS = 3000;
const NAMESPACE_CHECK_TIMEOUT_MS = 1000;

/**
 * The PodSecurity admission plugin (validating), as k8s.io/pod-security-admission wrapped by
 * kube-apiserver. A namespace's labels `pod-security.kubernetes.io/{enforce,audit,warn}[-version]`
 * pick a level (privileged, baseline, restricted) and a version (`latest` or v1.x) per mode; pods
 * created in it, and updates that change an image or add an ephemeral container, are judged:
 * - enforce: a pod that breaks the level is refused (403 `violates PodSecurity "<level>:<version>": …`);
 * - warn: the client is told what the pod would break (a warning);
 * - audit: the request's audit event gets `pod-security.kubernetes.io/audit-violations`;
 * every judged pod's event gets `pod-security.kubernetes.io/enforce-policy`. Namespaces with bad
 * labels are refused (422); a namespace whose enforce level rises warns of its existing pods
 * that would break it. The plugin's PodSecurityConfiguration (from --admission-control-config-file)
 * sets the policy of unlabelled modes and the exemptions: pods of exempt namespaces, by exempt users
 * or with an exempt runtime class are let through unjudged, their audit event saying why
 * (`pod-security.kubernetes.io/exempt`: namespace, user or runtimeClass).
 */
export class PodSecurity implements AdmissionPlugin {
  readonly name = 'PodSecurity';
  readonly handles = handlesOperations('CREATE', 'UPDATE');
  readonly #namespaces: ResourceStore;
  readonly #namespaceView: Informer;
  readonly #pods: ResourceStore | undefined;
  readonly #config: PodSecurityConfiguration;

  constructor(namespaces: ResourceStore, namespaceView: Informer, pods: ResourceStore | undefined, config: PodSecurityConfiguration = DEFAULT_CONFIGURATION) {
    this.#namespaces = namespaces;
    this.#namespaceView = namespaceView;
    this.#pods = pods;
    this.#config = config;
  }

  /** `configuration`: the plugin's text from the admission configuration file, if any (a bad one stops the start). */
  static build(deps: AdmissionDeps, configuration?: string): { plugin: PodSecurity } {
    const config = loadPodSecurityConfiguration(configuration);
    const podKind = deps.kinds.find((k) => k.group === '' && k.kind === 'Pod');
    servedKind(deps, '', 'Namespace', 'PodSecurity');
    return { plugin: new PodSecurity(deps.namespaces, deps.namespaceView, podKind ? plainStore(deps, podKind) : undefined, config) };
  }

  validate(a: AdmissionAttributes): Promise<void> | void {
    if (a.resource.group !== '') return;
    if (a.resource.resource === 'namespaces') return this.#validateNamespace(a);
    if (a.resource.resource === 'pods') return this.#validatePod(a);
  }

  async #validateNamespace(a: AdmissionAttributes): Promise<void> {
    if (a.subresource !== '' || !a.object || !isCoreKind(a, 'Namespace')) return;
    const labels = (a.object.metadata?.labels ?? {}) as Record<string, string>;
    const { policy, errors } = policyToEvaluate(labels, this.#config.defaults);
    const name = String(a.object.metadata?.name ?? a.name);
    if (a.operation === 'CREATE') {
      if (errors.length > 0) throw invalid('', 'Namespace', a.name, errors);
      // Upstream asks whether the request's namespace is exempt: a POST to /api/v1/namespaces has
      // none, so creating an exempt namespace draws no warning (updating one does, below).
      if (this.#exemptNamespace(a.namespace)) this.#warnExemptNamespace(a, name, policy, labels);
      return;
    }
    if (a.operation !== 'UPDATE' || !a.oldObject) return;
    const old = policyToEvaluate((a.oldObject.metadata?.labels ?? {}) as Record<string, string>, this.#config.defaults);
    if (errors.length > 0 && (old.errors.length === 0 || !sameErrors(errors, old.errors))) throw invalid('', 'Namespace', a.name, errors);
    if (sameLevelVersion(policy.enforce, old.policy.enforce)) return;
    if (policy.enforce.level === 'privileged') return;
    if (sameVersion(policy.enforce.version, old.policy.enforce.version) && compareLevels(policy.enforce.level, old.policy.enforce.level) < 1) return;
    // A request to /api/v1/namespaces/<name> is in that namespace for upstream: an exempt one's
    // pods are not judged against its new level.
    if (this.#exemptNamespace(name)) {
      this.#warnExemptNamespace(a, name, policy, labels);
      return;
    }
    a.context.warnings.push(...(await this.#evaluatePodsInNamespace(name, policy.enforce)));
  }

  async #validatePod(a: AdmissionAttributes): Promise<void> {
    if (IGNORED_POD_SUBRESOURCES.has(a.subresource) || !a.object) return;
    const annotate = (key: string, value: string) => {
      if (a.context.auditAnnotations) a.context.auditAnnotations[ANNOTATION_PREFIX + key] = value;
    };
    if (this.#exemptNamespace(a.namespace)) return annotate('exempt', 'namespace');
    if (a.user.name && this.#config.exemptions.usernames.includes(a.user.name)) return annotate('exempt', 'user');
    const namespace = await this.#namespace(a.namespace);
    const { policy, errors } = policyToEvaluate((namespace.metadata.labels ?? {}) as Record<string, string>, this.#config.defaults);
    if (errors.length === 0 && fullyPrivileged(policy)) return annotate('enforce-policy', levelVersionString(PRIVILEGED_LATEST));
    const pod = a.object as Obj;
    if (a.operation === 'UPDATE' && a.oldObject && !significantPodUpdate(pod, a.oldObject as Obj)) return;
    const meta = (pod.metadata ?? {}) as Obj;
    const spec = (pod.spec ?? {}) as Obj;
    if (spec.runtimeClassName && this.#config.exemptions.runtimeClasses.includes(spec.runtimeClassName)) return annotate('exempt', 'runtimeClass');

    if (errors.length > 0) annotate('error', `Failed to parse policy: ${aggregateFieldErrors(errors)}`);
    const cache = new Map<string, AggregateResult>();
    const judge = (lv: LevelVersion) => {
      const key = levelVersionString(lv);
      let r = cache.get(key);
      if (!r) cache.set(key, (r = evaluatePod(lv, meta, spec)));
      return r;
    };
    annotate('enforce-policy', levelVersionString(policy.enforce));
    const enforced = judge(policy.enforce);
    const audited = judge(policy.audit);
    if (!audited.allowed) annotate('audit-violations', `would violate PodSecurity "${levelVersionString(policy.audit)}": ${forbiddenDetail(audited)}`);
    if (!enforced.allowed) {
      throw forbidden({ group: '', resource: 'pods' }, a.name, `violates PodSecurity "${levelVersionString(policy.enforce)}": ${forbiddenDetail(enforced)}`);
    }
    const warned = judge(policy.warn);
    if (!warned.allowed) a.context.warnings.push(`would violate PodSecurity "${levelVersionString(policy.warn)}": ${forbiddenDetail(warned)}`);
  }

  /** The pod's namespace: the shared informer's copy, or the store's. */
  async #namespace(name: string): Promise<StoredKubeObject> {
    const known = this.#namespaceView.get('', name);
    if (known) return known;
    try {
      return (await this.#namespaces.get(systemContext(), '', name)).object;
    } catch (err) {
      if (err instanceof ApiError && err.code === 404) {
        const e = new ApiError(500, 'InternalError', `Internal error occurred: failed to lookup namespace "${name}"`, { causes: [{ message: `failed to lookup namespace "${name}"` }] });
        throw e;
      }
      throw err;
    }
  }

  #exemptNamespace(name: string): boolean {
    return name !== '' && this.#config.exemptions.namespaces.includes(name);
  }

  /** Tells the client that an exempt namespace's labels are ignored (when they set anything). */
  #warnExemptNamespace(a: AdmissionAttributes, name: string, policy: Policy, labels: Record<string, string>): void {
    if (fullyPrivileged(policy) || equivalentPolicies(policy, this.#config.defaults)) return;
    const parts: string[] = [];
    const has = (k: string) => Object.hasOwn(labels, k);
    if (policy.enforce.level !== 'privileged' && (has(LABELS.enforce) || has(LABELS.enforceVersion))) parts.push(`enforce=${levelVersionString(policy.enforce)}`);
    if (policy.audit.level !== 'privileged' && (has(LABELS.audit) || has(LABELS.auditVersion))) parts.push(`audit=${levelVersionString(policy.audit)}`);
    if (policy.warn.level !== 'privileged' && (has(LABELS.warn) || has(LABELS.warnVersion))) parts.push(`warn=${levelVersionString(policy.warn)}`);
    a.context.warnings.push(`namespace ${JSON.stringify(name)} is exempt from Pod Security, and the policy (${parts.join(', ')}) will be ignored`);
  }

  /**
   * Warnings for a namespace whose enforce level rises: which existing pods would break it, grouped
   * by what they break (first pods without a controller, then one pod per controller, then the rest).
   */
  async #evaluatePodsInNamespace(namespace: string, enforce: LevelVersion): Promise<string[]> {
    if (!this.#pods) return [];
    const deadline = Date.now() + NAMESPACE_CHECK_TIMEOUT_MS;
    let pods: Obj[];
    try {
      const page = await this.#pods.list(systemContext(), namespace, parseListQuery(new URLSearchParams()));
      pods = page.items.map((text) => JSON.parse(text) as Obj);
    } catch {
      return ['failed to list pods while checking new PodSecurity enforce level'];
    }
    const prioritized = this.#prioritize(pods);
    const total = prioritized.length;
    const toCheck = prioritized.slice(0, NAMESPACE_MAX_PODS);
    let checked = toCheck.length;
    const order: string[] = [];
    const counts = new Map<string, { podName: string; count: number }>();
    for (let i = 0; i < toCheck.length; i++) {
      const pod = toCheck[i]!;
      const r = evaluatePod(enforce, pod.metadata ?? {}, pod.spec ?? {});
      if (!r.allowed) {
        const warning = forbiddenReason(r);
        const c = counts.get(warning);
        if (!c) {
          order.push(warning);
          counts.set(warning, { podName: pod.metadata?.name ?? '', count: 1 });
        } else {
          if ((pod.metadata?.name ?? '') < c.podName) c.podName = pod.metadata?.name ?? '';
          c.count++;
        }
      }
      if (Date.now() > deadline) {
        checked = i + 1;
        break;
      }
    }
    const warnings: string[] = [];
    if (checked < total) warnings.push(`new PodSecurity enforce level only checked against the first ${checked} of ${total} existing pods`);
    if (order.length > 0) warnings.push(`existing pods in namespace ${JSON.stringify(namespace)} violate the new PodSecurity enforce level ${JSON.stringify(levelVersionString(enforce))}`);
    const decorated = order.map((w) => {
      const c = counts.get(w)!;
      if (c.count === 1) return `${c.podName}: ${w}`;
      if (c.count === 2) return `${c.podName} (and 1 other pod): ${w}`;
      return `${c.podName} (and ${c.count - 1} other pods): ${w}`;
    });
    decorated.sort();
    return [...warnings, ...decorated];
  }

  #prioritize(pods: Obj[]): Obj[] {
    const first: Obj[] = [];
    const later: Obj[] = [];
    const seen = new Set<string>();
    for (const pod of pods) {
      const rc = pod.spec?.runtimeClassName;
      if (rc && this.#config.exemptions.runtimeClasses.includes(rc)) continue;
      const owner = ((pod.metadata?.ownerReferences ?? []) as Obj[]).find((r) => r?.controller === true);
      if (!owner) first.push(pod);
      else if (seen.has(owner.uid)) later.push(pod);
      else {
        seen.add(owner.uid);
        first.push(pod);
      }
    }
    return [...first, ...later];
  }
}

/** An image changed, a container was added or removed, or an ephemeral container added or changed. */
function significantPodUpdate(pod: Obj, old: Obj): boolean {
  const list = (o: Obj, k: string) => (Array.isArray(o.spec?.[k]) ? o.spec[k] : []) as Obj[];
  for (const k of ['containers', 'initContainers']) {
    const now = list(pod, k);
    const before = list(old, k);
    if (now.length !== before.length) return true;
    for (let i = 0; i < now.length; i++) if (now[i]?.image !== before[i]?.image) return true;
  }
  const oldEphemeral = list(old, 'ephemeralContainers');
  for (const c of list(pod, 'ephemeralContainers')) {
    const o = oldEphemeral.find((x) => x?.name === c?.name);
    if (!o || o.image !== c?.image) return true;
  }
  return false;
}

function sameErrors(a: readonly FieldError[], b: readonly FieldError[]): boolean {
  return JSON.stringify(a) === JSON.stringify(b);
}

/** field.ErrorList.ToAggregate().Error(). */
function aggregateFieldErrors(errors: readonly FieldError[]): string {
  const texts = [...new Set(errors.map((e) => `${e.field}: Invalid value: ${JSON.stringify(e.value)}: ${e.detail}`))];
  return texts.length === 1 ? texts[0]! : `[${texts.join(', ')}]`;
}
