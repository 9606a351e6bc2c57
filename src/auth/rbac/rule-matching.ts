/**
 * Whether one RBAC PolicyRule covers a request, with upstream's matching (pkg/registry/rbac/validation):
 * `*` matches any verb, group, resource or URL; a subresource is asked for as `resource/subresource`
 * and also matched by `*\/subresource`; resourceNames only match requests that name an object (so a
 * list or create never matches a rule limited to names); a non-resource URL ending in `*` is a prefix.
 */
import type { RequestInfo } from '../../api/request-info.ts';
import type { PolicyRule } from '../../kinds/rbac-rules.ts';

const ALL = '*';

const hasOrAll = (list: readonly string[] | undefined, value: string) => !!list && (list.includes(ALL) || list.includes(value));

export function verbMatches(rule: PolicyRule, verb: string): boolean {
  return hasOrAll(rule.verbs, verb);
}

export function apiGroupMatches(rule: PolicyRule, group: string): boolean {
  return hasOrAll(rule.apiGroups, group);
}

export function resourceMatches(rule: PolicyRule, combined: string, subresource: string): boolean {
  for (const r of rule.resources ?? []) {
    if (r === ALL || r === combined) return true;
    // `*/scale` covers the scale subresource of every resource.
    if (subresource && r.length === subresource.length + 2 && r.startsWith('*/') && r.endsWith(subresource)) return true;
  }
  return false;
}

export function resourceNameMatches(rule: PolicyRule, name: string): boolean {
  const names = rule.resourceNames ?? [];
  return names.length === 0 || names.includes(name);
}

export function nonResourceURLMatches(rule: PolicyRule, path: string): boolean {
  for (const url of rule.nonResourceURLs ?? []) {
    if (url === ALL || url === path) return true;
    if (url.endsWith(ALL) && path.startsWith(url.replace(/\*+$/, ''))) return true;
  }
  return false;
}

/** The attributes rule matching reads: a resource request or a non-resource path with its verb. */
export type RuleRequest = Pick<RequestInfo, 'isResourceRequest' | 'verb' | 'apiGroup' | 'resource' | 'subresource' | 'name' | 'path'>;

export function ruleAllows(rule: PolicyRule, req: RuleRequest): boolean {
  if (!req.isResourceRequest) return verbMatches(rule, req.verb) && nonResourceURLMatches(rule, req.path);
  const combined = req.subresource ? `${req.resource}/${req.subresource}` : req.resource;
  return verbMatches(rule, req.verb) && apiGroupMatches(rule, req.apiGroup) && resourceMatches(rule, combined, req.subresource) && resourceNameMatches(rule, req.name);
}
