import type { FieldError } from '../api/errors.ts';
import type { KubeObject } from '../api/types.ts';
import type { RequestContext } from '../api/request-context.ts';
import { goStruct } from '../api/go/values.ts';
import { dns1123SubdomainErrors } from '../api/validation/names.ts';
import { defineKind } from '../registry/kind.ts';
import { canonicalJson } from '../registry/system-fields.ts';
import * as field from '../registry/validation/field.ts';
import { persistentVolumeSpecErrors } from './persistent-volume.ts';
import { statusResettingMetadata } from './status-reset-metadata.ts';
import { csiDriverNameErrors } from './volume-sources.ts';

type VolumeError = { time?: string; message?: string; errorCode?: number } | null;
type Spec = { attacher?: string; nodeName?: string; source?: { persistentVolumeName?: string | null; inlineVolumeSpec?: Record<string, unknown> | null } };
type Status = { attached?: boolean; attachmentMetadata?: Record<string, string> | null; attachError?: VolumeError; detachError?: VolumeError };

const specOf = (obj: KubeObject) => (obj.spec ?? {}) as Spec;
const statusOf = (obj: KubeObject) => (obj.status ?? {}) as Status;
const MAX_METADATA = 256 * 1024;
const MAX_ERROR_MESSAGE = 1024;
const INT32_MAX = 2 ** 31 - 1;
/** The feature gate (off by default in 1.34) under which attachers may report error codes. */
const ERROR_CODE_GATE = 'MutableCSINodeAllocatableCount';

function volumeErrorErrors(e: VolumeError | undefined, at: field.FieldPath): FieldError[] {
  if (!e) return [];
  const errs: FieldError[] = [];
  // Upstream checks messages against 1 KiB but names the metadata limit in the error.
  if (Buffer.byteLength(e.message ?? '') > MAX_ERROR_MESSAGE) errs.push(field.tooLong(at.child('message'), MAX_METADATA));
  if (e.errorCode !== undefined && e.errorCode !== null && e.errorCode < 0) errs.push(field.invalid(at.child('errorCode'), e.errorCode, `must be between 0 and ${INT32_MAX}, inclusive`));
  return errs;
}

function statusErrors(obj: KubeObject): FieldError[] {
  const status = statusOf(obj);
  const at = field.path('status');
  const errs: FieldError[] = [];
  const size = Object.entries(status.attachmentMetadata ?? {}).reduce((n, [k, v]) => n + Buffer.byteLength(k) + Buffer.byteLength(v), 0);
  if (size > MAX_METADATA) errs.push(field.tooLong(at.child('attachmentMetadata'), MAX_METADATA));
  errs.push(...volumeErrorErrors(status.attachError, at.child('attachError')));
  errs.push(...volumeErrorErrors(status.detachError, at.child('detachError')));
  return errs;
}

/** Upstream's ValidateVolumeAttachment (spec and status), common to every version. */
function validateCommon(obj: KubeObject): FieldError[] {
  const spec = specOf(obj);
  const at = field.path('spec');
  const errs: FieldError[] = [];
  if (!spec.attacher) errs.push(field.required(at.child('attacher')));
  const source = spec.source ?? {};
  const sp = at.child('source');
  // Go sees pointers: a present (even empty) name or spec counts as set.
  const hasPv = source.persistentVolumeName != null;
  const hasInline = source.inlineVolumeSpec != null;
  if (!hasPv && !hasInline) errs.push(field.required(sp, 'must specify exactly one of inlineVolumeSpec and persistentVolumeName'));
  else if (hasPv && hasInline) errs.push(field.forbidden(sp, 'must specify exactly one of inlineVolumeSpec and persistentVolumeName'));
  else if (hasPv && source.persistentVolumeName === '') errs.push(field.required(sp.child('persistentVolumeName'), 'must specify non empty persistentVolumeName'));
  else if (hasInline) errs.push(...persistentVolumeSpecErrors(source.inlineVolumeSpec!, sp.child('inlineVolumeSpec'), true));
  const node = spec.nodeName ?? '';
  for (const msg of dns1123SubdomainErrors(node)) errs.push(field.invalid(at.child('nodeName'), node, msg));
  errs.push(...statusErrors(obj));
  return errs;
}

/** The checks v1 adds for new objects: the attacher is a CSI driver name, the volume name an object name. */
function validateV1(obj: KubeObject): FieldError[] {
  const spec = specOf(obj);
  const errs = csiDriverNameErrors(spec.attacher, field.path('spec.attacher'));
  const pv = spec.source?.persistentVolumeName;
  if (pv != null) for (const msg of dns1123SubdomainErrors(pv)) errs.push(field.invalid('spec.source.persistentVolumeName', pv, msg));
  return errs;
}

function validateUpdate(obj: KubeObject, old: KubeObject): FieldError[] {
  // Upstream runs the common rules twice on an update (once more inside its update check).
  const errs = [...validateCommon(obj), ...validateCommon(obj)];
  const spec = specOf(obj);
  if (canonicalJson(spec) !== canonicalJson(specOf(old))) {
    // Upstream shows its internal spec struct.
    const shown = goStruct({ Attacher: spec.attacher ?? '', Source: goStruct({ PersistentVolumeName: spec.source?.persistentVolumeName ?? null, InlineVolumeSpec: spec.source?.inlineVolumeSpec ?? null }), NodeName: spec.nodeName ?? '' });
    errs.push(field.invalid('spec', shown, 'field is immutable'));
  }
  return errs;
}

/** Without the gate, an attacher may not start reporting an error code the stored error lacks. */
function dropNewErrorCodes(ctx: RequestContext, obj: KubeObject, old: KubeObject): KubeObject {
  if (ctx.featureGates.enabled(ERROR_CODE_GATE)) return obj;
  const status = statusOf(obj);
  for (const key of ['attachError', 'detachError'] as const) {
    const now = status[key];
    const before = statusOf(old)[key];
    if (now && (before?.errorCode === undefined || before.errorCode === null)) delete now.errorCode;
  }
  return obj;
}

/** storage.k8s.io/v1 VolumeAttachment: attach a volume to a node (for external attachers). */
export const volumeAttachments = defineKind({
  group: 'storage.k8s.io',
  version: 'v1',
  kind: 'VolumeAttachment',
  plural: 'volumeattachments',
  namespaced: false,
  schemaMessage: 'k8s.io.api.storage.v1.VolumeAttachment',
  allowUnconditionalUpdate: false,
  // The status strategy judges the whole object as an update does (its spec is the stored one).
  subresources: [statusResettingMetadata({ prepareForUpdate: dropNewErrorCodes, validateUpdate: (_ctx, obj, old) => validateUpdate(obj, old) })],
  tableColumns: [
    { name: 'Attacher', type: 'string', format: 'name', description: 'The CSI driver that attaches the volume.', cell: (o) => specOf(o).attacher ?? '' },
    { name: 'PV', type: 'string', description: 'The persistent volume attached.', cell: (o) => specOf(o).source?.persistentVolumeName ?? '' },
    { name: 'Node', type: 'string', description: 'The node the volume is attached to.', cell: (o) => specOf(o).nodeName ?? '' },
    { name: 'Attached', type: 'boolean', description: 'Whether the volume is attached.', cell: (o) => statusOf(o).attached ?? false },
  ],
  strategy: {
    // Status is the attacher's: a create starts it from "not attached" (Go's zero status).
    prepareForCreate: (_ctx, obj) => {
      obj.status = { attached: false };
    },
    validate: (_ctx, obj) => [...validateCommon(obj), ...validateV1(obj)],
    validateUpdate: (_ctx, obj, old) => validateUpdate(obj, old),
  },
});
