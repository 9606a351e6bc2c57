/**
 * What a pod makes its node need, read from the pod as upstream's visitors read it
 * (pkg/api/v1/pod VisitPodSecretNames / VisitPodConfigmapNames, ephemeral volume claim names and
 * DRA's claim names): these become the edges into the pod's vertex of the node graph.
 */
type Obj = Record<string, any>;

/** The annotation a kubelet puts on the API copy of a static pod. */
export const MIRROR_POD_ANNOTATION = 'kubernetes.io/config.mirror';

export interface PodReferences {
  /** spec.serviceAccountName, or '' when unset (no default is assumed; admission sets it upstream). */
  readonly serviceAccount: string;
  readonly secrets: ReadonlySet<string>;
  readonly configMaps: ReadonlySet<string>;
  /** Named claims and the claims ephemeral volumes get (`<pod>-<volume>`). */
  readonly pvcs: ReadonlySet<string>;
  /** DRA claims: named ones, template ones once the status names them, and the extended-resource claim. */
  readonly resourceClaims: ReadonlySet<string>;
}

const containersOf = (spec: Obj): Obj[] => [...(spec.initContainers ?? []), ...(spec.containers ?? []), ...(spec.ephemeralContainers ?? [])];

/** The one source a volume names its secret through (the first volume type present, as upstream's switch). */
function volumeSecret(v: Obj): string | undefined {
  if (v.azureFile) return v.azureFile.secretName;
  if (v.cephfs) return v.cephfs.secretRef?.name;
  if (v.cinder) return v.cinder.secretRef?.name;
  if (v.flexVolume) return v.flexVolume.secretRef?.name;
  if (v.projected) return undefined; // sources are visited separately
  if (v.rbd) return v.rbd.secretRef?.name;
  if (v.secret) return v.secret.secretName;
  if (v.scaleIO) return v.scaleIO.secretRef?.name;
  if (v.iscsi) return v.iscsi.secretRef?.name;
  if (v.storageos) return v.storageos.secretRef?.name;
  if (v.csi) return v.csi.nodePublishSecretRef?.name;
  return undefined;
}

/**
 * The claim a pod's resource claim entry stands for: its resourceClaimName, or for a template the
 * name the status records (none yet, or null when no claim was needed: undefined either way).
 */
function resourceClaimName(pod: Obj, entry: Obj): string | undefined {
  if (entry.resourceClaimName) return String(entry.resourceClaimName);
  if (!entry.resourceClaimTemplateName) return undefined;
  const status = (pod.status?.resourceClaimStatuses ?? []).find((s: Obj) => s?.name === entry.name);
  return status?.resourceClaimName ? String(status.resourceClaimName) : undefined;
}

/** Everything the pod names that its node may read (empty names skipped). */
export function podReferences(pod: Obj): PodReferences {
  const spec: Obj = pod.spec ?? {};
  const secrets = new Set<string>();
  const configMaps = new Set<string>();
  const pvcs = new Set<string>();
  const resourceClaims = new Set<string>();
  const add = (set: Set<string>, name: unknown) => {
    if (typeof name === 'string' && name !== '') set.add(name);
  };

  for (const ref of spec.imagePullSecrets ?? []) add(secrets, ref?.name);
  for (const c of containersOf(spec)) {
    for (const from of c.envFrom ?? []) {
      add(secrets, from.secretRef?.name);
      add(configMaps, from.configMapRef?.name);
    }
    for (const env of c.env ?? []) {
      add(secrets, env.valueFrom?.secretKeyRef?.name);
      add(configMaps, env.valueFrom?.configMapKeyRef?.name);
    }
  }
  for (const v of spec.volumes ?? []) {
    add(secrets, volumeSecret(v));
    if (v.projected) {
      for (const source of v.projected.sources ?? []) {
        add(secrets, source?.secret?.name);
        add(configMaps, source?.configMap?.name);
      }
    } else if (v.configMap) {
      add(configMaps, v.configMap.name);
    }
    if (v.persistentVolumeClaim) add(pvcs, v.persistentVolumeClaim.claimName);
    else if (v.ephemeral) add(pvcs, `${pod.metadata?.name}-${v.name}`);
  }
  for (const entry of spec.resourceClaims ?? []) add(resourceClaims, resourceClaimName(pod, entry));
  add(resourceClaims, pod.status?.extendedResourceClaimStatus?.resourceClaimName);

  return { serviceAccount: typeof spec.serviceAccountName === 'string' ? spec.serviceAccountName : '', secrets, configMaps, pvcs, resourceClaims };
}

/** Whether an update can change what the pod references (upstream's populator skips the others). */
export function podReferencesMayDiffer(pod: Obj, old: Obj): boolean {
  if ((pod.spec?.nodeName ?? '') !== (old.spec?.nodeName ?? '')) return true;
  if ((pod.metadata?.uid ?? '') !== (old.metadata?.uid ?? '')) return true;
  // Ephemeral containers are the one part of the spec that grows after binding.
  if ((pod.spec?.ephemeralContainers?.length ?? 0) > (old.spec?.ephemeralContainers?.length ?? 0)) return true;
  const claimStatuses = (p: Obj) => JSON.stringify((p.status?.resourceClaimStatuses ?? []).map((s: Obj) => [s?.name ?? '', s?.resourceClaimName ?? null]));
  if (claimStatuses(pod) !== claimStatuses(old)) return true;
  const extended = (p: Obj) => JSON.stringify(p.status?.extendedResourceClaimStatus ?? null);
  return extended(pod) !== extended(old);
}
