/**
 * The Pod Security Standards checks (k8s.io/pod-security-admission/policy as of 1.34): each has an
 * id, the level it belongs to, and versions from which a given form of the check applies. A check
 * judges a pod's metadata and spec and says why it is forbidden, upstream's words.
 */
import type { Obj } from '../common.ts';

export type Level = 'privileged' | 'baseline' | 'restricted';

export interface CheckResult {
  readonly allowed: boolean;
  readonly reason?: string;
  readonly detail?: string;
}

export type CheckFn = (meta: Obj, spec: Obj) => CheckResult;

export interface VersionedCheck {
  /** The minor version (of 1.x) from which this form applies. */
  readonly minimum: number;
  readonly check: CheckFn;
  /** Baseline checks this restricted one replaces. */
  readonly overrides?: readonly string[];
}

export interface Check {
  readonly id: string;
  readonly level: 'baseline' | 'restricted';
  readonly versions: readonly VersionedCheck[];
}

const ALLOWED: CheckResult = { allowed: true };

/** "a", "b" (Go's joinQuote). */
function joinQuote(items: readonly string[]): string {
  return items.length === 0 ? '' : `"${items.join('", "')}"`;
}

function pluralize(singular: string, plural: string, count: number): string {
  return count === 1 ? singular : plural;
}

/** A sorted list without repeats (sets.NewString(...).List()). */
function sortedSet(values: Iterable<string>): string[] {
  return [...new Set(values)].sort();
}

/** Init containers, containers, then ephemeral containers. */
function visitContainers(spec: Obj, visit: (c: Obj) => void): void {
  for (const which of ['initContainers', 'containers', 'ephemeralContainers']) {
    for (const c of (Array.isArray(spec[which]) ? spec[which] : []) as Obj[]) if (c) visit(c);
  }
}

const isWindows = (spec: Obj) => spec.os?.name === 'windows';
const sc = (c: Obj): Obj | undefined => c.securityContext ?? undefined;
const podSc = (spec: Obj): Obj | undefined => spec.securityContext ?? undefined;
const containersPhrase = (names: readonly string[]) => `${pluralize('container', 'containers', names.length)} ${joinQuote(names)}`;

// ---- baseline ----

function appArmorProfile(meta: Obj, spec: Obj): CheckResult {
  const allowedType = (t: unknown) => t === 'RuntimeDefault' || t === 'Localhost';
  const badSetters: string[] = [];
  const badValues = new Set<string>();
  const podProfile = podSc(spec)?.appArmorProfile;
  if (podProfile && !allowedType(podProfile.type)) {
    badSetters.push('pod');
    badValues.add(String(podProfile.type ?? ''));
  }
  const badContainers: string[] = [];
  visitContainers(spec, (c) => {
    const p = sc(c)?.appArmorProfile;
    if (p && !allowedType(p.type)) {
      badContainers.push(c.name);
      badValues.add(String(p.type ?? ''));
    }
  });
  if (badContainers.length > 0) badSetters.push(containersPhrase(badContainers));
  const forbiddenAnnotations: string[] = [];
  for (const [k, v] of Object.entries((meta.annotations ?? {}) as Record<string, string>)) {
    if (!k.startsWith('container.apparmor.security.beta.kubernetes.io/')) continue;
    if (v === '' || v === 'runtime/default' || v.startsWith('localhost/')) continue;
    forbiddenAnnotations.push(`${k}=${JSON.stringify(v)}`);
  }
  const badValueList = sortedSet(badValues);
  if (forbiddenAnnotations.length > 0) {
    badValueList.push(...forbiddenAnnotations.sort());
    badSetters.push(pluralize('annotation', 'annotations', forbiddenAnnotations.length));
  }
  if (badSetters.length === 0) return ALLOWED;
  return {
    allowed: false,
    reason: pluralize('forbidden AppArmor profile', 'forbidden AppArmor profiles', badValueList.length),
    detail: `${badSetters.join(' and ')} must not set AppArmor profile type to ${joinQuote(badValueList)}`,
  };
}

const CAPABILITIES_ALLOWED = new Set(['AUDIT_WRITE', 'CHOWN', 'DAC_OVERRIDE', 'FOWNER', 'FSETID', 'KILL', 'MKNOD', 'NET_BIND_SERVICE', 'SETFCAP', 'SETGID', 'SETPCAP', 'SETUID', 'SYS_CHROOT']);

function capabilitiesBaseline(_meta: Obj, spec: Obj): CheckResult {
  const bad: string[] = [];
  const nonDefault = new Set<string>();
  visitContainers(spec, (c) => {
    const caps = sc(c)?.capabilities;
    if (!caps) return;
    let valid = true;
    for (const cap of caps.add ?? []) {
      if (!CAPABILITIES_ALLOWED.has(cap)) {
        valid = false;
        nonDefault.add(cap);
      }
    }
    if (!valid) bad.push(c.name);
  });
  if (bad.length === 0) return ALLOWED;
  return { allowed: false, reason: 'non-default capabilities', detail: `${containersPhrase(bad)} must not include ${joinQuote(sortedSet(nonDefault))} in securityContext.capabilities.add` };
}

function hostNamespaces(_meta: Obj, spec: Obj): CheckResult {
  const found: string[] = [];
  if (spec.hostNetwork === true) found.push('hostNetwork=true');
  if (spec.hostPID === true) found.push('hostPID=true');
  if (spec.hostIPC === true) found.push('hostIPC=true');
  if (found.length === 0) return ALLOWED;
  return { allowed: false, reason: 'host namespaces', detail: found.join(', ') };
}

function hostPathVolumes(_meta: Obj, spec: Obj): CheckResult {
  const names = ((spec.volumes ?? []) as Obj[]).filter((v) => v?.hostPath != null).map((v) => v.name);
  if (names.length === 0) return ALLOWED;
  return { allowed: false, reason: 'hostPath volumes', detail: `${pluralize('volume', 'volumes', names.length)} ${joinQuote(names)}` };
}

function hostPorts(_meta: Obj, spec: Obj): CheckResult {
  const bad: string[] = [];
  const ports = new Set<string>();
  visitContainers(spec, (c) => {
    let valid = true;
    for (const p of c.ports ?? []) {
      if (p?.hostPort) {
        valid = false;
        ports.add(String(p.hostPort));
      }
    }
    if (!valid) bad.push(c.name);
  });
  if (bad.length === 0) return ALLOWED;
  return {
    allowed: false,
    reason: 'hostPort',
    detail: `${containersPhrase(bad)} ${pluralize('uses', 'use', bad.length)} ${pluralize('hostPort', 'hostPorts', ports.size)} ${sortedSet(ports).join(', ')}`,
  };
}

function forbiddenHosts(handler: Obj | undefined): string[] {
  if (!handler) return [];
  const out: string[] = [];
  if (handler.httpGet?.host) out.push(handler.httpGet.host);
  if (handler.tcpSocket?.host) out.push(handler.tcpSocket.host);
  return out;
}

function hostProbesAndHostLifecycle(_meta: Obj, spec: Obj): CheckResult {
  const bad = new Set<string>();
  const hosts = new Set<string>();
  visitContainers(spec, (c) => {
    for (const handler of [c.livenessProbe, c.readinessProbe, c.startupProbe, c.lifecycle?.postStart, c.lifecycle?.preStop]) {
      const found = forbiddenHosts(handler);
      if (found.length === 0) continue;
      bad.add(c.name);
      for (const h of found) hosts.add(h);
    }
  });
  if (bad.size === 0) return ALLOWED;
  return {
    allowed: false,
    reason: 'probe or lifecycle host',
    detail: `${pluralize('container', 'containers', bad.size)} ${joinQuote(sortedSet(bad))} ${pluralize('uses', 'use', bad.size)} ${pluralize('probe or lifecycle host', 'probe or lifecycle hosts', hosts.size)} ${joinQuote(sortedSet(hosts))}`,
  };
}

function privileged(_meta: Obj, spec: Obj): CheckResult {
  const bad: string[] = [];
  visitContainers(spec, (c) => {
    if (sc(c)?.privileged === true) bad.push(c.name);
  });
  if (bad.length === 0) return ALLOWED;
  return { allowed: false, reason: 'privileged', detail: `${containersPhrase(bad)} must not set securityContext.privileged=true` };
}

function procMount(_meta: Obj, spec: Obj): CheckResult {
  const bad: string[] = [];
  const types = new Set<string>();
  visitContainers(spec, (c) => {
    const m = sc(c)?.procMount;
    if (m == null || m === 'Default') return;
    bad.push(c.name);
    types.add(String(m));
  });
  if (bad.length === 0) return ALLOWED;
  return { allowed: false, reason: 'procMount', detail: `${containersPhrase(bad)} must not set securityContext.procMount to ${joinQuote(sortedSet(types))}` };
}

function seLinuxOptions(allowedTypes: ReadonlySet<string>): CheckFn {
  return (_meta, spec) => {
    const badSetters: string[] = [];
    const badTypes = new Set<string>();
    let setUser = false;
    let setRole = false;
    const valid = (o: Obj) => {
      let ok = true;
      const type = o.type ?? '';
      if (!allowedTypes.has(type)) {
        ok = false;
        badTypes.add(type);
      }
      if (o.user) {
        ok = false;
        setUser = true;
      }
      if (o.role) {
        ok = false;
        setRole = true;
      }
      return ok;
    };
    const podOpts = podSc(spec)?.seLinuxOptions;
    if (podOpts && !valid(podOpts)) badSetters.push('pod');
    const bad: string[] = [];
    visitContainers(spec, (c) => {
      const o = sc(c)?.seLinuxOptions;
      if (o && !valid(o)) bad.push(c.name);
    });
    if (bad.length > 0) badSetters.push(containersPhrase(bad));
    if (badSetters.length === 0) return ALLOWED;
    const data: string[] = [];
    if (badTypes.size > 0) data.push(`${pluralize('type', 'types', badTypes.size)} ${joinQuote(sortedSet(badTypes))}`);
    if (setUser) data.push('user may not be set');
    if (setRole) data.push('role may not be set');
    return { allowed: false, reason: 'seLinuxOptions', detail: `${badSetters.join(' and ')} set forbidden securityContext.seLinuxOptions: ${data.join('; ')}` };
  };
}

const SELINUX_TYPES_1_0 = new Set(['', 'container_t', 'container_init_t', 'container_kvm_t']);
const SELINUX_TYPES_1_31 = new Set([...SELINUX_TYPES_1_0, 'container_engine_t']);

const SECCOMP_POD_ANNOTATION = 'seccomp.security.alpha.kubernetes.io/pod';
const SECCOMP_CONTAINER_ANNOTATION_PREFIX = 'container.seccomp.security.alpha.kubernetes.io/';
const validSeccomp = (t: unknown) => t === 'Localhost' || t === 'RuntimeDefault';

function seccompBaselineAnnotations(meta: Obj, spec: Obj): CheckResult {
  const annotations = (meta.annotations ?? {}) as Record<string, string>;
  const validValue = (v: string) => v === 'runtime/default' || v === 'docker/default' || v.startsWith('localhost/');
  const forbidden = new Set<string>();
  if (Object.hasOwn(annotations, SECCOMP_POD_ANNOTATION) && !validValue(annotations[SECCOMP_POD_ANNOTATION]!)) {
    forbidden.add(`${SECCOMP_POD_ANNOTATION}=${JSON.stringify(annotations[SECCOMP_POD_ANNOTATION])}`);
  }
  visitContainers(spec, (c) => {
    const key = SECCOMP_CONTAINER_ANNOTATION_PREFIX + c.name;
    if (Object.hasOwn(annotations, key) && !validValue(annotations[key]!)) forbidden.add(`${key}=${JSON.stringify(annotations[key])}`);
  });
  if (forbidden.size === 0) return ALLOWED;
  return { allowed: false, reason: 'seccompProfile', detail: `forbidden ${pluralize('annotation', 'annotations', forbidden.size)} ${sortedSet(forbidden).join(', ')}` };
}

function seccompBaseline(_meta: Obj, spec: Obj): CheckResult {
  const badSetters: string[] = [];
  const badValues = new Set<string>();
  const podProfile = podSc(spec)?.seccompProfile;
  if (podProfile && !validSeccomp(podProfile.type)) {
    badSetters.push('pod');
    badValues.add(String(podProfile.type ?? ''));
  }
  const bad: string[] = [];
  visitContainers(spec, (c) => {
    const p = sc(c)?.seccompProfile;
    if (p && !validSeccomp(p.type)) {
      bad.push(c.name);
      badValues.add(String(p.type ?? ''));
    }
  });
  if (bad.length > 0) badSetters.push(containersPhrase(bad));
  if (badSetters.length === 0) return ALLOWED;
  return { allowed: false, reason: 'seccompProfile', detail: `${badSetters.join(' and ')} must not set securityContext.seccompProfile.type to ${joinQuote(sortedSet(badValues))}` };
}

function sysctls(allowed: ReadonlySet<string>): CheckFn {
  return (_meta, spec) => {
    const forbidden = ((podSc(spec)?.sysctls ?? []) as Obj[]).map((s) => String(s?.name ?? '')).filter((n) => !allowed.has(n));
    if (forbidden.length === 0) return ALLOWED;
    return { allowed: false, reason: 'forbidden sysctls', detail: forbidden.join(', ') };
  };
}

const SYSCTLS_1_0 = new Set(['kernel.shm_rmid_forced', 'net.ipv4.ip_local_port_range', 'net.ipv4.tcp_syncookies', 'net.ipv4.ping_group_range', 'net.ipv4.ip_unprivileged_port_start']);
const SYSCTLS_1_27 = new Set([...SYSCTLS_1_0, 'net.ipv4.ip_local_reserved_ports']);
const SYSCTLS_1_29 = new Set([...SYSCTLS_1_27, 'net.ipv4.tcp_keepalive_time', 'net.ipv4.tcp_fin_timeout', 'net.ipv4.tcp_keepalive_intvl', 'net.ipv4.tcp_keepalive_probes']);
const SYSCTLS_1_32 = new Set([...SYSCTLS_1_29, 'net.ipv4.tcp_rmem', 'net.ipv4.tcp_wmem']);

function windowsHostProcess(_meta: Obj, spec: Obj): CheckResult {
  const bad: string[] = [];
  visitContainers(spec, (c) => {
    if (sc(c)?.windowsOptions?.hostProcess === true) bad.push(c.name);
  });
  const setters: string[] = [];
  if (podSc(spec)?.windowsOptions?.hostProcess === true) setters.push('pod');
  if (bad.length > 0) setters.push(containersPhrase(bad));
  if (setters.length === 0) return ALLOWED;
  return { allowed: false, reason: 'hostProcess', detail: `${setters.join(' and ')} must not set securityContext.windowsOptions.hostProcess=true` };
}

// ---- restricted ----

function allowPrivilegeEscalation(_meta: Obj, spec: Obj): CheckResult {
  const bad: string[] = [];
  visitContainers(spec, (c) => {
    const v = sc(c)?.allowPrivilegeEscalation;
    if (v == null || v === true) bad.push(c.name);
  });
  if (bad.length === 0) return ALLOWED;
  return { allowed: false, reason: 'allowPrivilegeEscalation != false', detail: `${containersPhrase(bad)} must set securityContext.allowPrivilegeEscalation=false` };
}

const notOnWindows =
  (check: CheckFn): CheckFn =>
  (meta, spec) =>
    isWindows(spec) ? ALLOWED : check(meta, spec);

function capabilitiesRestricted(_meta: Obj, spec: Obj): CheckResult {
  const missingDropAll: string[] = [];
  const addingForbidden: string[] = [];
  const forbidden = new Set<string>();
  visitContainers(spec, (c) => {
    const caps = sc(c)?.capabilities;
    if (!caps) {
      missingDropAll.push(c.name);
      return;
    }
    if (!((caps.drop ?? []) as string[]).includes('ALL')) missingDropAll.push(c.name);
    let adds = false;
    for (const cap of (caps.add ?? []) as string[]) {
      if (cap !== 'NET_BIND_SERVICE') {
        adds = true;
        forbidden.add(cap);
      }
    }
    if (adds) addingForbidden.push(c.name);
  });
  const details: string[] = [];
  if (missingDropAll.length > 0) details.push(`${containersPhrase(missingDropAll)} must set securityContext.capabilities.drop=["ALL"]`);
  if (addingForbidden.length > 0) details.push(`${containersPhrase(addingForbidden)} must not include ${joinQuote(sortedSet(forbidden))} in securityContext.capabilities.add`);
  if (details.length === 0) return ALLOWED;
  return { allowed: false, reason: 'unrestricted capabilities', detail: details.join('; ') };
}

const ALLOWED_VOLUME_SOURCES = ['configMap', 'csi', 'downwardAPI', 'emptyDir', 'ephemeral', 'image', 'persistentVolumeClaim', 'projected', 'secret'];
/** The restricted volume types, in the order upstream looks for them. */
const RESTRICTED_VOLUME_SOURCES = [
  'hostPath',
  'gcePersistentDisk',
  'awsElasticBlockStore',
  'gitRepo',
  'nfs',
  'iscsi',
  'glusterfs',
  'rbd',
  'flexVolume',
  'cinder',
  'cephfs',
  'flocker',
  'fc',
  'azureFile',
  'vsphereVolume',
  'quobyte',
  'azureDisk',
  'photonPersistentDisk',
  'portworxVolume',
  'scaleIO',
  'storageos',
];

function restrictedVolumes(_meta: Obj, spec: Obj): CheckResult {
  const bad: string[] = [];
  const types = new Set<string>();
  for (const v of (spec.volumes ?? []) as Obj[]) {
    if (!v || ALLOWED_VOLUME_SOURCES.some((s) => v[s] != null)) continue;
    bad.push(v.name);
    types.add(RESTRICTED_VOLUME_SOURCES.find((s) => v[s] != null) ?? 'unknown');
  }
  if (bad.length === 0) return ALLOWED;
  return {
    allowed: false,
    reason: 'restricted volume types',
    detail: `${pluralize('volume', 'volumes', bad.length)} ${joinQuote(bad)} ${pluralize('uses', 'use', bad.length)} ${pluralize('restricted volume type', 'restricted volume types', types.size)} ${joinQuote(sortedSet(types))}`,
  };
}

function runAsNonRoot(_meta: Obj, spec: Obj): CheckResult {
  const badSetters: string[] = [];
  let podNonRoot = false;
  const podValue = podSc(spec)?.runAsNonRoot;
  if (podValue != null) {
    if (podValue !== true) badSetters.push('pod');
    else podNonRoot = true;
  }
  const explicit: string[] = [];
  const implicit: string[] = [];
  visitContainers(spec, (c) => {
    const v = sc(c)?.runAsNonRoot;
    if (v != null) {
      if (v !== true) explicit.push(c.name);
    } else if (!podNonRoot) {
      implicit.push(c.name);
    }
  });
  if (explicit.length > 0) badSetters.push(containersPhrase(explicit));
  if (badSetters.length > 0) return { allowed: false, reason: 'runAsNonRoot != true', detail: `${badSetters.join(' and ')} must not set securityContext.runAsNonRoot=false` };
  if (implicit.length > 0) return { allowed: false, reason: 'runAsNonRoot != true', detail: `pod or ${containersPhrase(implicit)} must set securityContext.runAsNonRoot=true` };
  return ALLOWED;
}

function runAsUser(_meta: Obj, spec: Obj): CheckResult {
  const badSetters: string[] = [];
  if (podSc(spec)?.runAsUser === 0) badSetters.push('pod');
  const bad: string[] = [];
  visitContainers(spec, (c) => {
    if (sc(c)?.runAsUser === 0) bad.push(c.name);
  });
  if (bad.length > 0) badSetters.push(containersPhrase(bad));
  if (badSetters.length === 0) return ALLOWED;
  return { allowed: false, reason: 'runAsUser=0', detail: `${badSetters.join(' and ')} must not set runAsUser=0` };
}

function seccompRestricted(_meta: Obj, spec: Obj): CheckResult {
  const badSetters: string[] = [];
  const badValues = new Set<string>();
  let podSet = false;
  const podProfile = podSc(spec)?.seccompProfile;
  if (podProfile) {
    if (!validSeccomp(podProfile.type)) {
      badSetters.push('pod');
      badValues.add(String(podProfile.type ?? ''));
    } else {
      podSet = true;
    }
  }
  const explicit: string[] = [];
  const implicit: string[] = [];
  visitContainers(spec, (c) => {
    const p = sc(c)?.seccompProfile;
    if (p) {
      if (!validSeccomp(p.type)) {
        explicit.push(c.name);
        badValues.add(String(p.type ?? ''));
      }
    } else if (!podSet) {
      implicit.push(c.name);
    }
  });
  if (explicit.length > 0) badSetters.push(containersPhrase(explicit));
  if (badSetters.length > 0) return { allowed: false, reason: 'seccompProfile', detail: `${badSetters.join(' and ')} must not set securityContext.seccompProfile.type to ${joinQuote(sortedSet(badValues))}` };
  if (implicit.length > 0) return { allowed: false, reason: 'seccompProfile', detail: `pod or ${containersPhrase(implicit)} must set securityContext.seccompProfile.type to "RuntimeDefault" or "Localhost"` };
  return ALLOWED;
}

/** Every check of the standards, with the versions of each. */
export const CHECKS: readonly Check[] = [
  { id: 'allowPrivilegeEscalation', level: 'restricted', versions: [{ minimum: 8, check: allowPrivilegeEscalation }, { minimum: 25, check: notOnWindows(allowPrivilegeEscalation) }] },
  { id: 'appArmorProfile', level: 'baseline', versions: [{ minimum: 0, check: appArmorProfile }] },
  { id: 'capabilities_baseline', level: 'baseline', versions: [{ minimum: 0, check: capabilitiesBaseline }] },
  {
    id: 'capabilities_restricted',
    level: 'restricted',
    versions: [
      { minimum: 22, check: capabilitiesRestricted, overrides: ['capabilities_baseline'] },
      { minimum: 25, check: notOnWindows(capabilitiesRestricted), overrides: ['capabilities_baseline'] },
    ],
  },
  { id: 'hostNamespaces', level: 'baseline', versions: [{ minimum: 0, check: hostNamespaces }] },
  { id: 'hostPathVolumes', level: 'baseline', versions: [{ minimum: 0, check: hostPathVolumes }] },
  { id: 'hostPorts', level: 'baseline', versions: [{ minimum: 0, check: hostPorts }] },
  { id: 'hostProbesAndHostLifecycle', level: 'baseline', versions: [{ minimum: 34, check: hostProbesAndHostLifecycle }] },
  { id: 'privileged', level: 'baseline', versions: [{ minimum: 0, check: privileged }] },
  { id: 'procMount', level: 'baseline', versions: [{ minimum: 0, check: procMount }] },
  { id: 'restrictedVolumes', level: 'restricted', versions: [{ minimum: 0, check: restrictedVolumes, overrides: ['hostPathVolumes'] }] },
  { id: 'runAsNonRoot', level: 'restricted', versions: [{ minimum: 0, check: runAsNonRoot }] },
  { id: 'runAsUser', level: 'restricted', versions: [{ minimum: 23, check: runAsUser }] },
  { id: 'seLinuxOptions', level: 'baseline', versions: [{ minimum: 0, check: seLinuxOptions(SELINUX_TYPES_1_0) }, { minimum: 31, check: seLinuxOptions(SELINUX_TYPES_1_31) }] },
  { id: 'seccompProfile_baseline', level: 'baseline', versions: [{ minimum: 0, check: seccompBaselineAnnotations }, { minimum: 19, check: seccompBaseline }] },
  {
    id: 'seccompProfile_restricted',
    level: 'restricted',
    versions: [
      { minimum: 19, check: seccompRestricted, overrides: ['seccompProfile_baseline'] },
      { minimum: 25, check: notOnWindows(seccompRestricted), overrides: ['seccompProfile_baseline'] },
    ],
  },
  {
    id: 'sysctls',
    level: 'baseline',
    versions: [
      { minimum: 0, check: sysctls(SYSCTLS_1_0) },
      { minimum: 27, check: sysctls(SYSCTLS_1_27) },
      { minimum: 29, check: sysctls(SYSCTLS_1_29) },
      { minimum: 32, check: sysctls(SYSCTLS_1_32) },
    ],
  },
  { id: 'windowsHostProcess', level: 'baseline', versions: [{ minimum: 0, check: windowsHostProcess }] },
];
