/**
 * The RBAC authorizer (upstream's plugin/pkg/auth/authorizer/rbac): allows a request when some rule
 * the user holds in the request's namespace covers it; otherwise no opinion, with the evaluation
 * errors met (a binding to a missing role) as the reason. It never denies.
 */
import type { Subject } from '../../kinds/rbac-rules.ts';
import type { Attributes, AuthorizationResult, Authorizer } from '../authz/authorizer.ts';
import { DecisionCache } from './decision-cache.ts';
import { ruleAllows } from './rule-matching.ts';
import { joinErrors, type RbacRuleResolver, type RuleSource } from './rule-resolver.ts';

function describeSubject(s: Subject, bindingNamespace: string): string {
  if (s.kind === 'ServiceAccount') return `${s.kind} "${s.namespace || bindingNamespace}/${s.name ?? ''}"`;
  return `${s.kind ?? ''} "${s.name ?? ''}"`;
}

function describeSource({ binding, subject }: RuleSource): string {
  const ref = binding.roleRef as { kind?: string; name?: string } | undefined;
  const ns = binding.metadata.namespace;
  const what = ns ? `RoleBinding "${binding.metadata.name}/${ns}"` : `ClusterRoleBinding "${binding.metadata.name}"`;
  return `${what} of ${ref?.kind ?? ''} "${ref?.name ?? ''}" to ${describeSubject(subject, ns ?? '')}`;
}

/** `cache`, when given, must be cleared on every change of the four RBAC kinds (start-rbac.ts does). */
export function rbacAuthorizer(resolver: RbacRuleResolver, cache?: DecisionCache): Authorizer {
  /** The decision, and whether it holds for any object name (allowed by a rule that names none). */
  const decide = ({ user, request }: Attributes): { result: AuthorizationResult; anyName: boolean } => {
    let allowedBy: RuleSource | undefined;
    let anyName = false;
    // A rule with resourceNames met before the allowing one may allow another name first, with
    // another reason: the answer then stays this name's own.
    let namedRuleBefore = false;
    const errors: string[] = [];
    resolver.visitRulesFor(user, request.namespace, (source, rule, error) => {
      if (error) errors.push(error);
      if (!source || !rule) return true;
      const named = rule.resourceNames !== undefined && rule.resourceNames.length > 0;
      if (ruleAllows(rule, request)) {
        allowedBy = source;
        anyName = !named && !namedRuleBefore;
        return false;
      }
      if (named) namedRuleBefore = true;
      return true;
    });
    if (allowedBy) return { result: { decision: 'allow', reason: `RBAC: allowed by ${describeSource(allowedBy)}` }, anyName };
    return { result: errors.length > 0 ? { decision: 'noOpinion', reason: `RBAC: ${joinErrors(errors)}` } : { decision: 'noOpinion' }, anyName: false };
  };
  const rulesFor = (user: Attributes['user'], namespace: string) => resolver.rulesFor(user, namespace);
  if (!cache) return { name: 'RBAC', authorize: (attrs) => decide(attrs).result, rulesFor };
  return {
    name: 'RBAC',
    rulesFor,
    authorize(attrs: Attributes): AuthorizationResult {
      const hit = cache.get(attrs.user, attrs.request);
      if (hit) return hit;
      const { result, anyName } = decide(attrs);
      cache.set(attrs.user, attrs.request, result, anyName);
      return result;
    },
  };
}
