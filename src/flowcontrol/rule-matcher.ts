/**
 * A FlowSchema's rules turned, once per configuration change, into a predicate over a request's user
 * and attributes, with upstream's matching semantics: a rule matches when one of its subjects and
 * one of its resource rules (for a resource request) or non-resource rules (otherwise) match.
 */
import type { RequestInfo } from '../api/request-info.ts';
import type { UserInfo } from '../auth/user.ts';
import type { NonResourceRuleSpec, PolicyRulesSpec, ResourceRuleSpec, SubjectSpec } from './config-objects.ts';

export type RequestMatcher = (user: UserInfo, info: RequestInfo) => boolean;

const SERVICE_ACCOUNT_PREFIX = 'system:serviceaccount:';

/**
 * `values` as a membership test with upstream's wildcard rule: the wildcard counts only as the
 * list's single member (validation keeps it alone); otherwise it is an ordinary value.
 */
function membership(values: readonly string[], wildcard: string): ((x: string) => boolean) | 'all' {
  if (values.length === 1 && values[0] === wildcard) return 'all';
  if (values.length === 0) return () => false;
  if (values.length === 1) {
    const only = values[0];
    return (x) => x === only;
  }
  const set = new Set(values);
  return (x) => set.has(x);
}

/** The subjects as one test: user names, groups (any of the user's), service accounts by namespace and name. */
function subjectsMatcher(subjects: readonly SubjectSpec[]): (user: UserInfo) => boolean {
  let everyone = false;
  const users = new Set<string>();
  const groups = new Set<string>();
  const accountNames = new Set<string>();
  const accountPrefixes: string[] = [];
  for (const s of subjects) {
    switch (s.kind) {
      case 'User':
        if (!s.user) break;
        if (s.user.name === '*') everyone = true;
        else users.add(s.user.name);
        break;
      case 'Group':
        if (!s.group) break;
        if (s.group.name === '*') everyone = true;
        else groups.add(s.group.name);
        break;
      case 'ServiceAccount':
        if (!s.serviceAccount) break;
        // A service account's user name is system:serviceaccount:<namespace>:<name>.
        if (s.serviceAccount.name === '*') accountPrefixes.push(`${SERVICE_ACCOUNT_PREFIX}${s.serviceAccount.namespace}:`);
        else accountNames.add(`${SERVICE_ACCOUNT_PREFIX}${s.serviceAccount.namespace}:${s.serviceAccount.name}`);
        break;
      default:
        break;
    }
  }
  if (everyone) return () => true;
  return (user) => {
    if (users.has(user.name) || accountNames.has(user.name)) return true;
    if (groups.size > 0) for (const g of user.groups) if (groups.has(g)) return true;
    for (const prefix of accountPrefixes) if (user.name.startsWith(prefix)) return true;
    return false;
  };
}

function resourceRuleMatcher(rule: ResourceRuleSpec): (info: RequestInfo) => boolean {
  const verbs = membership(rule.verbs, '*');
  const groups = membership(rule.apiGroups, '*');
  const resources = membership(rule.resources, '*');
  const namespaces = membership(rule.namespaces, '*');
  const clusterScope = rule.clusterScope;
  return (info) => {
    if (verbs !== 'all' && !verbs(info.verb)) return false;
    // A subresource is named with its resource, as `pods/status`.
    if (resources !== 'all' && !resources(info.subresource ? `${info.resource}/${info.subresource}` : info.resource)) return false;
    if (groups !== 'all' && !groups(info.apiGroup)) return false;
    // A request without a namespace matches only cluster-scoped rules; `*` stands for every named namespace.
    if (info.namespace === '') return clusterScope;
    return namespaces === 'all' || namespaces(info.namespace);
  };
}

/**
 * A non-resource rule: `*` matches every path; any other entry matches its own path and, as a
 * prefix with a trailing slash (a trailing `*` dropped first), every path below it.
 */
function nonResourceRuleMatcher(rule: NonResourceRuleSpec): (info: RequestInfo) => boolean {
  const verbs = membership(rule.verbs, '*');
  const all = rule.nonResourceURLs.includes('*');
  const exact = new Set(rule.nonResourceURLs);
  const prefixes = rule.nonResourceURLs.map((url) => {
    const prefix = url.endsWith('*') ? url.slice(0, -1) : url;
    return prefix.endsWith('/') ? prefix : `${prefix}/`;
  });
  return (info) => {
    if (verbs !== 'all' && !verbs(info.verb)) return false;
    if (all || exact.has(info.path)) return true;
    for (const prefix of prefixes) if (info.path.startsWith(prefix)) return true;
    return false;
  };
}

function anyOf<T>(tests: ((x: T) => boolean)[]): (x: T) => boolean {
  if (tests.length === 0) return () => false;
  if (tests.length === 1) return tests[0]!;
  return (x) => {
    for (const t of tests) if (t(x)) return true;
    return false;
  };
}

function policyRuleMatcher(rule: PolicyRulesSpec): RequestMatcher {
  const subjects = subjectsMatcher(rule.subjects);
  const resources = anyOf(rule.resourceRules.map(resourceRuleMatcher));
  const nonResources = anyOf(rule.nonResourceRules.map(nonResourceRuleMatcher));
  return (user, info) => subjects(user) && (info.isResourceRequest ? resources(info) : nonResources(info));
}

/** Whether a request belongs to a FlowSchema with these rules (an empty list matches nothing). */
export function compileRules(rules: readonly PolicyRulesSpec[]): RequestMatcher {
  const matchers = rules.map(policyRuleMatcher);
  if (matchers.length === 1) return matchers[0]!;
  return (user, info) => {
    for (const m of matchers) if (m(user, info)) return true;
    return false;
  };
}
