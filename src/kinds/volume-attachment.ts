import type { FieldError } from '../api/errors.ts';
import type { KubeObject } from '../api/types.ts';
import { goStruct } from '../api/go/values.ts';
import { dns1123SubdomainErrors } from '../api/validation/names.ts';
import { defineKind } from '../registry/kind.ts';
import { canonicalJson } from '../registry/system-fields.ts';
import { statusSubresource } from '../registry/subresources.ts';
import * as field from '../registry/validation/field.ts';
import { persistentVolumeSpecErrors } from './persistent-volume.ts';
import { csiDriverNameErrors } from './volume-sources.ts';
import { ageCell } from './columns.ts';

type Spec = { attacher?: string; nodeName?: string; source?: { persistentVolumeName?: string; inlineVolumeSpec?: Record<string, any> | null } };
type Status = { attached?: boolean; attachmentMetadata?: Record<string, string>; attachError?: { message?: string } | null; detachError?: { message?: string } | null };

const specOf = (obj: KubeObject) => (obj.spec ?? {}) as Spec;
const statusOf = (obj: KubeObject) => (obj.status ?? {}) as Status;
const MAX_METADATA = 256 * 1024;
const MAX_ERROR_MESSAGE = 1024;

function statusErrors(obj: KubeObject): FieldError[] {
  const status = statusOf(obj);
  const at = field.path('status');
  const errs: FieldError[] = [];
  const size = Object.entries(status.attachmentMetadata ?? {}).reduce((n, [k, v]) => n + Buffer.byteLength(k) + Buffer.byteLength(v), 0);
  if (size > MAX_METADATA) errs.push(field.tooLong(at.child('attachmentMetadata'), MAX_METADATA));
  for (const name of ['attachError', 'detachError'] as const) {
    // Upstream checks messages against 1 KiB but names the metadata limit in the error.
    if ((status[name]?.message ?? '').length > MAX_ERROR_MESSAGE) errs.push(field.tooLong(at.child(name, 'message'), MAX_METADATA));
  }
  return errs;
}

/** ValidateVolumeAttachment plus its v1 checks. */
function validate(obj: KubeObject): FieldError[] {
  const spec = specOf(obj);
  const at = field.path('spec');
  const errs: FieldError[] = [];
  if (!spec.attacher) errs.push(field.required(at.child('attacher')));
  const source = spec.source ?? {};
  const sp = at.child('source');
  const hasPv = source.persistentVolumeName !== undefined;
  const hasInline = !!source.inlineVolumeSpec;
  if (!hasPv && !hasInline) errs.push(field.required(sp, 'must specify exactly one of inlineVolumeSpec and persistentVolumeName'));
  else if (hasPv && hasInline) errs.push(field.forbidden(sp, 'must specify exactly one of inlineVolumeSpec and persistentVolumeName'));
  else if (hasPv && source.persistentVolumeName === '') errs.push(field.required(sp.child('persistentVolumeName'), 'must specify non empty persistentVolumeName'));
  else if (hasInline) errs.push(...persistentVolumeSpecErrors(source.inlineVolumeSpec!, sp.child('inlineVolumeSpec'), true));
  const node = spec.nodeName ?? '';
  for (const msg of dns1123SubdomainErrors(node)) errs.push(field.invalid(at.child('nodeName'), node, msg));
  errs.push(...statusErrors(obj));
  // The v1 checks: the attacher is a CSI driver name, the volume name an object name.
  errs.push(...csiDriverNameErrors(spec.attacher, field.path('spec.attacher')));
  if (source.persistentVolumeName) for (const msg of dns1123SubdomainErrors(source.persistentVolumeName)) errs.push(field.invalid('spec.source.persistentVolumeName', source.persistentVolumeName, msg));
  return errs;
}


/** storage.k8s.io/v1 VolumeAttachment: attach a volume to a node (for external attachers). */
export const volumeAttachments = defineKind({
  group: 'storage.k8s.io',
  version: 'v1',
  kind: 'VolumeAttachment',
  plural: 'volumeattachments',
  namespaced: false,
  schemaMessage: 'k8s.io.api.storage.v1.VolumeAttachment',
  subresources: [statusSubresource({ validateUpdate: (_ctx, obj) => statusErrors(obj) })],
  tableColumns: [
    { name: 'Name', type: 'string', format: 'name', description: 'The name of the attachment.', cell: (o) => o.metadata?.name ?? '' },
    { name: 'Attacher', type: 'string', description: 'The CSI driver that attaches the volume.', cell: (o) => specOf(o).attacher ?? '' },
    { name: 'PV', type: 'string', description: 'The persistent volume attached.', cell: (o) => specOf(o).source?.persistentVolumeName ?? '' },
    { name: 'Node', type: 'string', description: 'The node the volume is attached to.', cell: (o) => specOf(o).nodeName ?? '' },
    { name: 'Attached', type: 'boolean', description: 'Whether the volume is attached.', cell: (o) => statusOf(o).attached ?? false },
    { name: 'Age', type: 'string', description: 'Time since the attachment was created.', cell: ageCell },
  ],
  strategy: {
    // Status is the attacher's: a create starts it from "not attached" (Go's zero status).
    prepareForCreate: (_ctx, obj) => {
      obj.status = { attached: false };
    },
    validate: (_ctx, obj) => validate(obj),
    validateUpdate: (_ctx, obj, old) => {
      const errs = validate(obj);
      const spec = specOf(obj);
      // Upstream shows its internal spec struct.
      const shown = goStruct({ Attacher: spec.attacher ?? '', Source: goStruct({ PersistentVolumeName: spec.source?.persistentVolumeName ?? null, InlineVolumeSpec: spec.source?.inlineVolumeSpec ?? null }), NodeName: spec.nodeName ?? '' });
      if (canonicalJson(spec) !== canonicalJson(specOf(old))) errs.push(field.invalid('spec', shown, 'field is immutable'));
      return errs;
    },
  },
});
