/**
 * Upstream's DropDisabledPodFields (pkg/api/pod/util.go, Kubernetes 1.34): while a feature gate is
 * off, a write may not start using the fields it guards. A create drops them; an update drops them
 * unless the stored pod already used them, so that turning a gate off never makes an existing pod
 * impossible to update. Gates that are GA and locked on in 1.34 (SidecarContainers,
 * RecursiveReadOnlyMounts, PodLifecycleSleepAction, NodeInclusionPolicyInPodTopologySpread,
 * MatchLabelKeysInPodAffinity, …) have no rule: their fields are always kept.
 */
import type { RequestContext } from '../api/request-context.ts';
import type { KubeObject } from '../api/types.ts';
import type { ContainerValidationOptions } from './pod-containers.ts';

type Obj = Record<string, any>;

/** The parts of a pod the rules read and change. */
interface PodParts {
  readonly spec: Obj;
  readonly status: Obj;
}

/** One gate's fields: when the gate is off and the stored pod does not use them, they are dropped. */
interface GatedFieldRule {
  /** The gate, spelled as upstream spells it. */
  readonly gate: string;
  /** Whether the stored pod already uses the fields (an update then keeps them). */
  readonly inUse: (old: PodParts) => boolean;
  /** Removes (or resets) the fields in the pod being written. */
  readonly drop: (pod: PodParts) => void;
}

/** Go's "not nil": JSON null and an absent key both read as nil. */
const isSet = (v: unknown) => v !== undefined && v !== null;
/** Go's len(x) > 0, for a list or a map. */
const nonEmpty = (v: unknown) => (Array.isArray(v) ? v.length > 0 : isSet(v) && typeof v === 'object' && Object.keys(v as object).length > 0);
const list = (v: unknown): Obj[] => (Array.isArray(v) ? (v.filter((x) => x && typeof x === 'object') as Obj[]) : []);

/** Every container of the spec, in upstream's visiting order: init, regular, ephemeral. */
const allContainers = (spec: Obj): Obj[] => [...list(spec.initContainers), ...list(spec.containers), ...list(spec.ephemeralContainers)];
/** Every container status list entry (init, regular, ephemeral). */
const allStatuses = (status: Obj): Obj[] => [...list(status.initContainerStatuses), ...list(status.containerStatuses), ...list(status.ephemeralContainerStatuses)];
/** Every projected volume source of the spec. */
const projectedSources = (spec: Obj): Obj[] => list(spec.volumes).flatMap((v) => list(v.projected?.sources));

function deleteFrom(objects: Obj[], key: string): void {
  for (const o of objects) delete o[key];
}

function dropSecurityContextField(key: string): (pod: PodParts) => void {
  return ({ spec }) => {
    if (spec.securityContext && typeof spec.securityContext === 'object') delete spec.securityContext[key];
  };
}

const securityContextFieldInUse = (key: string) => (old: PodParts) => isSet(old.spec.securityContext?.[key]);

/** inPlacePodVerticalScalingInUse: a regular or init container of the stored pod has a resize policy. */
const resizePolicyInUse = (old: PodParts) => [...list(old.spec.initContainers), ...list(old.spec.containers)].some((c) => nonEmpty(c.resizePolicy));

/** containerRestartRulesInUse: an init container with a policy other than Always or with rules, or a regular container with a policy. */
function restartRulesInUse(old: PodParts): boolean {
  if (list(old.spec.initContainers).some((c) => (isSet(c.restartPolicy) && c.restartPolicy !== 'Always') || nonEmpty(c.restartPolicyRules))) return true;
  return list(old.spec.containers).some((c) => isSet(c.restartPolicy));
}

/** dropContainerRestartRules: init containers keep only the sidecar policy (Always); others lose policy and rules. */
function dropRestartRules({ spec }: PodParts): void {
  for (const c of list(spec.initContainers)) {
    if (isSet(c.restartPolicy) && c.restartPolicy !== 'Always') delete c.restartPolicy;
    delete c.restartPolicyRules;
  }
  for (const c of [...list(spec.containers), ...list(spec.ephemeralContainers)]) {
    delete c.restartPolicy;
    delete c.restartPolicyRules;
  }
}

/** dropImageVolumes: image volumes go, and so do the mounts that name them. */
function dropImageVolumes({ spec }: PodParts): void {
  const imageVolumes = new Set(list(spec.volumes).filter((v) => isSet(v.image)).map((v) => v.name));
  // Upstream rebuilds the lists even when nothing is dropped; an emptied list is nil (omitted).
  const kept = list(spec.volumes).filter((v) => !isSet(v.image));
  if (kept.length) spec.volumes = kept;
  else delete spec.volumes;
  for (const c of allContainers(spec)) {
    if (c.volumeMounts === undefined) continue;
    const mounts = list(c.volumeMounts).filter((m) => !imageVolumes.has(m.name));
    if (mounts.length) c.volumeMounts = mounts;
    else delete c.volumeMounts;
  }
}

/** dropContainerStopSignals: the stop signal goes, and the lifecycle with it when nothing else is left. */
function dropStopSignals({ spec }: PodParts): void {
  for (const c of allContainers(spec)) {
    const lifecycle = c.lifecycle;
    if (!lifecycle || typeof lifecycle !== 'object' || !isSet(lifecycle.stopSignal)) continue;
    delete lifecycle.stopSignal;
    if (!isSet(lifecycle.postStart) && !isSet(lifecycle.preStop)) delete c.lifecycle;
  }
}

/** podObservedGenerationTrackingInUse: the stored status or one of its conditions records an observed generation. */
const observedGenerationInUse = (old: PodParts) => Boolean(old.status.observedGeneration) || list(old.status.conditions).some((c) => Boolean(c.observedGeneration));

/** podFileKeyRefInUse: a container of the stored pod reads an env var from a file. */
const fileKeyRefInUse = (old: PodParts) => allContainers(old.spec).some((c) => list(c.env).some((e) => isSet(e.valueFrom?.fileKeyRef)));

/** The rules of 1.34, in upstream's order (spec first, then status). */
const RULES: readonly GatedFieldRule[] = [
  { gate: 'UserNamespacesSupport', inUse: securityContextFieldInUse('hostUsers'), drop: dropSecurityContextField('hostUsers') },
  {
    gate: 'SupplementalGroupsPolicy',
    inUse: securityContextFieldInUse('supplementalGroupsPolicy'),
    drop: (pod) => {
      dropSecurityContextField('supplementalGroupsPolicy')(pod);
      deleteFrom(allStatuses(pod.status), 'user');
    },
  },
  // Only requests or limits count as use (an empty resources object does not).
  { gate: 'PodLevelResources', inUse: (old) => nonEmpty(old.spec.resources?.requests) || nonEmpty(old.spec.resources?.limits), drop: ({ spec }) => delete spec.resources },
  {
    gate: 'ProcMountType',
    inUse: (old) => allContainers(old.spec).some((c) => isSet(c.securityContext?.procMount) && c.securityContext.procMount !== 'Default'),
    // Old clients sent procMount set to the default; forcing it back to Default (not nil) keeps them from seeing a diff.
    drop: ({ spec }) => {
      for (const c of allContainers(spec)) if (isSet(c.securityContext?.procMount)) c.securityContext.procMount = 'Default';
    },
  },
  {
    gate: 'MatchLabelKeysInPodTopologySpread',
    inUse: (old) => list(old.spec.topologySpreadConstraints).some((t) => nonEmpty(t.matchLabelKeys)),
    drop: ({ spec }) => deleteFrom(list(spec.topologySpreadConstraints), 'matchLabelKeys'),
  },
  {
    gate: 'DynamicResourceAllocation',
    // Containers may only claim what the pod lists, so the pod-level list alone tells use.
    inUse: (old) => nonEmpty(old.spec.resourceClaims),
    drop: ({ spec, status }) => {
      for (const c of allContainers(spec)) if (c.resources && typeof c.resources === 'object') delete c.resources.claims;
      delete spec.resourceClaims;
      delete status.resourceClaimStatuses;
    },
  },
  {
    gate: 'ClusterTrustBundleProjection',
    inUse: (old) => projectedSources(old.spec).some((s) => isSet(s.clusterTrustBundle)),
    drop: ({ spec }) => deleteFrom(projectedSources(spec), 'clusterTrustBundle'),
  },
  {
    gate: 'PodCertificateRequest',
    inUse: (old) => projectedSources(old.spec).some((s) => isSet(s.podCertificate)),
    drop: ({ spec }) => deleteFrom(projectedSources(spec), 'podCertificate'),
  },
  {
    gate: 'InPlacePodVerticalScaling',
    inUse: resizePolicyInUse,
    // The containers' resources stay: ValidatePodUpdate judges changes to them.
    drop: ({ spec, status }) => {
      deleteFrom(allContainers(spec), 'resizePolicy');
      deleteFrom(allStatuses(status), 'resources');
      deleteFrom(allStatuses(status), 'allocatedResources');
    },
  },
  { gate: 'ContainerRestartRules', inUse: restartRulesInUse, drop: dropRestartRules },
  { gate: 'HostnameOverride', inUse: (old) => isSet(old.spec.hostnameOverride), drop: ({ spec }) => delete spec.hostnameOverride },
  {
    gate: 'EnvFiles',
    inUse: fileKeyRefInUse,
    // The valueFrom stays (empty): validation then says it names no source.
    drop: ({ spec }) => {
      for (const c of allContainers(spec)) for (const e of list(c.env)) if (e.valueFrom && typeof e.valueFrom === 'object') delete e.valueFrom.fileKeyRef;
    },
  },
  { gate: 'ImageVolume', inUse: (old) => list(old.spec.volumes).some((v) => isSet(v.image)), drop: dropImageVolumes },
  { gate: 'SELinuxChangePolicy', inUse: securityContextFieldInUse('seLinuxChangePolicy'), drop: dropSecurityContextField('seLinuxChangePolicy') },
  { gate: 'ContainerStopSignals', inUse: (old) => allContainers(old.spec).some((c) => isSet(c.lifecycle?.stopSignal)), drop: dropStopSignals },
  { gate: 'DRAExtendedResource', inUse: (old) => isSet(old.status.extendedResourceClaimStatus), drop: ({ status }) => delete status.extendedResourceClaimStatus },
  // Upstream keeps no "in use" exception here: device health is only ever reported while the gate is on.
  { gate: 'ResourceHealthStatus', inUse: () => false, drop: ({ status }) => deleteFrom(allStatuses(status), 'allocatedResourcesStatus') },
  {
    gate: 'PodObservedGenerationTracking',
    inUse: observedGenerationInUse,
    drop: ({ status }) => {
      delete status.observedGeneration;
      deleteFrom(list(status.conditions), 'observedGeneration');
    },
  },
];

const partsOf = (obj: KubeObject): PodParts => ({ spec: (obj.spec ?? {}) as Obj, status: (obj.status ?? {}) as Obj });

/**
 * Drops from `pod` (changed in place) the fields whose gate is off, unless `old` (the stored pod, on
 * an update) already used them. Called by the pod's create and update preparation and its status
 * strategy, as upstream's strategies call DropDisabledPodFields.
 */
export function dropDisabledPodFields(ctx: RequestContext, pod: KubeObject, old?: KubeObject): void {
  const parts = partsOf(pod);
  const before = old ? partsOf(old) : undefined;
  for (const rule of RULES) {
    if (ctx.featureGates.enabled(rule.gate)) continue;
    if (before && rule.inUse(before)) continue;
    rule.drop(parts);
  }
}

/**
 * The validation options gates decide (upstream's GetValidationOptionsFromPodSpecAndMeta, for the
 * rules this server judges): on an update, what the stored pod already uses stays allowed.
 */
export function podValidationOptions(ctx: RequestContext, old?: KubeObject): ContainerValidationOptions {
  return { allowEnvFiles: ctx.featureGates.enabled('EnvFiles') || (old !== undefined && fileKeyRefInUse(partsOf(old))) };
}

/** The gates these rules consult (for tests and documentation). */
export const POD_FIELD_GATES: readonly string[] = [...new Set(RULES.map((r) => r.gate))];
