import type { AccessChecker } from '../services.ts';
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
