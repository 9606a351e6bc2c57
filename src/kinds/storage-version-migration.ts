import type { FieldError } from '../api/errors.ts';
import type { KubeObject } from '../api/types.ts';
import { goStruct } from '../api/go/values.ts';
import { defineKind } from '../registry/kind.ts';
import { statusSubresource } from '../registry/subresources.ts';
import { conditionErrors } from '../registry/validation/conditions.ts';
import * as field from '../registry/validation/field.ts';

type Resource = { group?: string; version?: string; resource?: string };
type Condition = { type?: string; status?: string; lastUpdateTime?: string; reason?: string; message?: string };
type Status = { conditions?: Condition[]; resourceVersion?: string };

const resourceOf = (obj: KubeObject) => ((obj.spec as { resource?: Resource } | undefined)?.resource ?? {}) as Resource;
const statusOf = (obj: KubeObject) => (obj.status ?? {}) as Status;
const IMMUTABLE = 'field is immutable';

function validate(obj: KubeObject): FieldError[] {
  const r = resourceOf(obj);
  const errs: FieldError[] = [];
  if (!r.resource) errs.push(field.required(field.path('spec', 'resource', 'resource'), 'resource is required'));
  if (!r.version) errs.push(field.required(field.path('spec', 'resource', 'version'), 'version is required'));
  return errs;
}

function validateUpdate(obj: KubeObject, old: KubeObject): FieldError[] {
  const errs = validate(obj);
  const now = resourceOf(obj);
  const before = resourceOf(old);
  // Upstream names these paths without their spec.resource prefix.
  for (const part of ['group', 'version', 'resource'] as const) {
    if ((now[part] ?? '') !== (before[part] ?? '')) errs.push(field.invalid(part, now[part] ?? '', IMMUTABLE));
  }
  return errs;
}

const isTrue = (obj: KubeObject, type: string) => statusOf(obj).conditions?.find((c) => c.type === type)?.status === 'True';

/** Upstream's ValidateStorageVersionMigrationStatusUpdate. */
function validateStatus(obj: KubeObject, old: KubeObject): FieldError[] {
  const at = field.path('status');
  const errs: FieldError[] = [];
  const rv = statusOf(obj).resourceVersion ?? '';
  let rvInt = 0n;
  if (rv !== '') {
    if (!/^[+-]?\d+$/.test(rv)) errs.push(field.invalid(at.child('resourceVersion'), rv, `failed to parse resource version "${rv}": strconv.ParseInt: parsing "${rv}": invalid syntax`));
    else if (BigInt(rv) > 2n ** 63n - 1n || BigInt(rv) < -(2n ** 63n)) errs.push(field.invalid(at.child('resourceVersion'), rv, `failed to parse resource version "${rv}": strconv.ParseInt: parsing "${rv}": value out of range`));
    else rvInt = BigInt(rv);
  }
  if (rvInt < 0n) errs.push(field.invalid(at.child('resourceVersion'), Number(rvInt), 'must be greater than or equal to 0'));
  const conditions = statusOf(obj).conditions ?? [];
  const seen = new Set<string>();
  conditions.forEach((c, i) => {
    if (seen.has(c.type ?? '')) errs.push(field.duplicate(at.child('conditions').index(i).child('type'), c.type ?? ''));
    seen.add(c.type ?? '');
    // Migration conditions carry lastUpdateTime, which upstream checks under the name lastTransitionTime.
    errs.push(...conditionErrors({ ...c, lastTransitionTime: c.lastUpdateTime }, at.child('conditions').index(i)));
  });
  const oldRv = statusOf(old).resourceVersion ?? '';
  if (oldRv !== '' && oldRv !== rv) errs.push(field.invalid(at.child('resourceVersion'), rv, 'resourceVersion cannot be updated'));
  // Upstream shows its internal condition structs.
  const shown = conditions.map((c) => goStruct({ Type: c.type ?? '', Status: c.status ?? '', LastUpdateTime: c.lastUpdateTime ?? null, Reason: c.reason ?? '', Message: c.message ?? '' }));
  const succeeded = isTrue(obj, 'Succeeded');
  const failed = isTrue(obj, 'Failed');
  const running = isTrue(obj, 'Running');
  if (succeeded && failed) errs.push(field.invalid(at.child('conditions'), shown, 'Both success and failed conditions cannot be true at the same time'));
  if (succeeded && running) errs.push(field.invalid(at.child('conditions'), shown, 'Running condition cannot be true when success condition is true'));
  if (failed && running) errs.push(field.invalid(at.child('conditions'), shown, 'Running condition cannot be true when failed condition is true'));
  if (isTrue(old, 'Succeeded') && !succeeded) errs.push(field.invalid(at.child('conditions'), shown, 'Success condition cannot be set to false once it is true'));
  if (isTrue(old, 'Failed') && !failed) errs.push(field.invalid(at.child('conditions'), shown, 'Failed condition cannot be set to false once it is true'));
  return errs;
}

/** storagemigration.k8s.io/v1alpha1 StorageVersionMigration: rewrite every stored object of a resource (alpha, off by default). */
export const storageVersionMigrations = defineKind({
  group: 'storagemigration.k8s.io',
  version: 'v1alpha1',
  kind: 'StorageVersionMigration',
  plural: 'storageversionmigrations',
  namespaced: false,
  schemaMessage: 'k8s.io.api.storagemigration.v1alpha1.StorageVersionMigration',
  // Alpha APIs are served only when --runtime-config turns them on.
  enabledByDefault: false,
  subresources: [statusSubresource({ validateUpdate: (_ctx, obj, old) => validateStatus(obj, old) })],
  strategy: {
    // Status is the migration controller's: a create starts it empty.
    prepareForCreate: (_ctx, obj) => {
      obj.status = {};
    },
    validate: (_ctx, obj) => validate(obj),
    validateUpdate: (_ctx, obj, old) => validateUpdate(obj, old),
  },
});
