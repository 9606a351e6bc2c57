/**
 * What `serviceaccounts/<name>/token` needs from the token issuer: the whole TokenRequest, not only
 * the signing. It lives beside the issuer (set up with the server's stores) and reaches the
 * subresource through `ctx.auth.tokenIssuer`, which is this object when service account tokens are
 * configured. Kept free of imports so the kind definition can use it without pulling in auth.
 */
import type { RequestContext } from '../../api/request-context.ts';
import type { KubeObject } from '../../api/types.ts';

export interface TokenRequestHandler {
  /** Validates the (defaulted, checked) TokenRequest against the stores, signs, and returns it with its status. */
  requestToken(ctx: RequestContext, namespace: string, serviceAccountName: string, body: KubeObject): Promise<KubeObject>;
}

export function isTokenRequestHandler(value: unknown): value is TokenRequestHandler {
  return typeof value === 'object' && value !== null && typeof (value as { requestToken?: unknown }).requestToken === 'function';
}
