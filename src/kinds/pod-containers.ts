/** Containers, their ports, env, mounts and resources, and pod volumes, as core validation judges them. */
import type { FieldError } from '../api/errors.ts';
import { configMapKeyErrors, dns1123LabelErrors, dns1123SubdomainErrors, portNameErrors, portNumberErrors, qualifiedNameErrors } from '../api/validation/names.ts';
import * as field from '../registry/validation/field.ts';
import { resourceRequirementsErrors } from './core-resources.ts';
import { noBackstepsErrors, POD_SOURCES } from './volume-sources.ts';

type Obj = Record<string, any>;

const PROTOCOLS = ['SCTP', 'TCP', 'UDP'];
const PULL_POLICIES = ['Always', 'IfNotPresent', 'Never'];
const MESSAGE_POLICIES = ['File', 'FallbackToLogsOnError'];
const ENV_NAME_MSG = "a valid environment variable name must consist only of printable ASCII characters other than '='";
const ENV_FIELD_PATHS = ['metadata.name', 'metadata.namespace', 'metadata.uid', 'spec.nodeName', 'spec.serviceAccountName', 'status.hostIP', 'status.hostIPs', 'status.podIP', 'status.podIPs'];
const RESOURCE_FIELD_PATHS = ['limits.cpu', 'limits.ephemeral-storage', 'limits.memory', 'requests.cpu', 'requests.ephemeral-storage', 'requests.memory'];
const PROPAGATIONS = ['Bidirectional', 'HostToContainer', 'None'];

/** ValidateVolumes: names, one source each; returns the names of the valid volumes. */
export function volumesErrors(volumes: Obj[] | undefined, at: field.FieldPath): { errors: FieldError[]; names: Set<string> } {
  const errors: FieldError[] = [];
  const names = new Set<string>();
  (volumes ?? []).forEach((v, i) => {
    const p = at.index(i);
    const errs: FieldError[] = [];
    let count = 0;
    for (const [source, check] of Object.entries(POD_SOURCES)) {
      if (v[source] === undefined || v[source] === null) continue;
      if (count > 0) {
        errs.push(field.forbidden(p.child(source), 'may not specify more than 1 volume type'));
        continue;
      }
      count++;
      errs.push(...check(v[source], p.child(source)));
    }
    if (count === 0) errs.push(field.required(p, 'must specify a volume type'));
    const name = v.name ?? '';
    if (!name) errs.push(field.required(p.child('name')));
    else for (const msg of dns1123LabelErrors(name)) errs.push(field.invalid(p.child('name'), name, msg));
    if (names.has(name)) errs.push(field.duplicate(p.child('name'), name));
    if (errs.length === 0) names.add(name);
    errors.push(...errs);
  });
  return { errors, names };
}

function portsErrors(ports: Obj[] | undefined, at: field.FieldPath): FieldError[] {
  const errs: FieldError[] = [];
  const names = new Set<string>();
  (ports ?? []).forEach((port, i) => {
    const p = at.index(i);
    if (port.name) {
      const problems = portNameErrors(port.name);
      if (problems.length) for (const msg of problems) errs.push(field.invalid(p.child('name'), port.name, msg));
      else if (names.has(port.name)) errs.push(field.duplicate(p.child('name'), port.name));
      else names.add(port.name);
    }
    if (!port.containerPort) errs.push(field.required(p.child('containerPort')));
    else for (const msg of portNumberErrors(port.containerPort)) errs.push(field.invalid(p.child('containerPort'), port.containerPort, msg));
    if (port.hostPort) for (const msg of portNumberErrors(port.hostPort)) errs.push(field.invalid(p.child('hostPort'), port.hostPort, msg));
    if (!port.protocol) errs.push(field.required(p.child('protocol')));
    else if (!PROTOCOLS.includes(port.protocol)) errs.push(field.notSupported(p.child('protocol'), port.protocol, PROTOCOLS));
  });
  return errs;
}

function keySelectorErrors(s: Obj, at: field.FieldPath): FieldError[] {
  const errs: FieldError[] = [];
  for (const msg of dns1123SubdomainErrors(s.name ?? '')) errs.push(field.invalid(at.child('name'), s.name ?? '', msg));
  if (!s.key) errs.push(field.required(at.child('key')));
  else for (const msg of configMapKeyErrors(s.key)) errs.push(field.invalid(at.child('key'), s.key, msg));
  return errs;
}

/** Pod validation options that gates (or the stored pod) decide, as upstream's PodValidationOptions. */
export interface ContainerValidationOptions {
  /** EnvFiles: an env var may take its value from a file (fileKeyRef counts as its source). */
  readonly allowEnvFiles?: boolean;
}

function envErrors(env: Obj[] | undefined, at: field.FieldPath, opts: ContainerValidationOptions): FieldError[] {
  const errs: FieldError[] = [];
  (env ?? []).forEach((e, i) => {
    const p = at.index(i);
    if (!e.name) errs.push(field.required(p.child('name')));
    else if (!/^[\x20-\x3c\x3e-\x7e]+$/.test(e.name)) errs.push(field.invalid(p.child('name'), e.name, ENV_NAME_MSG));
    const from = e.valueFrom;
    if (!from) return;
    const vp = p.child('valueFrom');
    let count = 0;
    if (from.fieldRef) {
      count++;
      const fr = from.fieldRef;
      if (!fr.apiVersion) errs.push(field.required(vp.child('fieldRef', 'apiVersion')));
      else if (!fr.fieldPath) errs.push(field.required(vp.child('fieldRef', 'fieldPath')));
      else {
        const sub = /^(metadata\.(?:labels|annotations))\['(.*)'\]$/.exec(fr.fieldPath);
        if (sub) for (const msg of qualifiedNameErrors(sub[1] === 'metadata.annotations' ? sub[2]!.toLowerCase() : sub[2]!)) errs.push(field.invalid(vp.child('fieldRef'), sub[2], msg));
        else if (!ENV_FIELD_PATHS.includes(fr.fieldPath)) errs.push(field.notSupported(vp.child('fieldRef', 'fieldPath'), fr.fieldPath, ENV_FIELD_PATHS));
      }
    }
    if (from.resourceFieldRef) {
      count++;
      const r = from.resourceFieldRef.resource ?? '';
      if (!r) errs.push(field.required(vp.child('resourceFieldRef', 'resource')));
      else if (!RESOURCE_FIELD_PATHS.includes(r) && !/^(requests|limits)\.hugepages-/.test(r)) errs.push(field.notSupported(vp.child('resourceFieldRef', 'resource'), r, RESOURCE_FIELD_PATHS));
    }
    if (from.configMapKeyRef) {
      count++;
      errs.push(...keySelectorErrors(from.configMapKeyRef, vp.child('configMapKeyRef')));
    }
    if (from.secretKeyRef) {
      count++;
      errs.push(...keySelectorErrors(from.secretKeyRef, vp.child('secretKeyRef')));
    }
    // Without the option the reference is not a source (with the gate off it was dropped before validation).
    if (from.fileKeyRef && opts.allowEnvFiles) count++;
    if (count === 0) errs.push(field.invalid(vp, '', 'must specify one of: `fieldRef`, `resourceFieldRef`, `configMapKeyRef` or `secretKeyRef`'));
    else if (e.value) errs.push(field.invalid(vp, '', 'may not be specified when `value` is not empty'));
    else if (count > 1) errs.push(field.invalid(vp, '', 'may not have more than one field specified at a time'));
  });
  return errs;
}

function envFromErrors(envFrom: Obj[] | undefined, at: field.FieldPath): FieldError[] {
  const errs: FieldError[] = [];
  (envFrom ?? []).forEach((e, i) => {
    const p = at.index(i);
    if (e.prefix && !/^[\x20-\x3c\x3e-\x7e]+$/.test(e.prefix)) errs.push(field.invalid(p.child('prefix'), e.prefix, ENV_NAME_MSG));
    let count = 0;
    for (const kind of ['configMapRef', 'secretRef']) {
      if (!e[kind]) continue;
      count++;
      if (!e[kind].name) errs.push(field.required(p.child(kind, 'name')));
      else for (const msg of dns1123SubdomainErrors(e[kind].name)) errs.push(field.invalid(p.child(kind, 'name'), e[kind].name, msg));
    }
    if (count === 0) errs.push(field.invalid(at, '', 'must specify one of: `configMapRef` or `secretRef`'));
    else if (count > 1) errs.push(field.invalid(at, '', 'may not have more than one field specified at a time'));
  });
  return errs;
}

function mountsErrors(mounts: Obj[] | undefined, volumes: Set<string>, privileged: boolean, at: field.FieldPath): FieldError[] {
  const errs: FieldError[] = [];
  const points = new Set<string>();
  (mounts ?? []).forEach((m, i) => {
    const p = at.index(i);
    if (!m.name) errs.push(field.required(p.child('name')));
    if (!volumes.has(m.name ?? '')) errs.push(field.notFound(p.child('name'), m.name ?? ''));
    if (!m.mountPath) errs.push(field.required(p.child('mountPath')));
    if (points.has(m.mountPath)) errs.push(field.invalid(p.child('mountPath'), m.mountPath, 'must be unique'));
    points.add(m.mountPath);
    if (m.subPath) {
      if (m.subPath.startsWith('/')) errs.push(field.invalid(at.child('subPath'), m.subPath, 'must be a relative path'));
      errs.push(...noBackstepsErrors(m.subPath, at.child('subPath')));
    }
    if (m.mountPropagation !== undefined) {
      if (!PROPAGATIONS.includes(m.mountPropagation)) errs.push(field.notSupported(p.child('mountPropagation'), m.mountPropagation, PROPAGATIONS));
      else if (m.mountPropagation === 'Bidirectional' && !privileged) errs.push(field.forbidden(p.child('mountPropagation'), 'Bidirectional mount propagation is available only to privileged containers'));
    }
  });
  return errs;
}

/** validateContainerCommon plus the image rule of pods. */
export function containerErrors(c: Obj, volumes: Set<string>, at: field.FieldPath, opts: ContainerValidationOptions = {}): FieldError[] {
  const errs: FieldError[] = [];
  if (!c.name) errs.push(field.required(at.child('name')));
  else for (const msg of dns1123LabelErrors(c.name)) errs.push(field.invalid(at.child('name'), c.name, msg));
  if (!c.image) errs.push(field.required(at.child('image')));
  const policy = c.terminationMessagePolicy ?? '';
  if (policy === '') errs.push(field.required(at.child('terminationMessagePolicy')));
  else if (!MESSAGE_POLICIES.includes(policy)) errs.push(field.notSupported(at.child('terminationMessagePolicy'), policy, MESSAGE_POLICIES));
  errs.push(...portsErrors(c.ports, at.child('ports')));
  errs.push(...envErrors(c.env, at.child('env'), opts));
  errs.push(...envFromErrors(c.envFrom, at.child('envFrom')));
  errs.push(...mountsErrors(c.volumeMounts, volumes, c.securityContext?.privileged === true, at.child('volumeMounts')));
  const pull = c.imagePullPolicy ?? '';
  if (pull === '') errs.push(field.required(at.child('imagePullPolicy')));
  else if (!PULL_POLICIES.includes(pull)) errs.push(field.notSupported(at.child('imagePullPolicy'), pull, PULL_POLICIES));
  errs.push(...resourceRequirementsErrors(c.resources?.limits, c.resources?.requests, at.child('resources')));
  return errs;
}

/** validateContainers / validateInitContainers: required (regular ones), unique names across both lists. */
export function containersErrors(containers: Obj[] | undefined, init: Obj[] | undefined, volumes: Set<string>, at: field.FieldPath, opts: ContainerValidationOptions = {}): FieldError[] {
  const errs: FieldError[] = [];
  const regular = containers ?? [];
  if (regular.length === 0) errs.push(field.required(at.child('containers')));
  const names = new Set<string>();
  regular.forEach((c, i) => {
    const p = at.child('containers').index(i);
    errs.push(...containerErrors(c, volumes, p, opts));
    if (names.has(c.name)) errs.push(field.duplicate(p.child('name'), c.name));
    names.add(c.name);
    if (c.restartPolicy !== undefined) errs.push(field.forbidden(p.child('restartPolicy'), 'may not be set for non-init containers'));
  });
  (init ?? []).forEach((c, i) => {
    const p = at.child('initContainers').index(i);
    errs.push(...containerErrors(c, volumes, p, opts));
    if (names.has(c.name)) errs.push(field.duplicate(p.child('name'), c.name));
    names.add(c.name);
    if (c.restartPolicy !== undefined && c.restartPolicy !== 'Always') errs.push(field.notSupported(p.child('restartPolicy'), c.restartPolicy, ['Always']));
    if (c.restartPolicy !== 'Always') {
      for (const probe of ['livenessProbe', 'readinessProbe', 'startupProbe']) if (c[probe]) errs.push(field.forbidden(p.child(probe), 'may not be set for init containers without restartPolicy=Always'));
    }
  });
  return errs;
}
