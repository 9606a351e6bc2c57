import type { AccessChecker, RuleResolver } from '../services.ts';
import type { UserInfo } from '../user.ts';
import type { NonResourceRule, ResourceRule, SubjectRules } from './rules.ts';
import type { AuthorizationResult, Authorizer } from './authorizer.ts';

/**
 * Upstream's union authorizer: each authorizer in order; the first allow or deny decides. When none
 * has an opinion the answer is no opinion (the request path turns it into 403), with the reasons
 * and evaluation errors met on the way joined as upstream joins them.
 */
export async function runChain(authorizers: readonly Authorizer[], attrs: Parameters<Authorizer['authorize']>[0]): Promise<AuthorizationResult> {
  const reasons: string[] = [];
  const errors: string[] = [];
  for (const a of authorizers) {
    const result = await a.authorize(attrs);
    if (result.decision !== 'noOpinion') return result;
    if (result.reason) reasons.push(result.reason);
    if (result.evaluationError) errors.push(result.evaluationError);
  }
  return {
    decision: 'noOpinion',
    ...(reasons.length > 0 ? { reason: reasons.join('\n') } : {}),
    ...(errors.length > 0 ? { evaluationError: errors.length === 1 ? errors[0]! : `[${errors.join(', ')}]` } : {}),
  };
}

/** The chain as an AccessChecker (for reviews, impersonation and escalation checks). */
export function chainAccessChecker(authorizers: readonly Authorizer[]): AccessChecker {
  return { authorize: (attrs) => runChain(authorizers, attrs) };
}

/**
 * Upstream's union rule resolver: the rules of every authorizer that can resolve rules, in chain
 * order; incomplete when any is, with their errors joined. (system:masters is no resolver: its
 * rules come from RBAC's cluster-admin binding, as upstream.)
 */
export async function unionRulesFor(authorizers: readonly Authorizer[], user: UserInfo, namespace: string): Promise<SubjectRules> {
  const resourceRules: ResourceRule[] = [];
  const nonResourceRules: NonResourceRule[] = [];
  const errors: string[] = [];
  let incomplete = false;
  for (const a of authorizers) {
    if (!a.rulesFor) continue;
    const rules = await a.rulesFor(user, namespace);
    resourceRules.push(...rules.resourceRules);
    nonResourceRules.push(...rules.nonResourceRules);
    if (rules.incomplete) incomplete = true;
    if (rules.evaluationError) errors.push(rules.evaluationError);
  }
  return {
    resourceRules,
    nonResourceRules,
    incomplete,
    ...(errors.length > 0 ? { evaluationError: errors.length === 1 ? errors[0]! : `[${errors.join(', ')}]` } : {}),
  };
}

/** The chain as a RuleResolver (SelfSubjectRulesReview). */
export function chainRuleResolver(authorizers: readonly Authorizer[]): RuleResolver {
  return { rulesFor: (user, namespace) => unionRulesFor(authorizers, user, namespace) };
}
