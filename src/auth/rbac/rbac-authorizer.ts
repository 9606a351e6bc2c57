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
  const decide = ({ user, request }: Attributes): AuthorizationResult => {
    let allowedBy: RuleSource | undefined;
    const errors: string[] = [];
    resolver.visitRulesFor(user, request.namespace, (source, rule, error) => {
      if (error) errors.push(error);
      if (source && rule && ruleAllows(rule, request)) {
        allowedBy = source;
        return false;
      }
      return true;
    });
    if (allowedBy) return { decision: 'allow', reason: `RBAC: allowed by ${describeSource(allowedBy)}` };
    return errors.length > 0 ? { decision: 'noOpinion', reason: `RBAC: ${joinErrors(errors)}` } : { decision: 'noOpinion' };
  };
  const rulesFor = (user: Attributes['user'], namespace: string) => resolver.rulesFor(user, namespace);
  if (!cache) return { name: 'RBAC', authorize: decide, rulesFor };
  return {
    name: 'RBAC',
    rulesFor,
    authorize(attrs: Attributes): AuthorizationResult {
      const key = DecisionCache.key(attrs.user, attrs.request);
      let result = cache.get(key);
      if (!result) cache.set(key, (result = decide(attrs)));
      return result;
    },
  };
}
