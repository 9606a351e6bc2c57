/**
 * The rules RBAC objects share (upstream's pkg/apis/rbac/validation): policy rules, role references,
 * subjects, and the defaults of rbac.authorization.k8s.io/v1. Used by role.ts, cluster-role.ts,
 * role-binding.ts and cluster-role-binding.ts.
 */
import type { FieldError } from '../api/errors.ts';
import type { KubeObject } from '../api/types.ts';
import { goStruct } from '../api/go/values.ts';
import { dns1123SubdomainErrors, pathSegmentNameErrors } from '../api/validation/names.ts';
import type { TableColumn } from '../registry/kind.ts';
import { canonicalJson } from '../registry/system-fields.ts';
import * as field from '../registry/validation/field.ts';

export const RBAC_GROUP = 'rbac.authorization.k8s.io';

export interface PolicyRule {
  verbs?: string[];
  apiGroups?: string[];
  resources?: string[];
  resourceNames?: string[];
  nonResourceURLs?: string[];
}
export interface RoleRef {
  apiGroup?: string;
  kind?: string;
  name?: string;
}
export interface Subject {
  kind?: string;
  apiGroup?: string;
  name?: string;
  namespace?: string;
}
type Binding = KubeObject & { roleRef?: RoleRef; subjects?: Subject[] };

const len = (a: unknown[] | undefined) => a?.length ?? 0;

/** A Role's or ClusterRole's rules; only cluster roles may name non-resource URLs. */
export function policyRuleErrors(rules: PolicyRule[] | undefined, namespaced: boolean): FieldError[] {
  const errs: FieldError[] = [];
  (rules ?? []).forEach((rule, i) => {
    const at = field.path('rules').index(i);
    if (len(rule.verbs) === 0) errs.push(field.required(at.child('verbs'), 'verbs must contain at least one value'));
    if (len(rule.nonResourceURLs) > 0) {
      if (namespaced) errs.push(field.invalid(at.child('nonResourceURLs'), rule.nonResourceURLs, 'namespaced rules cannot apply to non-resource URLs'));
      if (len(rule.apiGroups) > 0 || len(rule.resources) > 0 || len(rule.resourceNames) > 0) {
        errs.push(field.invalid(at.child('nonResourceURLs'), rule.nonResourceURLs, 'rules cannot apply to both regular resources and non-resource URLs'));
      }
      return;
    }
    if (len(rule.apiGroups) === 0) errs.push(field.required(at.child('apiGroups'), 'resource rules must supply at least one api group'));
    if (len(rule.resources) === 0) errs.push(field.required(at.child('resources'), 'resource rules must supply at least one resource'));
  });
  return errs;
}

/** A binding's roleRef and subjects; `roleKinds` are the kinds it may refer to. */
export function bindingErrors(obj: KubeObject, roleKinds: readonly string[], namespaced: boolean): FieldError[] {
  const b = obj as Binding;
  const ref = b.roleRef ?? {};
  const errs: FieldError[] = [];
  if ((ref.apiGroup ?? '') !== RBAC_GROUP) errs.push(field.notSupported(field.path('roleRef', 'apiGroup'), ref.apiGroup ?? '', [RBAC_GROUP]));
  if (!roleKinds.includes(ref.kind ?? '')) errs.push(field.notSupported(field.path('roleRef', 'kind'), ref.kind ?? '', roleKinds));
  if (!ref.name) errs.push(field.required(field.path('roleRef', 'name')));
  else for (const msg of pathSegmentNameErrors(ref.name)) errs.push(field.invalid(field.path('roleRef', 'name'), ref.name, msg));
  (b.subjects ?? []).forEach((s, i) => errs.push(...subjectErrors(s, namespaced, field.path('subjects').index(i))));
  return errs;
}

function subjectErrors(s: Subject, namespaced: boolean, at: field.FieldPath): FieldError[] {
  const errs: FieldError[] = [];
  const name = s.name ?? '';
  const apiGroup = s.apiGroup ?? '';
  if (name === '') errs.push(field.required(at.child('name')));
  switch (s.kind) {
    case 'ServiceAccount':
      if (name !== '') for (const msg of dns1123SubdomainErrors(name)) errs.push(field.invalid(at.child('name'), name, msg));
      if (apiGroup !== '') errs.push(field.notSupported(at.child('apiGroup'), apiGroup, ['']));
      if (!namespaced && !s.namespace) errs.push(field.required(at.child('namespace')));
      break;
    case 'User':
    case 'Group':
      if (apiGroup !== RBAC_GROUP) errs.push(field.notSupported(at.child('apiGroup'), apiGroup, [RBAC_GROUP]));
      break;
    default:
      errs.push(field.notSupported(at.child('kind'), s.kind ?? '', ['ServiceAccount', 'User', 'Group']));
  }
  return errs;
}

/** roleRef may never change: a different role is a new binding. */
export function roleRefUpdateErrors(obj: KubeObject, old: KubeObject): FieldError[] {
  const ref = (obj as Binding).roleRef ?? {};
  if (canonicalJson(ref) === canonicalJson((old as Binding).roleRef ?? {})) return [];
  // Upstream prints its internal RoleRef struct.
  return [field.invalid('roleRef', goStruct({ APIGroup: ref.apiGroup ?? '', Kind: ref.kind ?? '', Name: ref.name ?? '' }), 'cannot change roleRef')];
}

/** The v1 defaults: roleRef in the RBAC group; User and Group subjects in it too. */
export function defaultBinding(obj: KubeObject): void {
  const b = obj as Binding;
  if (b.roleRef && !b.roleRef.apiGroup) b.roleRef.apiGroup = RBAC_GROUP;
  for (const s of b.subjects ?? []) {
    if (!s.apiGroup && (s.kind === 'User' || s.kind === 'Group')) s.apiGroup = RBAC_GROUP;
  }
}

const subjectsOf = (o: KubeObject, kind: string) => ((o as Binding).subjects ?? []).filter((s) => s.kind === kind);

/** The columns of `kubectl get rolebindings` and `clusterrolebindings`. */
export const BINDING_COLUMNS: TableColumn[] = [
  { name: 'Role', type: 'string', description: 'The role the binding grants, as Kind/name.', cell: (o) => `${(o as Binding).roleRef?.kind ?? ''}/${(o as Binding).roleRef?.name ?? ''}` },
  { name: 'Users', type: 'string', priority: 1, description: 'The users the binding applies to.', cell: (o) => subjectsOf(o, 'User').map((s) => s.name).join(', ') },
  { name: 'Groups', type: 'string', priority: 1, description: 'The groups the binding applies to.', cell: (o) => subjectsOf(o, 'Group').map((s) => s.name).join(', ') },
  {
    name: 'ServiceAccounts',
    type: 'string',
    priority: 1,
    description: 'The service accounts the binding applies to, as namespace:name.',
    cell: (o) => subjectsOf(o, 'ServiceAccount').map((s) => `${s.namespace ?? ''}:${s.name ?? ''}`).join(', '),
  },
];
