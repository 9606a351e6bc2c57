/** The v1 defaults of a Pod (upstream's SetDefaults_Pod, _PodSpec, _Container, _Volume and friends). */
import type { KubeObject } from '../api/types.ts';

type Obj = Record<string, any>;
const FILE_MODE = 0o644;

/** Always for `:latest` or an untagged image without digest, else IfNotPresent. */
export function defaultPullPolicy(image: string | undefined): string {
  const ref = image ?? '';
  if (ref.includes('@')) return 'IfNotPresent';
  const lastSlash = ref.lastIndexOf('/');
  const colon = ref.lastIndexOf(':');
  const tag = colon > lastSlash ? ref.slice(colon + 1) : '';
  return tag === '' || tag === 'latest' ? 'Always' : 'IfNotPresent';
}

function defaultProbe(p: Obj | undefined): void {
  if (!p) return;
  p.timeoutSeconds ||= 1;
  p.periodSeconds ||= 10;
  p.successThreshold ||= 1;
  p.failureThreshold ||= 3;
  if (p.httpGet) {
    p.httpGet.path ||= '/';
    p.httpGet.scheme ||= 'HTTP';
  }
}

function defaultEnv(env: Obj[] | undefined): void {
  for (const e of env ?? []) if (e.valueFrom?.fieldRef) e.valueFrom.fieldRef.apiVersion ||= 'v1';
}

function defaultContainer(c: Obj): void {
  c.imagePullPolicy ||= defaultPullPolicy(c.image);
  c.terminationMessagePath ||= '/dev/termination-log';
  c.terminationMessagePolicy ||= 'File';
  for (const p of c.ports ?? []) p.protocol ||= 'TCP';
  defaultEnv(c.env);
  defaultProbe(c.livenessProbe);
  defaultProbe(c.readinessProbe);
  defaultProbe(c.startupProbe);
  // Limits without requests request what they limit.
  const limits = c.resources?.limits as Record<string, string> | undefined;
  if (limits && Object.keys(limits).length) {
    c.resources.requests ??= {};
    for (const [k, v] of Object.entries(limits)) c.resources.requests[k] ??= v;
  }
}

function defaultVolume(v: Obj): void {
  const sources = Object.keys(v).filter((k) => k !== 'name');
  if (sources.length === 0) v.emptyDir = {};
  for (const kind of ['secret', 'configMap', 'downwardAPI', 'projected']) if (v[kind]) v[kind].defaultMode ??= FILE_MODE;
  for (const f of v.downwardAPI?.items ?? []) if (f.fieldRef) f.fieldRef.apiVersion ||= 'v1';
  for (const s of v.projected?.sources ?? []) {
    if (s.serviceAccountToken) s.serviceAccountToken.expirationSeconds ??= 3600;
    for (const f of s.downwardAPI?.items ?? []) if (f.fieldRef) f.fieldRef.apiVersion ||= 'v1';
  }
  if (v.hostPath) v.hostPath.type ??= '';
  if (v.iscsi) v.iscsi.iscsiInterface ||= 'default';
  if (v.rbd) {
    v.rbd.pool ||= 'rbd';
    v.rbd.user ||= 'admin';
    v.rbd.keyring ||= '/etc/ceph/keyring';
  }
  if (v.azureDisk) {
    v.azureDisk.cachingMode ??= 'ReadWrite';
    v.azureDisk.fsType ??= 'ext4';
    v.azureDisk.readOnly ??= false;
    v.azureDisk.kind ??= 'Shared';
  }
  if (v.scaleIO) {
    v.scaleIO.storageMode ||= 'ThinProvisioned';
    v.scaleIO.fsType ||= 'xfs';
  }
  if (v.image) v.image.pullPolicy ||= defaultPullPolicy(v.image.reference);
  if (v.ephemeral?.volumeClaimTemplate?.spec) v.ephemeral.volumeClaimTemplate.spec.volumeMode ??= 'Filesystem';
}

export function defaultPod(obj: KubeObject): void {
  const spec = ((obj.spec as Obj | undefined) ??= {}) as Obj;
  spec.dnsPolicy ||= 'ClusterFirst';
  spec.restartPolicy ||= 'Always';
  spec.securityContext ??= {};
  spec.terminationGracePeriodSeconds ??= 30;
  spec.schedulerName ||= 'default-scheduler';
  spec.enableServiceLinks ??= true;
  for (const c of [...(spec.initContainers ?? []), ...(spec.containers ?? []), ...(spec.ephemeralContainers ?? [])]) defaultContainer(c);
  for (const v of spec.volumes ?? []) defaultVolume(v);
  if (spec.hostNetwork) {
    // Host network pods listen on the node's ports.
    for (const c of [...(spec.initContainers ?? []), ...(spec.containers ?? [])]) for (const p of c.ports ?? []) p.hostPort ??= p.containerPort;
  }
}
