/**
 * upstream's rules.Matcher (admission/plugin/webhook/predicates/rules), shared by admission
 * policies and webhooks: one rule against a request's operation and subresource, the namespace it
 * is about, and a resource (the request's, or an equivalent one).
 */
import type { AdmissionAttributes, GroupVersionResource } from './attributes.ts';

/** The parts of a RuleWithOperations the matcher reads. */
export interface MatchedRule {
  readonly operations?: readonly string[];
  readonly apiGroups?: readonly string[];
  readonly apiVersions?: readonly string[];
  readonly resources?: readonly string[];
  readonly scope?: string;
}

const exactOrWildcard = (items: readonly string[] | undefined, value: string) => (items ?? []).some((i) => i === '*' || i === value);

/** Whether `rule` selects the request as `resource`; `namespace` is the namespace the request is about. */
export function ruleMatches(rule: MatchedRule, a: AdmissionAttributes, namespace: string, resource: GroupVersionResource): boolean {
  // Namespaces (core v1) are cluster-scoped though requests about one carry its name as their namespace.
  const clusterScoped = (resource.group === '' && resource.version === 'v1' && resource.resource === 'namespaces') || namespace === '';
  const scope = rule.scope ?? '*';
  if (scope === 'Namespaced' && clusterScoped) return false;
  if (scope === 'Cluster' && !clusterScoped) return false;
  if (scope !== '*' && scope !== 'Namespaced' && scope !== 'Cluster') return false;
  if (!(rule.operations ?? []).some((op) => op === '*' || op === a.operation)) return false;
  if (!exactOrWildcard(rule.apiGroups, resource.group)) return false;
  if (!exactOrWildcard(rule.apiVersions, resource.version)) return false;
  return (rule.resources ?? []).some((entry) => {
    const slash = entry.indexOf('/');
    const res = slash < 0 ? entry : entry.slice(0, slash);
    const sub = slash < 0 ? '' : entry.slice(slash + 1);
    return (res === '*' || res === resource.resource) && (sub === '*' || sub === a.subresource);
  });
}
