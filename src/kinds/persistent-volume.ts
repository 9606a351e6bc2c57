import type { FieldError } from '../api/errors.ts';
import type { KubeObject } from '../api/types.ts';
import { parseQuantity, quantityString } from '../api/go/quantity.ts';
import { defineKind } from '../registry/kind.ts';
import { canonicalJson } from '../registry/system-fields.ts';
import { statusSubresource } from '../registry/subresources.ts';
import * as field from '../registry/validation/field.ts';
import { quantityValueErrors } from './core-resources.ts';
import { accessModesColumn, accessModesErrors, classNameErrors, nodeSelectorErrors, positiveQuantityErrors, VOLUME_MODES } from './storage-common.ts';
import { PV_SOURCE_FORBIDDEN_NAMES, PV_SOURCE_PATHS, PV_SOURCES } from './volume-sources.ts';
import { ageCell } from './columns.ts';
import { dropDisabledVolumeSpecFields } from './persistent-volume-gated-fields.ts';

type Spec = Record<string, any> & {
  capacity?: Record<string, string>;
  accessModes?: string[];
  claimRef?: { namespace?: string; name?: string } | null;
  persistentVolumeReclaimPolicy?: string;
  storageClassName?: string;
  volumeMode?: string;
  nodeAffinity?: { required?: { nodeSelectorTerms?: unknown[] } | null } | null;
  volumeAttributesClassName?: string;
};
const specOf = (obj: KubeObject) => (obj.spec ?? {}) as Spec;
const RECLAIM_POLICIES = ['Delete', 'Recycle', 'Retain'];
const NOT_SOURCE = new Set(['capacity', 'accessModes', 'claimRef', 'persistentVolumeReclaimPolicy', 'storageClassName', 'mountOptions', 'volumeMode', 'nodeAffinity', 'volumeAttributesClassName']);

/** The volume source part of a spec (what may not change). */
export function sourceOf(spec: Spec): Record<string, unknown> {
  return Object.fromEntries(Object.entries(spec).filter(([k]) => !NOT_SOURCE.has(k)));
}

/** Upstream's ValidatePersistentVolumeSpec; `inline` for a VolumeAttachment's inline spec. */
export function persistentVolumeSpecErrors(spec: Spec, at: field.FieldPath, inline: boolean): FieldError[] {
  const errs: FieldError[] = [];
  if (inline) {
    if (spec.claimRef) errs.push(field.forbidden(at.child('claimRef'), 'may not be specified in the context of inline volumes'));
    if (Object.keys(spec.capacity ?? {}).length) errs.push(field.forbidden(at.child('capacity'), 'may not be specified in the context of inline volumes'));
    if (!spec.csi) errs.push(field.required(at.child('csi'), 'has to be specified in the context of inline volumes'));
  }
  errs.push(...accessModesErrors(spec.accessModes, at.child('accessModes')));
  if (!inline) {
    const capacity = spec.capacity ?? {};
    const keys = Object.keys(capacity);
    if (keys.length === 0) errs.push(field.required(at.child('capacity')));
    if (!('storage' in capacity) || keys.length > 1) errs.push(field.notSupported(at.child('capacity'), capacity, ['storage']));
    for (const k of keys.sort()) errs.push(...quantityValueErrors(k, capacity[k]!, at.child('capacity').key(k)), ...positiveQuantityErrors(capacity[k]!, at.child('capacity').key(k)));
  }
  const policy = spec.persistentVolumeReclaimPolicy;
  if (policy) {
    if (inline && policy !== 'Retain') errs.push(field.forbidden(at.child('persistentVolumeReclaimPolicy'), 'may only be Retain in the context of inline volumes'));
    else if (!inline && !RECLAIM_POLICIES.includes(policy)) errs.push(field.notSupported(at.child('persistentVolumeReclaimPolicy'), policy, RECLAIM_POLICIES));
  }
  let affinity = false;
  if (spec.nodeAffinity) {
    if (inline) errs.push(field.forbidden(at.child('nodeAffinity'), 'may not be specified in the context of inline volumes'));
    else if (!spec.nodeAffinity.required) errs.push(field.required(at.child('nodeAffinity', 'required'), 'must specify required node constraints'));
    else {
      affinity = true;
      errs.push(...nodeSelectorErrors(spec.nodeAffinity.required as never, at.child('nodeAffinity', 'required')));
    }
  }
  let count = 0;
  for (const [name, check] of Object.entries(PV_SOURCES)) {
    const src = spec[name];
    if (src === undefined || src === null) continue;
    if (count > 0 && name !== 'flexVolume') {
      errs.push(field.forbidden(at.child(PV_SOURCE_FORBIDDEN_NAMES[name] ?? name), 'may not specify more than 1 volume type'));
      continue;
    }
    count++;
    errs.push(...check(src, at.child(PV_SOURCE_PATHS[name] ?? name)));
    if (name === 'local' && !affinity) errs.push(field.required(at.child('nodeAffinity'), 'Local volume requires node affinity'));
  }
  if (count === 0) errs.push(field.required(at, 'must specify a volume type'));
  if (spec.hostPath && (spec.hostPath.path ?? '').replace(/\/+$/, '') === '' && String(spec.hostPath.path ?? '').startsWith('/') && policy === 'Recycle') {
    errs.push(field.forbidden(at.child('persistentVolumeReclaimPolicy'), "may not be 'recycle' for a hostPath mount of '/'"));
  }
  if (spec.storageClassName) {
    if (inline) errs.push(field.forbidden(at.child('storageClassName'), 'may not be specified in the context of inline volumes'));
    else for (const msg of classNameErrors(spec.storageClassName)) errs.push(field.invalid(at.child('storageClassName'), spec.storageClassName, msg));
  }
  if (spec.volumeMode !== undefined) {
    if (inline && spec.volumeMode !== 'Filesystem') errs.push(field.forbidden(at.child('volumeMode'), 'may not specify volumeMode other than Filesystem in the context of inline volumes'));
    else if (!inline && !VOLUME_MODES.includes(spec.volumeMode)) errs.push(field.notSupported(at.child('volumeMode'), spec.volumeMode, VOLUME_MODES));
  }
  if (spec.volumeAttributesClassName !== undefined) {
    if (spec.volumeAttributesClassName === '') errs.push(field.required(at.child('volumeAttributesClassName'), 'an empty string is disallowed'));
    else for (const msg of classNameErrors(spec.volumeAttributesClassName)) errs.push(field.invalid(at.child('volumeAttributesClassName'), spec.volumeAttributesClassName, msg));
    if (!spec.csi) errs.push(field.required(at.child('csi'), 'has to be specified when using volumeAttributesClassName'));
  }
  return errs;
}

/** A line-per-field account of what changed between two values (upstream appends a cmp diff). */
export function changes(before: unknown, after: unknown): string {
  const a = before as Record<string, unknown>;
  const b = after as Record<string, unknown>;
  const keys = [...new Set([...Object.keys(a ?? {}), ...Object.keys(b ?? {})])].sort();
  return keys
    .filter((k) => canonicalJson(a?.[k] ?? null) !== canonicalJson(b?.[k] ?? null))
    .flatMap((k) => [...(a?.[k] !== undefined ? [`-\t${k}: ${JSON.stringify(a[k])}`] : []), ...(b?.[k] !== undefined ? [`+\t${k}: ${JSON.stringify(b[k])}`] : [])])
    .join('\n');
}

function validateUpdate(obj: KubeObject, old: KubeObject): FieldError[] {
  const spec = specOf(obj);
  const before = specOf(old);
  const errs = persistentVolumeSpecErrors(spec, field.path('spec'), false);
  const now = sourceOf(spec);
  const was = sourceOf(before);
  // A CSI volume may gain a controllerExpandSecretRef.
  if (before.csi && !before.csi.controllerExpandSecretRef && spec.csi?.controllerExpandSecretRef) {
    now.csi = { ...spec.csi };
    delete (now.csi as Record<string, unknown>).controllerExpandSecretRef;
  }
  if (canonicalJson(now) !== canonicalJson(was)) errs.push(field.forbidden(field.path('spec', 'persistentvolumesource'), `spec.persistentvolumesource is immutable after creation\n${changes(was, now)}`));
  if ((spec.volumeMode ?? null) !== (before.volumeMode ?? null)) errs.push(field.immutable('volumeMode', spec.volumeMode ?? null));
  if (before.nodeAffinity && canonicalJson(spec.nodeAffinity ?? null) !== canonicalJson(before.nodeAffinity)) errs.push(field.immutable('nodeAffinity', spec.nodeAffinity ?? null));
  if (before.volumeAttributesClassName !== undefined && spec.volumeAttributesClassName === undefined) errs.push(field.forbidden(field.path('spec', 'volumeAttributesClassName'), 'update from non-nil value to nil is forbidden'));
  return errs;
}

const phaseOf = (o: KubeObject) => (o.metadata?.deletionTimestamp ? 'Terminating' : ((o.status as { phase?: string } | undefined)?.phase ?? ''));
const storageShown = (text: string | undefined) => (text === undefined ? '0' : quantityString(parseQuantity(text) ?? parseQuantity('0')!));

/** core v1 PersistentVolume: a piece of storage in the cluster. */
export const persistentVolumes = defineKind({
  group: '',
  version: 'v1',
  kind: 'PersistentVolume',
  plural: 'persistentvolumes',
  shortNames: ['pv'],
  namespaced: false,
  schemaMessage: 'k8s.io.api.core.v1.PersistentVolume',
  subresources: [statusSubresource({ validateUpdate: () => [] })],
  fieldSelectors: { 'status.phase': ['status', 'phase'] },
  tableColumns: [
    { name: 'Name', type: 'string', format: 'name', description: 'The name of the volume.', cell: (o) => o.metadata?.name ?? '' },
    { name: 'Capacity', type: 'string', description: 'The storage capacity of the volume.', cell: (o) => storageShown(specOf(o).capacity?.storage) },
    { name: 'Access Modes', type: 'string', description: 'How the volume may be mounted.', cell: (o) => accessModesColumn(specOf(o).accessModes) },
    { name: 'Reclaim Policy', type: 'string', description: 'What happens to the volume when released.', cell: (o) => specOf(o).persistentVolumeReclaimPolicy ?? '' },
    { name: 'Status', type: 'string', description: 'The phase of the volume.', cell: (o) => phaseOf(o) },
    { name: 'Claim', type: 'string', description: 'The claim bound to the volume.', cell: (o) => (specOf(o).claimRef ? `${specOf(o).claimRef!.namespace ?? ''}/${specOf(o).claimRef!.name ?? ''}` : '') },
    { name: 'StorageClass', type: 'string', description: 'The storage class of the volume.', cell: (o) => o.metadata?.annotations?.['volume.beta.kubernetes.io/storage-class'] ?? specOf(o).storageClassName ?? '' },
    { name: 'VolumeAttributesClass', type: 'string', description: 'The volume attributes class of the volume.', cell: (o) => specOf(o).volumeAttributesClassName ?? '<unset>' },
    { name: 'Reason', type: 'string', description: 'Why the volume is in its phase.', cell: (o) => (o.status as { reason?: string } | undefined)?.reason ?? '' },
    { name: 'Age', type: 'string', description: 'Time since the volume was created.', cell: ageCell },
    { name: 'VolumeMode', type: 'string', priority: 1, description: 'Filesystem or Block.', cell: (o) => specOf(o).volumeMode ?? '<unset>' },
  ],
  strategy: {
    default: (_ctx, obj) => {
      const spec = ((obj.spec as Spec | undefined) ??= {}) as Spec;
      if (!spec.persistentVolumeReclaimPolicy) spec.persistentVolumeReclaimPolicy = 'Retain';
      spec.volumeMode ??= 'Filesystem';
    },
    // A new volume is Pending, as of its creation.
    prepareForCreate: (ctx, obj) => {
      obj.status = { phase: 'Pending', lastPhaseTransitionTime: new Date().toISOString().replace(/\.\d{3}Z$/, 'Z') };
      dropDisabledVolumeSpecFields(ctx, specOf(obj));
    },
    // The store has already put the stored status back; the spec may not start using gated fields.
    prepareForUpdate: (ctx, obj, old) => dropDisabledVolumeSpecFields(ctx, specOf(obj), specOf(old)),
    validate: (_ctx, obj) => persistentVolumeSpecErrors(specOf(obj), field.path('spec'), false),
    validateUpdate: (_ctx, obj, old) => validateUpdate(obj, old),
  },
});
