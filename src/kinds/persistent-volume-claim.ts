import type { FieldError } from '../api/errors.ts';
import type { KubeObject } from '../api/types.ts';
import { compareQuantities, parseQuantity, quantityString } from '../api/go/quantity.ts';
import { dns1123LabelErrors, dns1123SubdomainErrors } from '../api/validation/names.ts';
import { defineKind } from '../registry/kind.ts';
import { canonicalJson } from '../registry/system-fields.ts';
import * as field from '../registry/validation/field.ts';
import { labelSelectorErrors, type LabelSelectorValue } from '../registry/validation/label-selector.ts';
import { quantityValueErrors } from './core-resources.ts';
import { changes } from './persistent-volume.ts';
import { accessModesColumn, accessModesErrors, classNameErrors, positiveQuantityErrors, VOLUME_MODES } from './storage-common.ts';
import { ageCell } from './columns.ts';
import { statusDroppingGatedFields } from './gated-status.ts';
import { dropDisabledClaimSpecFields, dropDisabledClaimStatusFields } from './persistent-volume-claim-gated-fields.ts';

type Ref = { apiGroup?: string; kind?: string; name?: string; namespace?: string };
export type ClaimSpec = {
  accessModes?: string[];
  selector?: LabelSelectorValue | null;
  resources?: { requests?: Record<string, string>; limits?: Record<string, string> };
  volumeName?: string;
  storageClassName?: string;
  volumeMode?: string;
  dataSource?: Ref | null;
  dataSourceRef?: Ref | null;
  volumeAttributesClassName?: string;
};
type Status = { phase?: string; capacity?: Record<string, string>; accessModes?: string[] };

const specOf = (obj: KubeObject) => (obj.spec ?? {}) as ClaimSpec;
const statusOf = (obj: KubeObject) => (obj.status ?? {}) as Status;
const CLASS_ANNOTATION = 'volume.beta.kubernetes.io/storage-class';

const groupKind = (r: Ref) => (r.apiGroup ? `${r.kind ?? ''}.${r.apiGroup}` : r.kind ?? '');

function dataSourceErrors(r: Ref, at: field.FieldPath, isRef: boolean): FieldError[] {
  const errs: FieldError[] = [];
  if (!r.name) errs.push(field.required(at.child('name')));
  if (!r.kind) errs.push(field.required(at.child('kind')));
  if (!r.apiGroup && r.kind !== 'PersistentVolumeClaim') errs.push(field.notSupported(at, groupKind(r), ['PersistentVolumeClaim']));
  if (r.apiGroup) for (const msg of dns1123SubdomainErrors(r.apiGroup)) errs.push(field.invalid(at.child('apiGroup'), r.apiGroup, msg));
  if (isRef && r.namespace) for (const msg of dns1123LabelErrors(r.namespace)) errs.push(field.invalid(at.child('namespace'), r.namespace, msg));
  return errs;
}

/** Upstream's ValidatePersistentVolumeClaimSpec (also judges ephemeral volume claim templates). */
export function claimSpecErrors(spec: ClaimSpec, at: field.FieldPath): FieldError[] {
  // Upstream reports a missing access mode, then the selector, then the access mode values.
  const modes = accessModesErrors(spec.accessModes, at.child('accessModes'), 'at least 1 access mode is required');
  const missing = spec.accessModes?.length ? [] : modes.splice(0, 1);
  const errs = [...missing, ...labelSelectorErrors(spec.selector, at.child('selector')), ...modes];
  const storage = spec.resources?.requests?.storage;
  const sp = at.child('resources').key('storage');
  if (storage === undefined) errs.push(field.required(sp));
  else {
    const positive = positiveQuantityErrors(storage, sp);
    errs.push(...(positive.length ? positive : quantityValueErrors('storage', storage, sp)));
  }
  if (spec.storageClassName) for (const msg of classNameErrors(spec.storageClassName)) errs.push(field.invalid(at.child('storageClassName'), spec.storageClassName, msg));
  if (spec.volumeMode !== undefined && !VOLUME_MODES.includes(spec.volumeMode)) errs.push(field.notSupported(at.child('volumeMode'), spec.volumeMode, VOLUME_MODES));
  if (spec.dataSource) errs.push(...dataSourceErrors(spec.dataSource, at.child('dataSource'), false));
  if (spec.dataSourceRef) errs.push(...dataSourceErrors(spec.dataSourceRef, at.child('dataSourceRef'), true));
  if (spec.dataSourceRef?.namespace) {
    if (spec.dataSource) errs.push(field.invalid(at, `${at.toString()}.dataSource`, 'may not be specified when dataSourceRef.namespace is specified'));
  } else if (spec.dataSource && spec.dataSourceRef) {
    const a = spec.dataSource;
    const b = spec.dataSourceRef;
    if ((a.apiGroup ?? '') !== (b.apiGroup ?? '') || a.kind !== b.kind || a.name !== b.name) errs.push(field.invalid(at, `${at.toString()}.dataSource`, 'must match dataSourceRef'));
  }
  if (spec.volumeAttributesClassName) for (const msg of classNameErrors(spec.volumeAttributesClassName)) errs.push(field.invalid(at.child('volumeAttributesClassName'), spec.volumeAttributesClassName, msg));
  return errs;
}

/** Upstream's ValidatePersistentVolumeClaimUpdate. */
function validateUpdate(obj: KubeObject, old: KubeObject): FieldError[] {
  const errs = claimSpecErrors(specOf(obj), field.path('spec'));
  const now: ClaimSpec = structuredClone(specOf(obj));
  const was: ClaimSpec = structuredClone(specOf(old));
  // The volume name may be set once (by the binder).
  if (!was.volumeName) was.volumeName = now.volumeName;
  const oldAnnotation = old.metadata?.annotations?.[CLASS_ANNOTATION];
  const newAnnotation = obj.metadata?.annotations?.[CLASS_ANNOTATION];
  if (oldAnnotation !== undefined && newAnnotation === oldAnnotation && was.storageClassName === undefined && now.storageClassName === oldAnnotation) {
    // Moving the class from the beta annotation to the field is allowed.
    delete now.storageClassName;
  } else {
    if ((newAnnotation ?? '') !== (oldAnnotation ?? '')) errs.push(field.invalid(field.path('metadata', 'annotations').key(CLASS_ANNOTATION), newAnnotation ?? '', 'field is immutable'));
    // A claim without class (and no annotation) may be given one.
    if (oldAnnotation === undefined && was.storageClassName === undefined && now.storageClassName !== undefined) delete now.storageClassName;
  }
  const bound = statusOf(obj).phase === 'Bound';
  if (bound && now.resources?.requests) now.resources.requests.storage = specOf(old).resources?.requests?.storage as string;
  if (bound && now.volumeAttributesClassName !== undefined) now.volumeAttributesClassName = was.volumeAttributesClassName;
  if (canonicalJson(now) !== canonicalJson(was)) {
    errs.push(field.forbidden('spec', `spec is immutable after creation except resources.requests and volumeAttributesClassName for bound claims\n${changes(was, now)}`));
  }
  const oldSize = parseQuantity(specOf(old).resources?.requests?.storage ?? '0');
  const newSize = parseQuantity(specOf(obj).resources?.requests?.storage ?? '0');
  const statusSize = parseQuantity(statusOf(old).capacity?.storage ?? '0');
  if (oldSize && newSize && compareQuantities(newSize, oldSize) < 0 && statusSize && compareQuantities(newSize, statusSize) <= 0) {
    errs.push(field.forbidden(field.path('spec', 'resources', 'requests', 'storage'), 'field can not be less than status.capacity'));
  }
  if ((specOf(obj).volumeMode ?? null) !== (specOf(old).volumeMode ?? null)) errs.push(field.immutable('volumeMode', specOf(obj).volumeMode ?? null));
  return errs;
}

/** core v1 PersistentVolumeClaim: a user's request for storage. */
export const persistentVolumeClaims = defineKind({
  group: '',
  version: 'v1',
  kind: 'PersistentVolumeClaim',
  plural: 'persistentvolumeclaims',
  shortNames: ['pvc'],
  namespaced: true,
  schemaMessage: 'k8s.io.api.core.v1.PersistentVolumeClaim',
  // As upstream: a delete answers with the deleted claim.
  returnDeletedObject: true,
  subresources: [statusDroppingGatedFields(dropDisabledClaimStatusFields, { validateUpdate: () => [] })],
  fieldSelectors: { name: ['metadata', 'name'] },
  tableColumns: [
    { name: 'Name', type: 'string', format: 'name', description: 'The name of the claim.', cell: (o) => o.metadata?.name ?? '' },
    { name: 'Status', type: 'string', description: 'The phase of the claim.', cell: (o) => (o.metadata?.deletionTimestamp ? 'Terminating' : statusOf(o).phase ?? '') },
    { name: 'Volume', type: 'string', description: 'The volume bound to the claim.', cell: (o) => specOf(o).volumeName ?? '' },
    { name: 'Capacity', type: 'string', description: 'The capacity of the bound volume.', cell: (o) => (specOf(o).volumeName ? quantityString(parseQuantity(statusOf(o).capacity?.storage ?? '0') ?? parseQuantity('0')!) : '') },
    { name: 'Access Modes', type: 'string', description: 'How the bound volume may be mounted.', cell: (o) => (specOf(o).volumeName ? accessModesColumn(statusOf(o).accessModes) : '') },
    { name: 'StorageClass', type: 'string', description: 'The storage class of the claim.', cell: (o) => o.metadata?.annotations?.[CLASS_ANNOTATION] ?? specOf(o).storageClassName ?? '' },
    { name: 'VolumeAttributesClass', type: 'string', description: 'The volume attributes class of the claim.', cell: (o) => specOf(o).volumeAttributesClassName || '<unset>' },
    { name: 'Age', type: 'string', description: 'Time since the claim was created.', cell: ageCell },
    { name: 'VolumeMode', type: 'string', priority: 1, description: 'Filesystem or Block.', cell: (o) => specOf(o).volumeMode ?? '<unset>' },
  ],
  strategy: {
    default: (_ctx, obj) => {
      const spec = ((obj.spec as ClaimSpec | undefined) ??= {}) as ClaimSpec;
      spec.volumeMode ??= 'Filesystem';
    },
    // Status is the binder's: a create starts it empty.
    prepareForCreate: (ctx, obj) => {
      obj.status = {};
      dropDisabledClaimSpecFields(ctx, specOf(obj));
    },
    // The store has already put the stored status back; the spec may not start using gated fields.
    prepareForUpdate: (ctx, obj, old) => dropDisabledClaimSpecFields(ctx, specOf(obj), specOf(old)),
    validate: (_ctx, obj) => claimSpecErrors(specOf(obj), field.path('spec')),
    validateUpdate: (_ctx, obj, old) => validateUpdate(obj, old),
  },
});
