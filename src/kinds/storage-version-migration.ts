import type { FieldError } from '../api/errors.ts';
import type { KubeObject } from '../api/types.ts';
import { goStruct } from '../api/go/values.ts';
import { qualifiedNameErrors, regexError } from '../api/validation/names.ts';
import { defineKind } from '../registry/kind.ts';
import { NAME_DESCRIPTION } from '../registry/table.ts';
import * as field from '../registry/validation/field.ts';
import { statusResettingMetadata } from './status-reset-metadata.ts';

type Resource = { group?: string; version?: string; resource?: string };
type Condition = { type?: string; status?: string; lastUpdateTime?: string; reason?: string; message?: string };
type Status = { conditions?: Condition[]; resourceVersion?: string };

const resourceOf = (obj: KubeObject) => ((obj.spec as { resource?: Resource } | undefined)?.resource ?? {}) as Resource;
const statusOf = (obj: KubeObject) => (obj.status ?? {}) as Status;
const IMMUTABLE = 'field is immutable';
const STATUSES = ['False', 'True', 'Unknown'];
const REASON_FMT = '[A-Za-z]([A-Za-z0-9_,:]*[A-Za-z0-9_])?';
const REASON_RE = new RegExp(`^${REASON_FMT}$`);
const REASON_MSG = "a condition reason must start with alphabetic character, optionally followed by a string of alphanumeric characters or '_,:', and must end with an alphanumeric character or '_'";
const MAX_REASON = 1024;
const MAX_MESSAGE = 32 * 1024;
const INT64_MAX = 2n ** 63n - 1n;

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

/**
 * A migration condition, as v1alpha1 judges its own condition type: metav1's condition rules, but
 * the time is lastUpdateTime (reported under lastTransitionTime) and the requirements carry no text.
 */
function conditionErrors(c: Condition, at: field.FieldPath): FieldError[] {
  const errs: FieldError[] = [];
  const type = c.type ?? '';
  for (const msg of qualifiedNameErrors(type)) errs.push(field.invalid(at.child('type'), type, msg));
  if (!STATUSES.includes(c.status ?? '')) errs.push(field.notSupported(at.child('status'), c.status ?? '', STATUSES));
  if (!c.lastUpdateTime) errs.push(field.required(at.child('lastTransitionTime')));
  const reason = c.reason ?? '';
  if (!reason) {
    errs.push(field.required(at.child('reason')));
  } else {
    if (!REASON_RE.test(reason)) errs.push(field.invalid(at.child('reason'), reason, regexError(REASON_MSG, REASON_FMT, 'my_name', 'MY_NAME', 'MyName', 'ReasonA,ReasonB', 'ReasonA:ReasonB')));
    if (Buffer.byteLength(reason) > MAX_REASON) errs.push(field.tooLong(at.child('reason'), MAX_REASON));
  }
  if (Buffer.byteLength(c.message ?? '') > MAX_MESSAGE) errs.push(field.tooLong(at.child('message'), MAX_MESSAGE));
  return errs;
}

/** Go's strconv.ParseInt(rv, 10, 64): the number, or the error text. */
function parseInt64(rv: string): bigint | string {
  const failure = (why: string) => `failed to parse resource version "${rv}": strconv.ParseInt: parsing "${rv}": ${why}`;
  if (!/^[+-]?\d+$/.test(rv)) return failure('invalid syntax');
  const n = BigInt(rv);
  return n > INT64_MAX || n < -INT64_MAX - 1n ? failure('value out of range') : n;
}

const isTrue = (obj: KubeObject, type: string) => statusOf(obj).conditions?.find((c) => c.type === type)?.status === 'True';

/** Upstream's ValidateStorageVersionMigrationStatusUpdate. */
function validateStatus(obj: KubeObject, old: KubeObject): FieldError[] {
  const at = field.path('status');
  const rvPath = at.child('resourceVersion');
  const errs: FieldError[] = [];
  const rv = statusOf(obj).resourceVersion ?? '';
  const parsed = rv === '' ? 0n : parseInt64(rv);
  if (typeof parsed === 'string') errs.push(field.invalid(rvPath, rv, parsed));
  else if (parsed < 0n) {
    // Go prints the int64 itself; past JavaScript's safe range only its text is exact.
    const shown = Number.isSafeInteger(Number(parsed)) ? {} : { rawValue: parsed.toString() };
    errs.push({ ...field.invalid(rvPath, Number(parsed), 'must be greater than or equal to 0'), ...shown });
  }
  const conditions = statusOf(obj).conditions ?? [];
  const seen = new Set<string>();
  conditions.forEach((c, i) => {
    const p = at.child('conditions').index(i);
    if (seen.has(c.type ?? '')) errs.push(field.duplicate(p.child('type'), c.type ?? ''));
    seen.add(c.type ?? '');
    errs.push(...conditionErrors(c, p));
  });
  const oldRv = statusOf(old).resourceVersion ?? '';
  if (oldRv !== '' && oldRv !== rv) errs.push(field.invalid(rvPath, rv, 'cannot be updated'));
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

/** `resource.version.group`, as upstream prints the migrated resource. */
function migrated(obj: KubeObject): string {
  const r = resourceOf(obj);
  return `${r.resource ?? ''}.${r.version ?? ''}.${r.group ?? ''}`;
}

/** storagemigration.k8s.io/v1alpha1 StorageVersionMigration: rewrite every stored object of a resource (alpha, off by default). */
export const storageVersionMigrations = defineKind({
  group: 'storagemigration.k8s.io',
  version: 'v1alpha1',
  kind: 'StorageVersionMigration',
  plural: 'storageversionmigrations',
  namespaced: false,
  schemaMessage: 'k8s.io.api.storagemigration.v1alpha1.StorageVersionMigration',
  // Upstream's prerelease lifecycle for this alpha version (introduced 1.30): deprecated three
  // releases later, removed three after that; requests are warned accordingly.
  deprecation: { deprecated: { major: 1, minor: 33 }, removed: { major: 1, minor: 36 } },
  // Alpha APIs are served only when --runtime-config turns them on.
  enabledByDefault: false,
  allowUnconditionalUpdate: false,
  subresources: [statusResettingMetadata({ validateUpdate: (_ctx, obj, old) => validateStatus(obj, old) })],
  // Upstream's table is the name (without the name format) and the resource, with no Age column.
  tableColumns: [
    { name: 'Name', type: 'string', description: NAME_DESCRIPTION, cell: (o) => o.metadata?.name ?? '' },
    { name: 'Resource', type: 'string', description: 'The fully qualified resource the migration rewrites.', cell: migrated },
  ],
  strategy: {
    // Status is the migration controller's: a create starts it empty.
    prepareForCreate: (_ctx, obj) => {
      obj.status = {};
    },
    validate: (_ctx, obj) => validate(obj),
    validateUpdate: (_ctx, obj, old) => validateUpdate(obj, old),
  },
});
