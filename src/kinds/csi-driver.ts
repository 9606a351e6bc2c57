import type { FieldError } from '../api/errors.ts';
import type { KubeObject } from '../api/types.ts';
import type { RequestContext } from '../api/request-context.ts';
import { canonicalJson } from '../registry/system-fields.ts';
import { defineKind } from '../registry/kind.ts';
import * as field from '../registry/validation/field.ts';
import { dropDisabledDriverSpecFields, SELINUX_MOUNT_GATE } from './csi-driver-gated-fields.ts';

type TokenRequest = { audience?: string; expirationSeconds?: number };
type CSIDriverSpec = {
  attachRequired?: boolean;
  podInfoOnMount?: boolean;
  volumeLifecycleModes?: string[];
  storageCapacity?: boolean;
  fsGroupPolicy?: string;
  tokenRequests?: TokenRequest[];
  requiresRepublish?: boolean;
  seLinuxMount?: boolean;
  nodeAllocatableUpdatePeriodSeconds?: number;
};

const specOf = (obj: KubeObject) => (obj.spec ?? {}) as CSIDriverSpec;
const FS_GROUP_POLICIES = ['File', 'None', 'ReadWriteOnceWithFSType'];
const LIFECYCLE_MODES = ['Persistent', 'Ephemeral'];
const MIN_TOKEN_SECONDS = 600;
const MAX_TOKEN_SECONDS = 2 ** 32;
// Upstream's paths spell attachRequired as "attachedRequired"; clients see that spelling.
const ATTACH_REQUIRED = field.path('spec', 'attachedRequired');

/** Upstream's defaults for storage.k8s.io/v1 CSIDriver (seLinuxMount only while its gate is on). */
function defaultSpec(ctx: RequestContext, obj: KubeObject): void {
  const spec = ((obj.spec as CSIDriverSpec | undefined) ??= {}) as CSIDriverSpec;
  spec.attachRequired ??= true;
  spec.podInfoOnMount ??= false;
  spec.storageCapacity ??= false;
  spec.fsGroupPolicy ??= 'ReadWriteOnceWithFSType';
  if (!spec.volumeLifecycleModes || spec.volumeLifecycleModes.length === 0) spec.volumeLifecycleModes = ['Persistent'];
  spec.requiresRepublish ??= false;
  if (ctx.featureGates.enabled(SELINUX_MOUNT_GATE)) spec.seLinuxMount ??= false;
}

function validateSpec(ctx: RequestContext, obj: KubeObject): FieldError[] {
  const spec = specOf(obj);
  const at = field.path('spec');
  const errs: FieldError[] = [];
  if (spec.attachRequired === undefined) errs.push(field.required(ATTACH_REQUIRED));
  if (spec.podInfoOnMount === undefined) errs.push(field.required(at.child('podInfoOnMount')));
  if (spec.storageCapacity === undefined) errs.push(field.required(at.child('storageCapacity')));
  if (spec.fsGroupPolicy !== undefined && !FS_GROUP_POLICIES.includes(spec.fsGroupPolicy)) {
    errs.push(field.notSupported(at.child('fsGroupPolicy'), spec.fsGroupPolicy, FS_GROUP_POLICIES));
  }
  const audiences = new Set<string>();
  (spec.tokenRequests ?? []).forEach((t, i) => {
    const p = at.child('tokenRequests').index(i);
    const audience = t.audience ?? '';
    if (audiences.has(audience)) {
      errs.push(field.duplicate(p.child('audience'), audience));
      return;
    }
    audiences.add(audience);
    if (t.expirationSeconds === undefined) return;
    if (t.expirationSeconds < MIN_TOKEN_SECONDS) errs.push(field.invalid(p.child('expirationSeconds'), t.expirationSeconds, 'may not specify a duration less than 10 minutes'));
    if (t.expirationSeconds > MAX_TOKEN_SECONDS) errs.push(field.invalid(p.child('expirationSeconds'), t.expirationSeconds, 'may not specify a duration larger than 2^32 seconds'));
  });
  for (const mode of spec.volumeLifecycleModes ?? []) {
    if (!LIFECYCLE_MODES.includes(mode)) errs.push(field.notSupported(at.child('volumeLifecycleModes'), mode, LIFECYCLE_MODES));
  }
  // Required only while the gate is on (with it off the field is dropped before validation).
  if (spec.seLinuxMount === undefined && ctx.featureGates.enabled(SELINUX_MOUNT_GATE)) errs.push(field.required(at.child('seLinuxMount')));
  const period = spec.nodeAllocatableUpdatePeriodSeconds;
  if (period !== undefined && period < 10) errs.push(field.invalid(at.child('nodeAllocatableUpdatePeriodSeconds'), period, 'must be greater than or equal to 10 seconds'));
  return errs;
}

function validateUpdate(ctx: RequestContext, obj: KubeObject, old: KubeObject): FieldError[] {
  const errs = validateSpec(ctx, obj);
  const spec = specOf(obj);
  const before = specOf(old);
  if (spec.attachRequired !== before.attachRequired) errs.push(field.immutable(ATTACH_REQUIRED, spec.attachRequired ?? null));
  if (canonicalJson(spec.volumeLifecycleModes ?? null) !== canonicalJson(before.volumeLifecycleModes ?? null)) {
    errs.push(field.immutable(field.path('spec', 'volumeLifecycleModes'), spec.volumeLifecycleModes ?? null));
  }
  return errs;
}

/** storage.k8s.io/v1 CSIDriver: how Kubernetes talks to one CSI volume driver. */
export const csiDrivers = defineKind({
  group: 'storage.k8s.io',
  version: 'v1',
  kind: 'CSIDriver',
  plural: 'csidrivers',
  namespaced: false,
  schemaMessage: 'k8s.io.api.storage.v1.CSIDriver',
  // As upstream: a delete answers with the deleted driver.
  returnDeletedObject: true,
  tableColumns: [
    { name: 'AttachRequired', type: 'boolean', description: 'Whether the driver needs an attach operation.', cell: (o) => specOf(o).attachRequired ?? true },
    { name: 'PodInfoOnMount', type: 'boolean', description: 'Whether pod information is passed to the driver on mount.', cell: (o) => specOf(o).podInfoOnMount ?? false },
    { name: 'StorageCapacity', type: 'boolean', description: 'Whether scheduling considers the storage capacity the driver publishes.', cell: (o) => specOf(o).storageCapacity ?? false },
    {
      name: 'TokenRequests',
      type: 'string',
      description: 'The audiences of the service account tokens the driver receives.',
      cell: (o) => (specOf(o).tokenRequests?.length ? specOf(o).tokenRequests!.map((t) => t.audience ?? '').join(',') : '<unset>'),
    },
    { name: 'RequiresRepublish', type: 'boolean', description: 'Whether the driver wants NodePublishVolume called periodically.', cell: (o) => specOf(o).requiresRepublish ?? false },
    { name: 'Modes', type: 'string', description: 'The volume lifecycle modes the driver supports.', cell: (o) => (specOf(o).volumeLifecycleModes ?? []).join(',') || '<none>' },
  ],
  strategy: {
    default: (ctx, obj) => defaultSpec(ctx, obj),
    prepareForCreate: (ctx, obj) => dropDisabledDriverSpecFields(ctx, specOf(obj)),
    prepareForUpdate: (ctx, obj, old) => dropDisabledDriverSpecFields(ctx, specOf(obj), specOf(old)),
    validate: (ctx, obj) => validateSpec(ctx, obj),
    validateUpdate: (ctx, obj, old) => validateUpdate(ctx, obj, old),
  },
});
