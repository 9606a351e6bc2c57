import { ApiError } from '../../api/errors.ts';
import { systemContext } from '../../api/request-context.ts';
import type { StoredKubeObject } from '../../api/types.ts';
import type { Informer } from '../../registry/informer.ts';
import type { ResourceStore } from '../../registry/resource-store.ts';
import { generateName } from '../../registry/system-fields.ts';
import type { AdmissionAttributes } from '../attributes.ts';
import type { AdmissionDeps } from '../index.ts';
import { handlesOperations, type AdmissionPlugin } from '../plugin.ts';
import { admissionForbidden, isMirrorPod, namespaceIndexedInformer, plainStore, servedKind, sleep, type Obj } from './common.ts';

export const DEFAULT_SERVICE_ACCOUNT = 'default';
export const TOKEN_VOLUME_PREFIX = 'kube-api-access-';
export const TOKEN_MOUNT_PATH = '/var/run/secrets/kubernetes.io/serviceaccount';
const ENFORCE_MOUNTABLE_SECRETS = 'kubernetes.io/enforce-mountable-secrets';
/** The bound token's lifetime kube-apiserver asks for by default (an hour and 7 seconds, so that its use is noticed as "stale" only when it is). */
const TOKEN_EXPIRATION_SECONDS = 3607;
/** How many times a missing `default` service account is looked up (the controller is about to make it), and how long apart. */
const DEFAULT_ATTEMPTS = 10;

/** The projected volume every automounting pod gets: the token, the cluster CA and the namespace. */
export function tokenVolumeSource(): Obj {
  return {
    sources: [
      { serviceAccountToken: { expirationSeconds: TOKEN_EXPIRATION_SECONDS, path: 'token' } },
      { configMap: { name: 'kube-root-ca.crt', items: [{ key: 'ca.crt', path: 'ca.crt' }] } },
      { downwardAPI: { items: [{ path: 'namespace', fieldRef: { apiVersion: 'v1', fieldPath: 'metadata.namespace' } }] } },
    ],
    defaultMode: 0o644,
  };
}

const containersOf = (spec: Obj, which: 'containers' | 'initContainers' | 'ephemeralContainers'): Obj[] => (Array.isArray(spec[which]) ? spec[which] : []);

/** Every Secret a pod names (pull secrets, env of every container kind, volumes), as podutil.VisitPodSecretNames. */
export function podSecretNames(spec: Obj): string[] {
  const names: string[] = [];
  const add = (n: unknown) => {
    if (typeof n === 'string' && n) names.push(n);
  };
  for (const s of spec.imagePullSecrets ?? []) add(s?.name);
  for (const which of ['initContainers', 'containers', 'ephemeralContainers'] as const) {
    for (const c of containersOf(spec, which)) {
      for (const e of c.envFrom ?? []) add(e?.secretRef?.name);
      for (const e of c.env ?? []) add(e?.valueFrom?.secretKeyRef?.name);
    }
  }
  for (const v of spec.volumes ?? []) {
    if (!v) continue;
    add(v.azureFile?.secretName);
    add(v.cephfs?.secretRef?.name);
    add(v.cinder?.secretRef?.name);
    add(v.flexVolume?.secretRef?.name);
    for (const p of v.projected?.sources ?? []) add(p?.secret?.name);
    add(v.rbd?.secretRef?.name);
    add(v.secret?.secretName);
    add(v.scaleIO?.secretRef?.name);
    add(v.iscsi?.secretRef?.name);
    add(v.storageos?.secretRef?.name);
    add(v.csi?.nodePublishSecretRef?.name);
  }
  return names;
}

/** Go's strconv.ParseBool, false for anything it refuses. */
function parseBool(value: string): boolean {
  return ['1', 't', 'T', 'TRUE', 'true', 'True'].includes(value);
}

/**
 * The ServiceAccount admission plugin (mutating and validating), as upstream's
 * plugin/pkg/admission/serviceaccount:
 * - a pod created without `spec.serviceAccountName` gets `default`; a pod whose service account does
 *   not exist is refused (`error looking up service account <ns>/<name>: serviceaccount "<name>" not
 *   found`). The informer answers first; when it does not know the account the store is asked,
 *   up to ten times 100–200 ms apart for `default` (the service account controller is about to
 *   create it in a new namespace), once for any other;
 * - unless the pod or else its service account sets automountServiceAccountToken=false, a projected
 *   `kube-api-access-<random>` volume (token, kube-root-ca.crt, namespace) is added and mounted
 *   read-only at /var/run/secrets/kubernetes.io/serviceaccount in every init container and container
 *   that mounts nothing there; the service account's imagePullSecrets are copied to a pod without any;
 * - mirror pods are not changed, and may not name a service account, a secret or a token projection;
 * - a service account annotated `kubernetes.io/enforce-mountable-secrets: "true"` limits the pod's
 *   secrets (volumes, env, envFrom, pull secrets) to those it lists, for new pods and for the
 *   ephemeral containers added through `pods/ephemeralcontainers`.
 */
export class ServiceAccountAdmission implements AdmissionPlugin {
  readonly name = 'ServiceAccount';
  readonly handles = handlesOperations('CREATE', 'UPDATE');
  readonly #store: ResourceStore;
  readonly #informer: Informer;
  readonly #retryMs: () => number;

  constructor(store: ResourceStore, informer: Informer, options: { retryMs?: () => number } = {}) {
    this.#store = store;
    this.#informer = informer;
    this.#retryMs = options.retryMs ?? (() => 100 + Math.floor(Math.random() * 100));
  }

  static build(deps: AdmissionDeps): { plugin: ServiceAccountAdmission; start: () => Promise<void>; stop: () => void } {
    const store = plainStore(deps, servedKind(deps, '', 'ServiceAccount', 'ServiceAccount'));
    const informer = namespaceIndexedInformer(deps, store);
    return { plugin: new ServiceAccountAdmission(store, informer), start: () => informer.start(), stop: () => informer.stop() };
  }

  async admit(a: AdmissionAttributes): Promise<void> {
    if (ignored(a) || a.operation !== 'CREATE') return;
    const pod = a.object as Obj;
    if (isMirrorPod(a.object)) return this.validate(a);
    const spec = (pod.spec ??= {}) as Obj;
    if (!spec.serviceAccountName) spec.serviceAccountName = DEFAULT_SERVICE_ACCOUNT;
    const account = await this.#lookUp(a, spec.serviceAccountName);
    if (shouldAutomount(account, spec)) mountToken(spec);
    if (!Array.isArray(spec.imagePullSecrets) || spec.imagePullSecrets.length === 0) {
      const pulls = ((account as Obj).imagePullSecrets ?? []) as Obj[];
      if (pulls.length > 0) spec.imagePullSecrets = pulls.map((s) => ({ name: s.name }));
    }
    return this.validate(a);
  }

  async validate(a: AdmissionAttributes): Promise<void> {
    if (ignored(a)) return;
    const pod = a.object as Obj;
    const spec = (pod.spec ?? {}) as Obj;
    if (a.operation === 'UPDATE' && a.subresource === 'ephemeralcontainers') return this.#ephemeral(a, spec);
    if (a.operation !== 'CREATE') return;
    if (isMirrorPod(a.object)) {
      if (spec.serviceAccountName) throw admissionForbidden(a, 'a mirror pod may not reference service accounts');
      if (podSecretNames(spec).length > 0) throw admissionForbidden(a, 'a mirror pod may not reference secrets');
      for (const v of spec.volumes ?? []) {
        for (const source of v?.projected?.sources ?? []) {
          if (source?.serviceAccountToken) throw admissionForbidden(a, 'a mirror pod may not use ServiceAccountToken volume projections');
        }
      }
      return;
    }
    if (!spec.serviceAccountName) throw admissionForbidden(a, `no service account specified for pod ${a.namespace}/${pod.metadata?.name ?? ''}`);
    const account = await this.#lookUp(a, spec.serviceAccountName);
    if (!enforcesMountableSecrets(account)) return;
    const why = limitSecretReferences(account, spec);
    if (why) throw admissionForbidden(a, why);
  }

  async #ephemeral(a: AdmissionAttributes, spec: Obj): Promise<void> {
    if (!spec.serviceAccountName) throw admissionForbidden(a, `no service account specified for pod ${a.namespace}/${(a.object as Obj).metadata?.name ?? ''}`);
    const account = await this.#lookUp(a, spec.serviceAccountName);
    if (!enforcesMountableSecrets(account)) return;
    const mountable = new Set(((account as Obj).secrets ?? []).map((s: Obj) => s?.name));
    for (const c of containersOf(spec, 'ephemeralContainers')) {
      for (const e of c.env ?? []) {
        const ref = e?.valueFrom?.secretKeyRef?.name;
        if (ref !== undefined && !mountable.has(ref)) {
          throw admissionForbidden(a, `ephemeral container ${c.name} with envVar ${e.name} referencing secret.secretName="${ref}" is not allowed because service account ${account.metadata.name} does not reference that secret`);
        }
      }
      for (const e of c.envFrom ?? []) {
        const ref = e?.secretRef?.name;
        if (ref !== undefined && !mountable.has(ref)) {
          throw admissionForbidden(a, `ephemeral container ${c.name} with envFrom referencing secret.secretName="${ref}" is not allowed because service account ${account.metadata.name} does not reference that secret`);
        }
      }
    }
  }

  /** The service account, from the informer or else the store (with upstream's retries); 403 when there is none. */
  async #lookUp(a: AdmissionAttributes, name: string): Promise<StoredKubeObject> {
    const cached = this.#informer.get(a.namespace, name);
    if (cached) return cached;
    const attempts = name === DEFAULT_SERVICE_ACCOUNT ? DEFAULT_ATTEMPTS : 1;
    const interval = this.#retryMs();
    for (let i = 0; i < attempts; i++) {
      if (i > 0) {
        await sleep(interval);
        const seen = this.#informer.get(a.namespace, name);
        if (seen) return seen;
      }
      try {
        return (await this.#store.get(systemContext(), a.namespace, name)).object;
      } catch (err) {
        if (err instanceof ApiError && err.code === 404) continue;
        const why = err instanceof ApiError ? err.message : 'an internal error occurred';
        throw admissionForbidden(a, `error looking up service account ${a.namespace}/${name}: ${why}`);
      }
    }
    throw admissionForbidden(a, `error looking up service account ${a.namespace}/${name}: serviceaccount "${name}" not found`);
  }
}

/** Pods only, their main resource or ephemeralcontainers, with an object. */
function ignored(a: AdmissionAttributes): boolean {
  if (a.resource.group !== '' || a.resource.resource !== 'pods') return true;
  if (a.subresource !== '' && a.subresource !== 'ephemeralcontainers') return true;
  return !a.object;
}

/** The pod's automountServiceAccountToken wins, then the service account's; default true. */
function shouldAutomount(account: StoredKubeObject, spec: Obj): boolean {
  if (typeof spec.automountServiceAccountToken === 'boolean') return spec.automountServiceAccountToken;
  const own = (account as Obj).automountServiceAccountToken;
  if (typeof own === 'boolean') return own;
  return true;
}

function enforcesMountableSecrets(account: StoredKubeObject): boolean {
  const value = account.metadata.annotations?.[ENFORCE_MOUNTABLE_SECRETS];
  return value !== undefined && parseBool(value);
}

/** The first secret reference the service account does not allow, as upstream words it; undefined when all are allowed. */
function limitSecretReferences(account: StoredKubeObject, spec: Obj): string | undefined {
  const sa = account.metadata.name;
  const mountable = new Set(((account as Obj).secrets ?? []).map((s: Obj) => s?.name));
  for (const v of spec.volumes ?? []) {
    const name = v?.secret?.secretName;
    if (v?.secret && !mountable.has(name ?? '')) return `volume with secret.secretName="${name ?? ''}" is not allowed because service account ${sa} does not reference that secret`;
  }
  for (const [which, label] of [['initContainers', 'init container'], ['containers', 'container']] as const) {
    for (const c of containersOf(spec, which)) {
      for (const e of c.env ?? []) {
        const ref = e?.valueFrom?.secretKeyRef;
        if (ref && !mountable.has(ref.name ?? '')) return `${label} ${c.name} with envVar ${e.name} referencing secret.secretName="${ref.name ?? ''}" is not allowed because service account ${sa} does not reference that secret`;
      }
      for (const e of c.envFrom ?? []) {
        const ref = e?.secretRef;
        if (ref && !mountable.has(ref.name ?? '')) return `${label} ${c.name} with envFrom referencing secret.secretName="${ref.name ?? ''}" is not allowed because service account ${sa} does not reference that secret`;
      }
    }
  }
  const pulls = new Set(((account as Obj).imagePullSecrets ?? []).map((s: Obj) => s?.name));
  const own = (spec.imagePullSecrets ?? []) as Obj[];
  for (let i = 0; i < own.length; i++) {
    if (!pulls.has(own[i]?.name)) return `imagePullSecrets[${i}].name="${own[i]?.name ?? ''}" is not allowed because service account ${sa} does not reference that imagePullSecret`;
  }
  return undefined;
}

/** Adds the token volume (or reuses a kube-api-access-* one) and mounts it where nothing is mounted at the token path. */
function mountToken(spec: Obj): void {
  const volumes = (Array.isArray(spec.volumes) ? spec.volumes : []) as Obj[];
  const existing = volumes.find((v) => typeof v?.name === 'string' && v.name.startsWith(TOKEN_VOLUME_PREFIX));
  const volumeName: string = existing?.name ?? generateName(TOKEN_VOLUME_PREFIX);
  let needed = false;
  for (const which of ['initContainers', 'containers'] as const) {
    for (const c of containersOf(spec, which)) {
      const mounts = (Array.isArray(c.volumeMounts) ? c.volumeMounts : []) as Obj[];
      if (mounts.some((m) => m?.mountPath === TOKEN_MOUNT_PATH)) continue;
      c.volumeMounts = [...mounts, { name: volumeName, readOnly: true, mountPath: TOKEN_MOUNT_PATH }];
      needed = true;
    }
  }
  if (!existing && needed) spec.volumes = [...volumes, { name: volumeName, projected: tokenVolumeSource() }];
}
