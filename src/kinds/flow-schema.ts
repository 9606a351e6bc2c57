import type { FieldError } from '../api/errors.ts';
import type { KubeObject } from '../api/types.ts';
import { goStruct } from '../api/go/values.ts';
import { dns1123LabelErrors, dns1123SubdomainErrors } from '../api/validation/names.ts';
import { defineKind } from '../registry/kind.ts';
import { NAME_DESCRIPTION } from '../registry/table.ts';
import * as field from '../registry/validation/field.ts';
import { mandatoryFlowSchemaErrors } from './flowcontrol-mandatory.ts';
import { flowcontrolConditionErrors, flowcontrolStatusSubresource } from './flowcontrol-rules.ts';
import { ageCell } from './columns.ts';

type Subject = { kind?: string; user?: { name?: string } | null; group?: { name?: string } | null; serviceAccount?: { name?: string; namespace?: string } | null };
type ResourceRule = { verbs?: string[]; apiGroups?: string[]; resources?: string[]; clusterScope?: boolean; namespaces?: string[] };
type NonResourceRule = { verbs?: string[]; nonResourceURLs?: string[] };
type Rule = { subjects?: Subject[]; resourceRules?: ResourceRule[]; nonResourceRules?: NonResourceRule[] };
type Spec = { priorityLevelConfiguration?: { name?: string }; matchingPrecedence?: number; distinguisherMethod?: { type?: string } | null; rules?: Rule[] };
type Condition = { type?: string; status?: string };

const specOf = (obj: KubeObject) => (obj.spec ?? {}) as Spec;
const MAX_PRECEDENCE = 10000;
const DISTINGUISHERS = ['ByNamespace', 'ByUser'];
const VERBS = ['create', 'delete', 'deletecollection', 'get', 'list', 'patch', 'proxy', 'update', 'watch'];
const SUBJECT_KINDS = ['Group', 'ServiceAccount', 'User'];
const NS_INTRO = "each member of this list must be '*' or a DNS-1123 label; ";
const hasWildcard = (list: string[] | undefined) => (list ?? []).includes('*');

function verbErrors(verbs: string[] | undefined, at: field.FieldPath): FieldError[] {
  if (!verbs || verbs.length === 0) return [field.required(at, 'verbs must contain at least one value')];
  if (hasWildcard(verbs)) return verbs.length > 1 ? [field.invalid(at, verbs, "if '*' is present, must not specify other verbs")] : [];
  return verbs.every((v) => VERBS.includes(v)) ? [] : [field.notSupported(at, verbs, VERBS)];
}

/** ValidateNonResourceURLPath: one error at most. */
function urlErrors(path: string, at: field.FieldPath): FieldError[] {
  if (path === '') return [field.invalid(at, path, 'must not be empty')];
  if (path === '/') return [];
  if (!path.startsWith('/')) return [field.invalid(at, path, 'must start with slash')];
  if (path.includes(' ')) return [field.invalid(at, path, 'must not contain white-space')];
  if (path.includes('//')) return [field.invalid(at, path, 'must not contain double slash')];
  const stars = path.split('*').length - 1;
  if (stars > 1 || (stars === 1 && path.slice(-2) !== '/*')) return [field.invalid(at, path, 'wildcard can only do suffix matching')];
  return [];
}

function resourceRuleErrors(rule: ResourceRule, at: field.FieldPath): FieldError[] {
  const errs = verbErrors(rule.verbs, at.child('verbs'));
  const groups = rule.apiGroups ?? [];
  if (groups.length === 0) errs.push(field.required(at.child('apiGroups'), 'resource rules must supply at least one api group'));
  else if (groups.length > 1 && hasWildcard(groups)) errs.push(field.invalid(at.child('apiGroups'), groups, "if '*' is present, must not specify other api groups"));
  const resources = rule.resources ?? [];
  if (resources.length === 0) errs.push(field.required(at.child('resources'), 'resource rules must supply at least one resource'));
  else if (resources.length > 1 && hasWildcard(resources)) errs.push(field.invalid(at.child('resources'), resources, "if '*' is present, must not specify other resources"));
  const namespaces = rule.namespaces ?? [];
  if (namespaces.length === 0 && !rule.clusterScope) {
    errs.push(field.required(at.child('namespaces'), 'resource rules that are not cluster scoped must supply at least one namespace'));
  } else if (hasWildcard(namespaces)) {
    if (namespaces.length > 1) errs.push(field.invalid(at.child('namespaces'), namespaces, "if '*' is present, must not specify other namespaces"));
  } else {
    namespaces.forEach((ns, i) => {
      for (const msg of dns1123LabelErrors(ns)) errs.push(field.invalid(at.child('namespaces').index(i), ns, NS_INTRO + msg));
    });
  }
  return errs;
}

function nonResourceRuleErrors(rule: NonResourceRule, at: field.FieldPath): FieldError[] {
  const errs = verbErrors(rule.verbs, at.child('verbs'));
  const urls = rule.nonResourceURLs ?? [];
  if (urls.length === 0) errs.push(field.required(at.child('nonResourceURLs'), 'nonResourceURLs must contain at least one value'));
  else if (hasWildcard(urls)) {
    if (urls.length > 1) errs.push(field.invalid(at.child('nonResourceURLs'), urls, "if '*' is present, must not specify other non-resource URLs"));
  } else urls.forEach((u, i) => errs.push(...urlErrors(u, at.child('nonResourceURLs').index(i))));
  return errs;
}

function subjectErrors(s: Subject, at: field.FieldPath): FieldError[] {
  const errs: FieldError[] = [];
  const forbid = (name: 'user' | 'group' | 'serviceAccount', kind: string) => {
    if (s[name]) errs.push(field.forbidden(at.child(name), `${name} is forbidden when subject kind is not '${kind}'`));
  };
  switch (s.kind) {
    case 'ServiceAccount': {
      const sa = s.serviceAccount;
      if (!sa) errs.push(field.required(at.child('serviceAccount'), "serviceAccount is required when subject kind is 'ServiceAccount'"));
      else {
        if (!sa.name) errs.push(field.required(at.child('serviceAccount', 'name')));
        else if (sa.name !== '*') for (const msg of dns1123SubdomainErrors(sa.name)) errs.push(field.invalid(at.child('serviceAccount', 'name'), sa.name, msg));
        if (sa.namespace) for (const msg of dns1123LabelErrors(sa.namespace)) errs.push(field.invalid(at.child('serviceAccount', 'namespace'), sa.namespace, msg));
        else errs.push(field.required(at.child('serviceAccount', 'namespace'), 'must specify namespace for service account'));
      }
      forbid('user', 'User');
      forbid('group', 'Group');
      break;
    }
    case 'User':
      if (!s.user) errs.push(field.required(at.child('user'), "user is required when subject kind is 'User'"));
      else if (!s.user.name) errs.push(field.required(at.child('user', 'name')));
      forbid('serviceAccount', 'ServiceAccount');
      forbid('group', 'Group');
      break;
    case 'Group':
      if (!s.group) errs.push(field.required(at.child('group'), "group is required when subject kind is 'Group'"));
      else if (!s.group.name) errs.push(field.required(at.child('group', 'name')));
      forbid('serviceAccount', 'ServiceAccount');
      forbid('user', 'User');
      break;
    default:
      errs.push(field.notSupported(at.child('kind'), s.kind ?? '', SUBJECT_KINDS));
  }
  return errs;
}

/** Upstream's ValidateFlowSchema (spec, mandatory objects, status). */
function validate(obj: KubeObject): FieldError[] {
  const spec = specOf(obj);
  const name = obj.metadata?.name ?? '';
  const at = field.path('spec');
  const errs: FieldError[] = [];
  const precedence = spec.matchingPrecedence ?? 0;
  if (precedence <= 0) errs.push(field.invalid(at.child('matchingPrecedence'), precedence, 'must be a positive value'));
  if (precedence > MAX_PRECEDENCE) errs.push(field.invalid(at.child('matchingPrecedence'), precedence, `must not be greater than ${MAX_PRECEDENCE}`));
  if (precedence === 1 && name !== 'exempt') errs.push(field.invalid(at.child('matchingPrecedence'), precedence, "only the schema named 'exempt' may have matchingPrecedence 1"));
  if (spec.distinguisherMethod && !DISTINGUISHERS.includes(spec.distinguisherMethod.type ?? '')) {
    errs.push(field.notSupported(at.child('distinguisherMethod', 'type'), goStruct({ Type: spec.distinguisherMethod.type ?? '' }), DISTINGUISHERS));
  }
  const pl = spec.priorityLevelConfiguration?.name ?? '';
  if (pl) for (const msg of dns1123SubdomainErrors(pl)) errs.push(field.invalid(at.child('priorityLevelConfiguration', 'name'), pl, msg));
  else errs.push(field.required(at.child('priorityLevelConfiguration', 'name'), 'must reference a priority level'));
  (spec.rules ?? []).forEach((rule, i) => {
    const p = at.child('rules').index(i);
    if (rule.subjects?.length) rule.subjects.forEach((s, j) => errs.push(...subjectErrors(s, p.child('subjects').index(j))));
    else errs.push(field.required(p.child('subjects'), 'subjects must contain at least one value'));
    if (!rule.resourceRules?.length && !rule.nonResourceRules?.length) errs.push(field.required(p, 'at least one of resourceRules and nonResourceRules has to be non-empty'));
    (rule.resourceRules ?? []).forEach((r, j) => errs.push(...resourceRuleErrors(r, p.child('resourceRules').index(j))));
    (rule.nonResourceRules ?? []).forEach((r, j) => errs.push(...nonResourceRuleErrors(r, p.child('nonResourceRules').index(j))));
  });
  errs.push(...mandatoryFlowSchemaErrors(name, obj.spec));
  errs.push(...flowcontrolConditionErrors(obj));
  return errs;
}

/** `True` or `False` of the Dangling condition (the priority level is missing), `?` when unknown. */
function missingPriorityLevel(obj: KubeObject): string {
  const c = ((obj.status as { conditions?: Condition[] } | undefined)?.conditions ?? []).find((x) => x.type === 'Dangling');
  return c?.status ?? '?';
}

/** flowcontrol.apiserver.k8s.io/v1 FlowSchema: classifies requests into flows and assigns their priority level. */
export const flowSchemas = defineKind({
  group: 'flowcontrol.apiserver.k8s.io',
  version: 'v1',
  kind: 'FlowSchema',
  plural: 'flowschemas',
  namespaced: false,
  schemaMessage: 'k8s.io.api.flowcontrol.v1.FlowSchema',
  tracksGeneration: true,
  subresources: [flowcontrolStatusSubresource()],
  tableColumns: [
    { name: 'Name', type: 'string', format: 'name', description: NAME_DESCRIPTION, cell: (o) => o.metadata?.name ?? '' },
    { name: 'PriorityLevel', type: 'string', description: 'The priority level requests of the schema go to.', cell: (o) => specOf(o).priorityLevelConfiguration?.name ?? '' },
    { name: 'MatchingPrecedence', type: 'string', description: 'Smaller values match first.', cell: (o) => specOf(o).matchingPrecedence ?? 0 },
    { name: 'DistinguisherMethod', type: 'string', description: 'How requests are split into flows.', cell: (o) => specOf(o).distinguisherMethod?.type ?? '<none>' },
    { name: 'Age', type: 'string', description: 'Time since the flow schema was created.', cell: ageCell },
    { name: 'MissingPL', type: 'string', description: 'Whether the priority level is missing.', cell: (o) => missingPriorityLevel(o) },
  ],
  strategy: {
    default: (_ctx, obj) => {
      const spec = ((obj.spec as Spec | undefined) ??= {}) as Spec;
      if (!spec.matchingPrecedence) spec.matchingPrecedence = 1000;
    },
    // Status is the APF controller's: a create starts it empty.
    prepareForCreate: (_ctx, obj) => {
      obj.status = {};
    },
    validate: (_ctx, obj) => validate(obj),
    validateUpdate: (_ctx, obj) => validate(obj),
  },
});
