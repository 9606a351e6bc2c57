import type { FieldError } from '../api/errors.ts';
import type { KubeObject } from '../api/types.ts';
import { parseQuantity, quantityString } from '../api/go/quantity.ts';
import { goStruct } from '../api/go/values.ts';
import { defineKind } from '../registry/kind.ts';
import { statusSubresource } from '../registry/subresources.ts';
import { NAME_DESCRIPTION } from '../registry/table.ts';
import * as field from '../registry/validation/field.ts';
import { isStandardQuotaResource, quantityValueErrors, resourceNameErrors } from './core-resources.ts';
import { ageCell } from './columns.ts';

type Quantities = Record<string, string>;
type Requirement = { scopeName?: string; operator?: string; values?: string[] | null };
type Spec = { hard?: Quantities; scopes?: string[] | null; scopeSelector?: { matchExpressions?: Requirement[] | null } | null };
type Status = { hard?: Quantities; used?: Quantities };

const specOf = (obj: KubeObject) => (obj.spec ?? {}) as Spec;
const statusOf = (obj: KubeObject) => (obj.status ?? {}) as Status;
const SCOPES = ['Terminating', 'NotTerminating', 'BestEffort', 'NotBestEffort', 'PriorityClass', 'CrossNamespacePodAffinity', 'VolumeAttributesClass'];
const POD_COUNT = new Set(['pods']);
const POD_COMPUTE = new Set(['cpu', 'memory', 'limits.cpu', 'limits.memory', 'requests.cpu', 'requests.memory']);
const PVC = new Set(['persistentvolumeclaims', 'requests.storage']);
const CONFLICTING = [
  ['BestEffort', 'NotBestEffort'],
  ['Terminating', 'NotTerminating'],
];
/** Scopes a selector may only test for presence. */
const EXISTS_ONLY = new Set(['BestEffort', 'NotBestEffort', 'Terminating', 'NotTerminating', 'CrossNamespacePodAffinity']);
const EXISTS_ONLY_TEXT =
  "must be 'Exists' when scope is any of ResourceQuotaScopeTerminating, ResourceQuotaScopeNotTerminating, ResourceQuotaScopeBestEffort, ResourceQuotaScopeNotBestEffort or ResourceQuotaScopeCrossNamespacePodAffinity";
const sortedKeys = (m: Quantities | undefined) => Object.keys(m ?? {}).sort();

/** IsResourceQuotaScopeValidForResource: which standard resources a scope can track. */
function scopeFits(scope: string, resource: string): boolean {
  switch (scope) {
    case 'Terminating':
    case 'NotTerminating':
    case 'NotBestEffort':
    case 'PriorityClass':
    case 'CrossNamespacePodAffinity':
      return POD_COUNT.has(resource) || POD_COMPUTE.has(resource);
    case 'BestEffort':
      return POD_COUNT.has(resource);
    case 'VolumeAttributesClass':
      return PVC.has(resource);
    default:
      return true;
  }
}

/** One error per hard resource the scope cannot track (upstream repeats it per resource). */
const misappliedCount = (scope: string, hard: Quantities | undefined) => sortedKeys(hard).filter((k) => isStandardQuotaResource(k) && !scopeFits(scope, k)).length;

/** ValidateResourceQuotaResourceName: also a quota resource when unprefixed. */
function quotaResourceNameErrors(name: string, at: field.PathLike): FieldError[] {
  const errs = resourceNameErrors(name, at);
  if (!name.includes('/') && !isStandardQuotaResource(name)) errs.push(field.invalid(at, name, 'must be a standard resource for quota'));
  return errs;
}

function quantitiesErrors(values: Quantities | undefined, at: field.FieldPath): FieldError[] {
  return sortedKeys(values).flatMap((k) => [...quotaResourceNameErrors(k, at.key(k)), ...quantityValueErrors(k, values![k]!, at.key(k))]);
}

/** validateResourceQuotaScopes: every error names the whole scopes list. */
function scopesErrors(spec: Spec): FieldError[] {
  const scopes = spec.scopes ?? [];
  if (scopes.length === 0) return [];
  const at = field.path('spec', 'scopes');
  const errs: FieldError[] = [];
  for (const scope of scopes) {
    if (!SCOPES.includes(scope)) errs.push(field.invalid(at, scopes, 'unsupported scope'));
    for (let n = misappliedCount(scope, spec.hard); n > 0; n--) errs.push(field.invalid(at, scopes, 'unsupported scope applied to resource'));
  }
  for (const pair of CONFLICTING) if (pair.every((s) => scopes.includes(s))) errs.push(field.invalid(at, scopes, 'conflicting scopes'));
  return errs;
}

/**
 * validateScopedResourceSelectorRequirement: paths name `matchExpressions` without an index, a
 * misapplied scope shows the whole selector (as Go's JSON of the internal struct) and conflicting
 * scopes show spec.scopes, as upstream reports them.
 */
function scopeSelectorErrors(spec: Spec): FieldError[] {
  if (!spec.scopeSelector) return [];
  const at = field.path('spec', 'scopeSelector', 'matchExpressions');
  const exprs = spec.scopeSelector.matchExpressions ?? [];
  const shown = goStruct({ MatchExpressions: exprs.map((r) => goStruct({ ScopeName: r.scopeName ?? '', Operator: r.operator ?? '', Values: r.values ?? null })) });
  const errs: FieldError[] = [];
  const seen = new Set<string>();
  for (const req of exprs) {
    const scope = req.scopeName ?? '';
    const operator = req.operator ?? '';
    const values = req.values ?? [];
    if (!SCOPES.includes(scope)) errs.push(field.invalid(at.child('scopeName'), scope, 'unsupported scope'));
    for (let n = misappliedCount(scope, spec.hard); n > 0; n--) errs.push(field.invalid(at, shown, 'unsupported scope applied to resource'));
    if (EXISTS_ONLY.has(scope) && operator !== 'Exists') errs.push(field.invalid(at.child('operator'), operator, EXISTS_ONLY_TEXT));
    if (operator === 'In' || operator === 'NotIn') {
      if (values.length === 0) errs.push(field.required(at.child('values'), "must be at least one value when `operator` is 'In' or 'NotIn' for scope selector"));
    } else if (operator === 'Exists' || operator === 'DoesNotExist') {
      if (values.length > 0) errs.push(field.invalid(at.child('values'), values, "must be no value when `operator` is 'Exist' or 'DoesNotExist' for scope selector"));
    } else {
      errs.push(field.invalid(at.child('operator'), operator, 'not a valid selector operator'));
    }
    seen.add(scope);
  }
  for (const pair of CONFLICTING) if (pair.every((s) => seen.has(s))) errs.push(field.invalid(at, spec.scopes ?? null, 'conflicting scopes'));
  return errs;
}

function specErrors(obj: KubeObject): FieldError[] {
  const spec = specOf(obj);
  return [...quantitiesErrors(spec.hard, field.path('spec', 'hard')), ...scopesErrors(spec), ...scopeSelectorErrors(spec)];
}

/** ValidateResourceQuotaStatus: the same name and value rules for status.hard and status.used. */
function statusErrors(obj: KubeObject): FieldError[] {
  const status = statusOf(obj);
  return [...quantitiesErrors(status.hard, field.path('status', 'hard')), ...quantitiesErrors(status.used, field.path('status', 'used'))];
}

/** Go's omitempty leaves empty hard and used maps off the wire. */
function dropEmptyMaps(obj: KubeObject): void {
  const spec = obj.spec as Spec | undefined;
  const status = obj.status as Status | undefined;
  if (spec?.hard && Object.keys(spec.hard).length === 0) delete spec.hard;
  if (status?.hard && Object.keys(status.hard).length === 0) delete status.hard;
  if (status?.used && Object.keys(status.used).length === 0) delete status.used;
}

/**
 * `resource: used/hard, …` over the resources of status.hard (what the controller enforces, not
 * spec.hard), limits.* in the Limit column and the rest in Request; a missing quantity prints 0.
 */
function usage(obj: KubeObject, limits: boolean): string {
  const status = statusOf(obj);
  const shown = (text: string | undefined) => {
    const q = text === undefined ? undefined : parseQuantity(text);
    return q ? quantityString(q) : '0';
  };
  return sortedKeys(status.hard)
    .filter((k) => {
      const pieces = k.split('.');
      return (pieces.length > 1 && pieces[0] === 'limits') === limits;
    })
    .map((k) => `${k}: ${shown(status.used?.[k])}/${shown(status.hard?.[k])}`)
    .join(', ');
}

/** core v1 ResourceQuota: per-namespace limits on aggregate resource use and object counts. */
export const resourceQuotas = defineKind({
  group: '',
  version: 'v1',
  kind: 'ResourceQuota',
  plural: 'resourcequotas',
  shortNames: ['quota'],
  namespaced: true,
  schemaMessage: 'k8s.io.api.core.v1.ResourceQuota',
  // As upstream: a delete answers with the deleted quota.
  returnDeletedObject: true,
  // The status strategy keeps spec and judges only status (ValidateResourceQuotaStatusUpdate).
  subresources: [statusSubresource({ validateUpdate: (_ctx, obj) => statusErrors(obj) })],
  // Upstream's table puts Age second, before the usage columns.
  tableColumns: [
    { name: 'Name', type: 'string', format: 'name', description: NAME_DESCRIPTION, cell: (o) => o.metadata?.name ?? '' },
    { name: 'Age', type: 'string', description: 'Time since the quota was created.', cell: ageCell },
    { name: 'Request', type: 'string', description: 'Used and hard amounts of every resource but the limits.* ones.', cell: (o) => usage(o, false) },
    { name: 'Limit', type: 'string', description: 'Used and hard amounts of the limits.* resources.', cell: (o) => usage(o, true) },
  ],
  strategy: {
    default: (_ctx, obj) => dropEmptyMaps(obj),
    // Status is the quota controller's: a create starts it empty (Go's zero struct); an update of the
    // main resource keeps the stored status (the machinery does that for kinds with /status).
    prepareForCreate: (_ctx, obj) => {
      obj.status = {};
    },
    validate: (_ctx, obj) => [...specErrors(obj), ...statusErrors(obj)],
    validateUpdate: (_ctx, obj, old) => {
      const errs = specErrors(obj);
      const now = new Set(specOf(obj).scopes ?? []);
      const before = new Set(specOf(old).scopes ?? []);
      if (now.size !== before.size || [...now].some((s) => !before.has(s))) errs.push(field.immutable(field.path('spec', 'scopes'), specOf(obj).scopes ?? null));
      return errs;
    },
  },
});
