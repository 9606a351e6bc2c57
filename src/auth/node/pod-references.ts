/**
 * What a pod makes its node need: the secrets, config maps, PVCs and service account its spec names.
 * This is the slice of upstream's node graph that hangs off pods; a node may read these only while a
 * pod that names them is bound to it.
 */
type Obj = Record<string, any>;

export interface PodReferences {
  readonly secrets: Set<string>;
  readonly configMaps: Set<string>;
  readonly pvcs: Set<string>;
  readonly serviceAccount: string;
}

function fromEnv(containers: Obj[] | undefined, refs: { secrets: Set<string>; configMaps: Set<string> }): void {
  for (const c of containers ?? []) {
    for (const e of c.env ?? []) {
      const s = e.valueFrom?.secretKeyRef?.name;
      const m = e.valueFrom?.configMapKeyRef?.name;
      if (s) refs.secrets.add(s);
      if (m) refs.configMaps.add(m);
    }
    for (const f of c.envFrom ?? []) {
      if (f.secretRef?.name) refs.secrets.add(f.secretRef.name);
      if (f.configMapRef?.name) refs.configMaps.add(f.configMapRef.name);
    }
  }
}

/** Every object of these kinds the pod's spec names (volumes, projected sources, env, image pull secrets). */
export function podReferences(pod: Obj): PodReferences {
  const spec: Obj = pod.spec ?? {};
  const refs = { secrets: new Set<string>(), configMaps: new Set<string>(), pvcs: new Set<string>(), serviceAccount: String(spec.serviceAccountName ?? 'default') };
  for (const s of spec.imagePullSecrets ?? []) if (s?.name) refs.secrets.add(s.name);
  for (const v of spec.volumes ?? []) {
    if (v.secret?.secretName) refs.secrets.add(v.secret.secretName);
    if (v.configMap?.name) refs.configMaps.add(v.configMap.name);
    if (v.persistentVolumeClaim?.claimName) refs.pvcs.add(v.persistentVolumeClaim.claimName);
    for (const src of v.projected?.sources ?? []) {
      if (src.secret?.name) refs.secrets.add(src.secret.name);
      if (src.configMap?.name) refs.configMaps.add(src.configMap.name);
    }
    // Volume plugins that name a secret for their credentials.
    for (const plugin of Object.values(v) as Obj[]) {
      const name = plugin && typeof plugin === 'object' ? (plugin.secretRef?.name ?? plugin.nodePublishSecretRef?.name) : undefined;
      if (typeof name === 'string' && name) refs.secrets.add(name);
    }
  }
  fromEnv(spec.initContainers, refs);
  fromEnv(spec.containers, refs);
  fromEnv(spec.ephemeralContainers, refs);
  return refs;
}
