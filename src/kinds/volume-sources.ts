/**
 * Volume sources as core validation judges them, shared by Pod volumes and PersistentVolumes
 * (upstream's validate*VolumeSource functions): each source's required fields, paths and modes.
 */
import type { FieldError } from '../api/errors.ts';
import { dns1123LabelErrors, dns1123SubdomainErrors } from '../api/validation/names.ts';
import * as field from '../registry/validation/field.ts';

type Src = Record<string, any>;
type Validator = (src: Src, at: field.FieldPath) => FieldError[];

const FILE_MODE_ERROR = 'must be a number between 0 and 0777 (octal), both inclusive';
const PD_PARTITION_ERROR = 'must be in the range 0-255';
const HOST_PATH_TYPES = ['', 'BlockDevice', 'CharDevice', 'Directory', 'DirectoryOrCreate', 'File', 'FileOrCreate', 'Socket'];
const IQN_RE = /^iqn\.\d{4}-\d{2}\.([A-Za-z0-9-.]+)(:[^,;*&$|\s]+)$/;
const EUI_RE = /^eui.[A-Fa-f0-9]{16}$/;
const NAA_RE = /^naa.[A-Fa-f0-9]{32}$/;

const required = (at: field.FieldPath, name: string, value: unknown, detail = ''): FieldError[] => (value === undefined || value === '' || value === null ? [field.required(at.child(name), detail)] : []);

export function modeErrors(mode: number | undefined, at: field.FieldPath): FieldError[] {
  return mode !== undefined && (mode > 0o777 || mode < 0) ? [field.invalid(at, mode, FILE_MODE_ERROR)] : [];
}

/** validatePathNoBacksteps: no `..` element. */
export function noBackstepsErrors(p: string, at: field.FieldPath): FieldError[] {
  return p.split('/').includes('..') ? [field.invalid(at, p, "must not contain '..'")] : [];
}

/** ValidateLocalNonReservedPath: relative, no `..` element, not starting with `..`. */
export function localNonReservedPathErrors(p: string, at: field.FieldPath): FieldError[] {
  const errs: FieldError[] = [];
  if (p.startsWith('/')) errs.push(field.invalid(at, p, 'must be a relative path'));
  errs.push(...noBackstepsErrors(p, at));
  if (p.startsWith('..') && !p.startsWith('../')) errs.push(field.invalid(at, p, "must not start with '..'"));
  return errs;
}

export function keyToPathErrors(kp: Src, at: field.FieldPath): FieldError[] {
  const errs: FieldError[] = [];
  if (!kp.key) errs.push(field.required(at.child('key')));
  if (!kp.path) errs.push(field.required(at.child('path')));
  errs.push(...localNonReservedPathErrors(kp.path ?? '', at.child('path')));
  errs.push(...modeErrors(kp.mode, at.child('mode')));
  return errs;
}

/** ValidateCSIDriverName. */
export function csiDriverNameErrors(name: string | undefined, at: field.FieldPath): FieldError[] {
  const n = name ?? '';
  const errs: FieldError[] = [];
  if (!n) errs.push(field.required(at));
  if (n.length > 63) errs.push(field.tooLong(at, 63));
  for (const msg of dns1123SubdomainErrors(n.toLowerCase())) errs.push(field.invalid(at, n, msg));
  return errs;
}

function iqnErrors(value: string, at: field.FieldPath, startMessage: string): FieldError[] {
  if (!value.startsWith('iqn') && !value.startsWith('eui') && !value.startsWith('naa')) return [field.invalid(at, value, startMessage)];
  if (value.startsWith('iqn') && !IQN_RE.test(value)) return [field.invalid(at, value, 'must be valid format')];
  if (value.startsWith('eui') && !EUI_RE.test(value)) return [field.invalid(at, value, 'must be valid format')];
  if (value.startsWith('naa') && !NAA_RE.test(value)) return [field.invalid(at, value, 'must be valid format')];
  return [];
}

function iscsi(persistent: boolean): Validator {
  return (s, at) => {
    const errs = required(at, 'targetPortal', s.targetPortal);
    if (!s.iqn) errs.push(field.required(at.child('iqn')));
    else errs.push(...iqnErrors(s.iqn, at.child('iqn'), persistent ? 'must be valid format' : 'must be valid format starting with iqn, eui, or naa'));
    const lun = s.lun ?? 0;
    if (lun < 0 || lun > 255) errs.push(field.invalid(at.child('lun'), lun, 'must be between 0 and 255, inclusive'));
    if ((s.chapAuthDiscovery || s.chapAuthSession) && !s.secretRef) errs.push(field.required(at.child('secretRef')));
    if (persistent && s.secretRef && !s.secretRef.name) errs.push(field.required(at.child('secretRef', 'name')));
    if (s.initiatorName !== undefined) errs.push(...iqnErrors(s.initiatorName, at.child('initiatorname'), persistent ? 'must be valid format' : 'must be valid format starting with iqn, eui, or naa'));
    return errs;
  };
}

const hostPath: Validator = (s, at) => {
  if (!s.path) return [field.required(at.child('path'))];
  const errs = noBackstepsErrors(s.path, at.child('path'));
  if (s.type !== undefined && !HOST_PATH_TYPES.includes(s.type)) errs.push(field.notSupported(at.child('type'), s.type, HOST_PATH_TYPES));
  return errs;
};

const fc: Validator = (s, at) => {
  const wwns = s.targetWWNs ?? [];
  const wwids = s.wwids ?? [];
  const errs: FieldError[] = [];
  if (wwns.length < 1 && wwids.length < 1) errs.push(field.required(at.child('targetWWNs'), 'must specify either targetWWNs or wwids, but not both'));
  if (wwns.length && wwids.length) errs.push(field.invalid(at.child('targetWWNs'), wwns, 'targetWWNs and wwids can not be specified simultaneously'));
  if (wwns.length) {
    if (s.lun === undefined) errs.push(field.required(at.child('lun'), 'lun is required if targetWWNs is specified'));
    else if (s.lun < 0 || s.lun > 255) errs.push(field.invalid(at.child('lun'), s.lun, 'must be between 0 and 255, inclusive'));
  }
  return errs;
};

const partitioned = (idField: string): Validator => (s, at) => {
  const errs = required(at, idField, s[idField]);
  const partition = s.partition ?? 0;
  if (partition < 0 || partition > 255) errs.push(field.invalid(at.child('partition'), partition, PD_PARTITION_ERROR));
  return errs;
};

const nfs: Validator = (s, at) => {
  const errs = [...required(at, 'server', s.server), ...required(at, 'path', s.path)];
  if (!(s.path ?? '').startsWith('/')) errs.push(field.invalid(at.child('path'), s.path ?? '', 'must be an absolute path'));
  return errs;
};

const flex: Validator = (s, at) => {
  const errs = required(at, 'driver', s.driver);
  for (const k of Object.keys(s.options ?? {})) {
    const ns = k.includes('/') ? k.slice(0, k.indexOf('/')) : k;
    const normalized = `.${ns.toLowerCase()}`;
    if (normalized.endsWith('.kubernetes.io') || normalized.endsWith('.k8s.io')) errs.push(field.invalid(at.child('options').key(k), k, 'kubernetes.io and k8s.io namespaces are reserved'));
  }
  return errs;
};

const flocker: Validator = (s, at) => {
  const errs: FieldError[] = [];
  if (!s.datasetName && !s.datasetUUID) errs.push(field.required(at, 'one of datasetName and datasetUUID is required'));
  if (s.datasetName && s.datasetUUID) errs.push(field.invalid(at, 'resource', 'datasetName and datasetUUID can not be specified simultaneously'));
  if ((s.datasetName ?? '').includes('/')) errs.push(field.invalid(at.child('datasetName'), s.datasetName, "must not contain '/'"));
  return errs;
};

const secretRefName = (s: Src, at: field.FieldPath, name: string, needNamespace: boolean): FieldError[] => {
  const ref = s[name];
  if (!ref) return [];
  const errs = required(at.child(name), 'name', ref.name);
  if (needNamespace) errs.push(...required(at.child(name), 'namespace', ref.namespace));
  return errs;
};

/** PersistentVolume sources. */
export const PV_SOURCES: Readonly<Record<string, Validator>> = {
  hostPath,
  gcePersistentDisk: partitioned('pdName'),
  awsElasticBlockStore: partitioned('volumeID'),
  glusterfs: (s, at) => {
    const errs = [...required(at, 'endpoints', s.endpoints), ...required(at, 'path', s.path)];
    if (s.endpointsNamespace !== undefined) {
      if (s.endpointsNamespace === '') errs.push(field.invalid(at.child('endpointsNamespace'), '', 'if the endpointnamespace is set, it must be a valid namespace name'));
      else for (const msg of dns1123LabelErrors(s.endpointsNamespace)) errs.push(field.invalid(at.child('endpointsNamespace'), s.endpointsNamespace, msg));
    }
    return errs;
  },
  flocker,
  nfs,
  rbd: (s, at) => [...required(at, 'monitors', s.monitors?.length ? 'x' : ''), ...required(at, 'image', s.image)],
  quobyte: (s, at) => [...required(at, 'registry', s.registry, 'must be a host:port pair or multiple pairs separated by commas'), ...required(at, 'volume', s.volume)],
  cephfs: (s, at) => required(at, 'monitors', s.monitors?.length ? 'x' : ''),
  iscsi: iscsi(true),
  cinder: (s, at) => [...required(at, 'volumeID', s.volumeID), ...secretRefName(s, at, 'secretRef', true)],
  fc,
  flexVolume: flex,
  azureFile: (s, at) => [...required(at, 'secretName', s.secretName), ...required(at, 'shareName', s.shareName), ...(s.secretNamespace === '' ? [field.required(at.child('secretNamespace'))] : [])],
  vsphereVolume: (s, at) => required(at, 'volumePath', s.volumePath),
  photonPersistentDisk: (s, at) => required(at, 'pdID', s.pdID),
  portworxVolume: (s, at) => required(at, 'volumeID', s.volumeID),
  azureDisk: (s, at) => [...required(at, 'diskName', s.diskName), ...required(at, 'diskURI', s.diskURI)],
  scaleIO: (s, at) => [...required(at, 'gateway', s.gateway), ...required(at, 'system', s.system), ...required(at, 'volumeName', s.volumeName)],
  local: (s, at) => (s.path ? noBackstepsErrors(s.path, at.child('path')) : [field.required(at.child('path'))]),
  storageos: (s, at) => required(at, 'volumeName', s.volumeName),
  csi: (s, at) => [
    ...csiDriverNameErrors(s.driver, at.child('driver')),
    ...required(at, 'volumeHandle', s.volumeHandle),
    ...['controllerPublishSecretRef', 'nodeStageSecretRef', 'nodePublishSecretRef', 'controllerExpandSecretRef', 'nodeExpandSecretRef'].flatMap((n) => secretRefName(s, at, n, true)),
  ],
};

/** Upstream names a few PV sources' error paths differently from their fields. */
export const PV_SOURCE_PATHS: Readonly<Record<string, string>> = { gcePersistentDisk: 'persistentDisk', cephfs: 'cephfs' };
/** …and its "more than one" errors by another spelling. */
export const PV_SOURCE_FORBIDDEN_NAMES: Readonly<Record<string, string>> = { cephfs: 'cephFS' };

function downwardFile(f: Src, at: field.FieldPath): FieldError[] {
  const errs: FieldError[] = [];
  if (!f.path) errs.push(field.required(at.child('path')));
  errs.push(...localNonReservedPathErrors(f.path ?? '', at.child('path')));
  if (f.fieldRef) {
    const ALLOWED = ['metadata.annotations', 'metadata.labels', 'metadata.name', 'metadata.namespace', 'metadata.uid'];
    const p = f.fieldRef.fieldPath ?? '';
    const base = p.replace(/\[.*\]$/, '');
    if (!p) errs.push(field.required(at.child('fieldRef', 'fieldPath')));
    else if (!ALLOWED.includes(base)) errs.push(field.notSupported(at.child('fieldRef', 'fieldPath'), p, ALLOWED));
    if (f.resourceFieldRef) errs.push(field.invalid(at, 'resource', 'fieldRef and resourceFieldRef can not be specified simultaneously'));
  } else if (f.resourceFieldRef) {
    if (!f.resourceFieldRef.resource) errs.push(field.required(at.child('resourceFieldRef', 'resource')));
  } else {
    errs.push(field.required(at, 'one of fieldRef and resourceFieldRef is required'));
  }
  errs.push(...modeErrors(f.mode, at.child('mode')));
  return errs;
}

function projected(s: Src, at: field.FieldPath): FieldError[] {
  const errs = modeErrors(s.defaultMode, at.child('defaultMode'));
  const paths = new Set<string>();
  const claim = (p: string, shown: unknown) => {
    if (!p) return;
    if (paths.has(p)) errs.push(field.invalid(at, shown, 'conflicting duplicate paths'));
    paths.add(p);
  };
  (s.sources ?? []).forEach((src: Src, i: number) => {
    const sp = at.child('sources').index(i);
    let count = 0;
    for (const kind of ['secret', 'configMap'] as const) {
      if (!src[kind]) continue;
      count++;
      if (!src[kind].name) errs.push(field.required(sp.child(kind, 'name')));
      (src[kind].items ?? []).forEach((kp: Src, j: number) => {
        errs.push(...keyToPathErrors(kp, sp.child(kind, 'items').index(j)));
        claim(kp.path ?? '', src[kind].name ?? '');
      });
    }
    if (src.downwardAPI) {
      count++;
      for (const f of src.downwardAPI.items ?? []) {
        errs.push(...downwardFile(f, sp.child('downwardAPI')));
        claim(f.path ?? '', f.path ?? '');
      }
    }
    if (src.serviceAccountToken) {
      count++;
      const t = src.serviceAccountToken;
      const seconds = t.expirationSeconds ?? 3600;
      const tp = sp.child('serviceAccountToken');
      if (seconds < 600) errs.push(field.invalid(tp.child('expirationSeconds'), seconds, 'may not specify a duration less than 10 minutes'));
      if (seconds > 2 ** 32) errs.push(field.invalid(tp.child('expirationSeconds'), seconds, 'may not specify a duration larger than 2^32 seconds'));
      if (!t.path) errs.push(field.required(at.child('path')));
      else errs.push(...localNonReservedPathErrors(t.path, at.child('path')));
    }
    if (src.clusterTrustBundle) {
      count++;
      const c = src.clusterTrustBundle;
      const cp = sp.child('clusterTrustBundlePEM');
      if (c.name !== undefined && c.signerName !== undefined) errs.push(field.invalid(cp, c, 'only one of name and signerName may be used'));
      else if (c.name !== undefined) {
        if (c.name === '') errs.push(field.required(cp.child('name'), 'must be a valid object name'));
        if (c.labelSelector) errs.push(field.invalid(cp.child('labelSelector'), c.labelSelector, 'labelSelector must be unset if name is specified'));
      } else if (c.signerName !== undefined) {
        if (c.signerName === '') errs.push(field.required(cp.child('signerName'), 'must be a valid signer name'));
      } else errs.push(field.required(cp, 'either name or signerName must be specified'));
      if (!c.path) errs.push(field.required(cp.child('path')));
      errs.push(...localNonReservedPathErrors(c.path ?? '', cp.child('path')));
      claim(c.path ?? '', c.path ?? '');
    }
    if (src.podCertificate) count++;
    if (count > 1) errs.push(field.forbidden(sp, 'may not specify more than 1 volume type'));
  });
  return errs;
}

/** Pod volume sources (the reference's Volume table). */
export const POD_SOURCES: Readonly<Record<string, Validator>> = {
  // Upstream looks at emptyDir first, then hostPath and the rest, in this order.
  emptyDir: (s, at) => (s.sizeLimit !== undefined && String(s.sizeLimit).startsWith('-') ? [field.forbidden(at.child('sizeLimit'), 'SizeLimit field must be a valid resource quantity')] : []),
  hostPath,
  gitRepo: (s, at) => [...required(at, 'repository', s.repository), ...(s.directory?.startsWith('/') ? [field.invalid(at.child('directory'), s.directory, 'must be a relative path')] : []), ...noBackstepsErrors(s.directory ?? '', at.child('directory'))],
  gcePersistentDisk: partitioned('pdName'),
  awsElasticBlockStore: partitioned('volumeID'),
  secret: (s, at) => [...required(at, 'secretName', s.secretName), ...modeErrors(s.defaultMode, at.child('defaultMode')), ...(s.items ?? []).flatMap((kp: Src, i: number) => keyToPathErrors(kp, at.child('items').index(i)))],
  nfs,
  iscsi: iscsi(false),
  glusterfs: (s, at) => [...required(at, 'endpoints', s.endpoints), ...required(at, 'path', s.path)],
  persistentVolumeClaim: (s, at) => required(at, 'claimName', s.claimName),
  rbd: (s, at) => [...required(at, 'monitors', s.monitors?.length ? 'x' : ''), ...required(at, 'image', s.image)],
  flexVolume: flex,
  cinder: (s, at) => [...required(at, 'volumeID', s.volumeID), ...secretRefName(s, at, 'secretRef', false)],
  cephfs: (s, at) => required(at, 'monitors', s.monitors?.length ? 'x' : ''),
  flocker,
  downwardAPI: (s, at) => [...modeErrors(s.defaultMode, at.child('defaultMode')), ...(s.items ?? []).flatMap((f: Src) => downwardFile(f, at))],
  fc,
  azureFile: (s, at) => [...required(at, 'secretName', s.secretName), ...required(at, 'shareName', s.shareName)],
  configMap: (s, at) => [...required(at, 'name', s.name), ...modeErrors(s.defaultMode, at.child('defaultMode')), ...(s.items ?? []).flatMap((kp: Src, i: number) => keyToPathErrors(kp, at.child('items').index(i)))],
  vsphereVolume: (s, at) => required(at, 'volumePath', s.volumePath),
  quobyte: (s, at) => [...required(at, 'registry', s.registry, 'must be a host:port pair or multiple pairs separated by commas'), ...required(at, 'volume', s.volume)],
  azureDisk: (s, at) => [...required(at, 'diskName', s.diskName), ...required(at, 'diskURI', s.diskURI)],
  photonPersistentDisk: (s, at) => required(at, 'pdID', s.pdID),
  projected,
  portworxVolume: (s, at) => required(at, 'volumeID', s.volumeID),
  scaleIO: (s, at) => [...required(at, 'gateway', s.gateway), ...required(at, 'system', s.system), ...required(at, 'volumeName', s.volumeName)],
  storageos: (s, at) => required(at, 'volumeName', s.volumeName),
  csi: (s, at) => [...csiDriverNameErrors(s.driver, at.child('driver')), ...(s.nodePublishSecretRef && !s.nodePublishSecretRef.name ? [field.required(at.child('nodePublishSecretRef', 'name'))] : [])],
  ephemeral: (s, at) => (s.volumeClaimTemplate ? (s.volumeClaimTemplate.spec ? [] : [field.required(at.child('volumeClaimTemplate', 'spec'))]) : [field.required(at.child('volumeClaimTemplate'))]),
  image: (s, at) => {
    const errs = s.reference ? [] : [field.required(at.child('reference'))];
    if (s.pullPolicy !== undefined && !['Always', 'IfNotPresent', 'Never'].includes(s.pullPolicy)) errs.push(field.notSupported(at.child('pullPolicy'), s.pullPolicy, ['Always', 'IfNotPresent', 'Never']));
    return errs;
  },
};
