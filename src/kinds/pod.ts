import type { FieldError } from '../api/errors.ts';
import type { KubeObject } from '../api/types.ts';
import { dns1123LabelErrors, dns1123SubdomainErrors } from '../api/validation/names.ts';
import { defineKind } from '../registry/kind.ts';
import { canonicalJson } from '../registry/system-fields.ts';
import * as field from '../registry/validation/field.ts';
import { labelMapErrors } from '../registry/validation/label-selector.ts';
import { changes } from './persistent-volume.ts';
import { POD_COLUMNS } from './pod-columns.ts';
import { containersErrors, volumesErrors, type ContainerValidationOptions } from './pod-containers.ts';
import { defaultPod } from './pod-defaults.ts';
import { statusDroppingGatedFields } from './gated-status.ts';
import { dropDisabledPodFields, podValidationOptions } from './pod-gated-fields.ts';
import { podQosClass } from './pod-qos.ts';
import { tolerationsErrors, type Toleration } from './tolerations.ts';

type Obj = Record<string, any>;
const specOf = (obj: KubeObject) => (obj.spec ?? {}) as Obj;
const RESTART_POLICIES = ['Always', 'Never', 'OnFailure'];
const DNS_POLICIES = ['ClusterFirst', 'ClusterFirstWithHostNet', 'Default', 'None'];
const MAX_INT32 = 2 ** 31 - 1;
const UPDATE_FORBIDDEN =
  'pod updates may not change fields other than `spec.containers[*].image`,`spec.initContainers[*].image`,`spec.activeDeadlineSeconds`,`spec.tolerations` (only additions to existing tolerations),`spec.terminationGracePeriodSeconds` (allow it to be set to 1 if it was previously negative)';

/** Upstream's ValidatePodSpec (the parts this server judges; see docs for what is left to later issues). */
function specErrors(spec: Obj, opts: ContainerValidationOptions): FieldError[] {
  const at = field.path('spec');
  const { errors, names } = volumesErrors(spec.volumes, at.child('volumes'));
  const errs = [...errors, ...containersErrors(spec.containers, spec.initContainers, names, at, opts)];
  if (!spec.restartPolicy) errs.push(field.required(at.child('restartPolicy')));
  else if (!RESTART_POLICIES.includes(spec.restartPolicy)) errs.push(field.notSupported(at.child('restartPolicy'), spec.restartPolicy, RESTART_POLICIES));
  if (!spec.dnsPolicy) errs.push(field.required(at.child('dnsPolicy')));
  else if (!DNS_POLICIES.includes(spec.dnsPolicy)) errs.push(field.notSupported(at.child('dnsPolicy'), spec.dnsPolicy, DNS_POLICIES));
  errs.push(...labelMapErrors(spec.nodeSelector, at.child('nodeSelector')));
  (spec.imagePullSecrets ?? []).forEach((s: Obj, i: number) => {
    if (!s.name) errs.push(field.required(at.child('imagePullSecrets').index(i).child('name')));
  });
  if (spec.serviceAccountName) for (const msg of dns1123SubdomainErrors(spec.serviceAccountName)) errs.push(field.invalid(at.child('serviceAccountName'), spec.serviceAccountName, msg));
  if (spec.nodeName) for (const msg of dns1123SubdomainErrors(spec.nodeName)) errs.push(field.invalid(at.child('nodeName'), spec.nodeName, msg));
  if (spec.activeDeadlineSeconds !== undefined && (spec.activeDeadlineSeconds < 1 || spec.activeDeadlineSeconds > MAX_INT32)) {
    errs.push(field.invalid(at.child('activeDeadlineSeconds'), spec.activeDeadlineSeconds, `must be between 1 and ${MAX_INT32}, inclusive`));
  }
  if (spec.hostname) for (const msg of dns1123LabelErrors(spec.hostname)) errs.push(field.invalid(at.child('hostname'), spec.hostname, msg));
  if (spec.subdomain) for (const msg of dns1123LabelErrors(spec.subdomain)) errs.push(field.invalid(at.child('subdomain'), spec.subdomain, msg));
  if (spec.tolerations?.length) errs.push(...tolerationsErrors(spec.tolerations, at.child('tolerations')));
  if (spec.priorityClassName) for (const msg of dns1123SubdomainErrors(spec.priorityClassName)) errs.push(field.invalid(at.child('priorityClassName'), spec.priorityClassName, msg));
  if (spec.runtimeClassName !== undefined) for (const msg of dns1123SubdomainErrors(spec.runtimeClassName)) errs.push(field.invalid(at.child('runtimeClassName'), spec.runtimeClassName, msg));
  if (spec.preemptionPolicy !== undefined && !['Never', 'PreemptLowerPriority'].includes(spec.preemptionPolicy)) errs.push(field.notSupported(at.child('preemptionPolicy'), spec.preemptionPolicy, ['Never', 'PreemptLowerPriority']));
  return errs;
}

/** validateOnlyAddedTolerations: existing tolerations stay; new ones may be added. */
function addedTolerationsErrors(now: Toleration[] | undefined, before: Toleration[] | undefined): FieldError[] {
  const errs: FieldError[] = [];
  const key = (t: Toleration) => canonicalJson({ key: t.key ?? '', operator: t.operator ?? '', value: t.value ?? '', effect: t.effect ?? '' });
  const present = new Map((now ?? []).map((t) => [key(t), t]));
  for (const old of before ?? []) {
    const kept = present.get(key(old));
    if (!kept) {
      errs.push(field.forbidden(field.path('spec', 'tolerations'), 'existing toleration can not be modified except its tolerationSeconds'));
      continue;
    }
    if (old.tolerationSeconds !== undefined && (kept.tolerationSeconds === undefined || kept.tolerationSeconds > old.tolerationSeconds)) {
      errs.push(field.forbidden(field.path('spec', 'tolerations'), 'existing toleration can not be modified except its tolerationSeconds'));
    }
  }
  return [...errs, ...tolerationsErrors(now, field.path('spec', 'tolerations'))];
}

/** Upstream's ValidatePodUpdate: images, deadlines, added tolerations and grace periods may change. */
function validateUpdate(obj: KubeObject, old: KubeObject): FieldError[] {
  const spec = specOf(obj);
  const before = specOf(old);
  const at = field.path('spec');
  const errs: FieldError[] = [];
  if ((spec.containers ?? []).length !== (before.containers ?? []).length) return [field.forbidden(at.child('containers'), 'pod updates may not add or remove containers')];
  if (spec.activeDeadlineSeconds !== undefined) {
    if (spec.activeDeadlineSeconds < 0 || spec.activeDeadlineSeconds > MAX_INT32) return [field.invalid(at.child('activeDeadlineSeconds'), spec.activeDeadlineSeconds, `must be between 0 and ${MAX_INT32}, inclusive`)];
    if (before.activeDeadlineSeconds !== undefined && before.activeDeadlineSeconds < spec.activeDeadlineSeconds) return [field.invalid(at.child('activeDeadlineSeconds'), spec.activeDeadlineSeconds, 'must be less than or equal to previous value')];
  } else if (before.activeDeadlineSeconds !== undefined) {
    errs.push(field.invalid(at.child('activeDeadlineSeconds'), null, 'must not update from a positive integer to nil value'));
  }
  errs.push(...addedTolerationsErrors(spec.tolerations, before.tolerations));
  // What may change is set back to the stored values; anything else that differs is refused.
  const munged: Obj = structuredClone(spec);
  munged.containers = (munged.containers ?? []).map((c: Obj, i: number) => ({ ...c, image: before.containers?.[i]?.image }));
  if (munged.initContainers) munged.initContainers = munged.initContainers.map((c: Obj, i: number) => ({ ...c, image: before.initContainers?.[i]?.image }));
  munged.activeDeadlineSeconds = before.activeDeadlineSeconds;
  munged.tolerations = before.tolerations;
  munged.schedulingGates = before.schedulingGates;
  if (before.terminationGracePeriodSeconds < 0 && munged.terminationGracePeriodSeconds === 1) munged.terminationGracePeriodSeconds = before.terminationGracePeriodSeconds;
  for (const k of Object.keys(munged)) if (munged[k] === undefined) delete munged[k];
  if (canonicalJson(munged) !== canonicalJson(before)) errs.push(field.forbidden(at, `${UPDATE_FORBIDDEN}\n${changes(before, munged)}`));
  return errs;
}

/** core v1 Pod: containers scheduled together onto a node (stored and validated; no kubelet runs them here). */
export const pods = defineKind({
  group: '',
  version: 'v1',
  kind: 'Pod',
  plural: 'pods',
  shortNames: ['po'],
  categories: ['all'],
  namespaced: true,
  schemaMessage: 'k8s.io.api.core.v1.Pod',
  subresources: [statusDroppingGatedFields(dropDisabledPodFields, { validateUpdate: () => [] })],
  fieldSelectors: {
    'spec.nodeName': ['spec', 'nodeName'],
    'spec.restartPolicy': ['spec', 'restartPolicy'],
    'spec.schedulerName': ['spec', 'schedulerName'],
    'spec.serviceAccountName': ['spec', 'serviceAccountName'],
    'spec.hostNetwork': { path: ['spec', 'hostNetwork'], missing: 'false' },
    'status.phase': ['status', 'phase'],
    'status.podIP': ['status', 'podIP'],
    'status.nominatedNodeName': ['status', 'nominatedNodeName'],
  },
  tableColumns: POD_COLUMNS,
  strategy: {
    default: (_ctx, obj) => defaultPod(obj),
    // A new pod is Pending, with its QoS class; gated pods carry the SchedulingGated condition.
    prepareForCreate: (ctx, obj) => {
      obj.status = { phase: 'Pending', qosClass: podQosClass(specOf(obj)) };
      dropDisabledPodFields(ctx, obj);
      if (specOf(obj).schedulingGates?.length) (obj.status as Obj).conditions = [{ type: 'PodScheduled', status: 'False', lastProbeTime: null, lastTransitionTime: null, reason: 'SchedulingGated', message: 'Scheduling is blocked due to non-empty scheduling gates' }];
      // A negative grace period means "as short as possible": 1 second.
      if (specOf(obj).terminationGracePeriodSeconds < 0) specOf(obj).terminationGracePeriodSeconds = 1;
    },
    // The store has already put the stored status back; gated fields the stored pod lacks are dropped.
    prepareForUpdate: (ctx, obj, old) => dropDisabledPodFields(ctx, obj, old),
    validate: (ctx, obj) => specErrors(specOf(obj), podValidationOptions(ctx)),
    validateUpdate: (ctx, obj, old) => [...specErrors(specOf(obj), podValidationOptions(ctx, old)), ...validateUpdate(obj, old)],
  },
  deleteStrategy: {
    // Unscheduled and finished pods go at once; others get their grace period (a kubelet would end them).
    gracePeriodSeconds: (_ctx, obj, requested) => {
      let period = requested ?? specOf(obj).terminationGracePeriodSeconds ?? 0;
      const phase = (obj.status as { phase?: string } | undefined)?.phase;
      if (!specOf(obj).nodeName || phase === 'Failed' || phase === 'Succeeded') period = 0;
      return period < 0 ? 1 : period;
    },
  },
});
