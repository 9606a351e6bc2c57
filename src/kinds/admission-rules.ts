/**
 * Rules the admissionregistration kinds share (upstream's admissionregistration validation): rules
 * with operations, match resources and match conditions.
 */
import type { FieldError } from '../api/errors.ts';
import { pathSegmentNameErrors, qualifiedNameErrors } from '../api/validation/names.ts';
import * as field from '../registry/validation/field.ts';
import { labelSelectorErrors, type LabelSelectorValue } from '../registry/validation/label-selector.ts';
import { celErrors } from './admission-cel.ts';

export interface NamedRule {
  operations?: string[];
  apiGroups?: string[];
  apiVersions?: string[];
  resources?: string[];
  scope?: string;
  resourceNames?: string[];
}

export interface MatchResources {
  namespaceSelector?: LabelSelectorValue | null;
  objectSelector?: LabelSelectorValue | null;
  resourceRules?: NamedRule[];
  excludeResourceRules?: NamedRule[];
  matchPolicy?: string;
}

export interface MatchCondition {
  name?: string;
  expression?: string;
}

const OPERATIONS = ['*', 'CONNECT', 'CREATE', 'DELETE', 'UPDATE'];
const SCOPES = ['*', 'Cluster', 'Namespaced'];
export const FAILURE_POLICIES = ['Fail', 'Ignore'];
const MATCH_POLICIES = ['Equivalent', 'Exact'];
const hasWildcard = (list: string[] | undefined) => (list ?? []).includes('*');

/** The v1 defaults of match resources: Equivalent, selectors `{}`, and rules of every scope. */
export function defaultMatchResources(m: MatchResources | null | undefined): void {
  if (!m) return;
  m.matchPolicy ??= 'Equivalent';
  m.namespaceSelector ??= {};
  m.objectSelector ??= {};
  for (const rule of [...(m.resourceRules ?? []), ...(m.excludeResourceRules ?? [])]) rule.scope ??= '*';
}

/** validateResources with subresources allowed: `x/*`, `*\/x`, `*\/*` and `*` exclusions. */
function resourcesErrors(resources: string[] | undefined, at: field.FieldPath): FieldError[] {
  const list = resources ?? [];
  const errs: FieldError[] = [];
  if (list.length === 0) errs.push(field.required(at));
  const withWildcardSub = new Set<string>();
  const subWithWildcardRes = new Set<string>();
  let doubleWildcard = false;
  let singleWildcard = false;
  let withoutSub = false;
  list.forEach((r, i) => {
    if (r === '') {
      errs.push(field.required(at.index(i)));
      return;
    }
    if (r === '*/*') doubleWildcard = true;
    if (r === '*') singleWildcard = true;
    const slash = r.indexOf('/');
    if (slash < 0) {
      withoutSub = r !== '*';
      return;
    }
    const res = r.slice(0, slash);
    const sub = r.slice(slash + 1);
    if (withWildcardSub.has(res)) errs.push(field.invalid(at.index(i), r, `if '${res}/*' is present, must not specify ${r}`));
    if (subWithWildcardRes.has(sub)) errs.push(field.invalid(at.index(i), r, `if '*/${sub}' is present, must not specify ${r}`));
    if (sub === '*') withWildcardSub.add(res);
    if (res === '*') subWithWildcardRes.add(sub);
  });
  if (list.length > 1 && doubleWildcard) errs.push(field.invalid(at, list, "if '*/*' is present, must not specify other resources"));
  if (singleWildcard && withoutSub) errs.push(field.invalid(at, list, "if '*' is present, must not specify other resources without subresources"));
  return errs;
}

/** validateRuleWithOperations (subresources allowed). */
export function ruleWithOperationsErrors(rule: NamedRule, at: field.FieldPath): FieldError[] {
  const errs: FieldError[] = [];
  const ops = rule.operations ?? [];
  if (ops.length === 0) errs.push(field.required(at.child('operations')));
  if (ops.length > 1 && hasWildcard(ops)) errs.push(field.invalid(at.child('operations'), ops, "if '*' is present, must not specify other operations"));
  ops.forEach((op, i) => {
    if (!OPERATIONS.includes(op)) errs.push(field.notSupported(at.child('operations').index(i), op, OPERATIONS));
  });
  const groups = rule.apiGroups ?? [];
  if (groups.length === 0) errs.push(field.required(at.child('apiGroups')));
  if (groups.length > 1 && hasWildcard(groups)) errs.push(field.invalid(at.child('apiGroups'), groups, "if '*' is present, must not specify other API groups"));
  const versions = rule.apiVersions ?? [];
  if (versions.length === 0) errs.push(field.required(at.child('apiVersions')));
  if (versions.length > 1 && hasWildcard(versions)) errs.push(field.invalid(at.child('apiVersions'), versions, "if '*' is present, must not specify other API versions"));
  versions.forEach((v, i) => {
    if (v === '') errs.push(field.required(at.child('apiVersions').index(i)));
  });
  errs.push(...resourcesErrors(rule.resources, at.child('resources')));
  if (rule.scope !== undefined && !SCOPES.includes(rule.scope)) errs.push(field.notSupported(at.child('scope'), rule.scope, SCOPES));
  return errs;
}

function namedRuleErrors(rule: NamedRule, at: field.FieldPath): FieldError[] {
  const errs: FieldError[] = [];
  const seen = new Set<string>();
  (rule.resourceNames ?? []).forEach((name, i) => {
    for (const msg of pathSegmentNameErrors(name)) errs.push(field.invalid(at.child('resourceNames').index(i), name, msg));
    if (seen.has(name)) errs.push(field.duplicate(at.child('resourceNames').index(i), name));
    seen.add(name);
  });
  return [...errs, ...ruleWithOperationsErrors(rule, at)];
}

/** validateMatchResources. */
export function matchResourcesErrors(m: MatchResources | null | undefined, at: field.FieldPath): FieldError[] {
  if (!m) return [];
  const errs: FieldError[] = [];
  if (m.matchPolicy === undefined) errs.push(field.required(at.child('matchPolicy')));
  else if (!MATCH_POLICIES.includes(m.matchPolicy)) errs.push(field.notSupported(at.child('matchPolicy'), m.matchPolicy, MATCH_POLICIES));
  if (!m.namespaceSelector) errs.push(field.required(at.child('namespaceSelector')));
  else errs.push(...labelSelectorErrors(m.namespaceSelector, at.child('namespaceSelector')));
  if (!m.objectSelector) errs.push(field.required(at.child('objectSelector')));
  else errs.push(...labelSelectorErrors(m.objectSelector, at.child('objectSelector')));
  (m.resourceRules ?? []).forEach((r, i) => errs.push(...namedRuleErrors(r, at.child('resourceRules').index(i))));
  (m.excludeResourceRules ?? []).forEach((r, i) => errs.push(...namedRuleErrors(r, at.child('excludeResourceRules').index(i))));
  return errs;
}

/**
 * validateMatchConditions: at most 64, unique qualified names, boolean expressions that compile
 * (with `params` where the policy has a paramKind, never with `variables`).
 */
export function matchConditionsErrors(conditions: MatchCondition[] | undefined, at: field.FieldPath, params: boolean): FieldError[] {
  const list = conditions ?? [];
  const errs: FieldError[] = [];
  if (list.length > 64) errs.push(field.tooMany(at, list.length, 64));
  const names = new Set<string>();
  list.forEach((c, i) => {
    const p = at.index(i);
    const expression = (c.expression ?? '').trim();
    if (!expression) errs.push(field.required(p.child('expression')));
    // The trimmed text is compiled (positions count from it) but the error shows it too.
    else errs.push(...celErrors(expression, p.child('expression'), { params, authorizer: true }, 'bool'));
    const name = c.name ?? '';
    if (!name) errs.push(field.required(p.child('name')));
    else for (const msg of qualifiedNameErrors(name)) errs.push(field.invalid(p.child('name'), name, msg));
    if (name) {
      if (names.has(name)) errs.push(field.duplicate(p.child('name'), name));
      names.add(name);
    }
  });
  return errs;
}
