import type { Context, Next } from 'koa';
import { ApiError, forbidden } from '../../api/errors.ts';
import type { RequestInfo } from '../../api/request-info.ts';
import type { UserInfo } from '../user.ts';
import type { Authorizer } from './authorizer.ts';
import { runChain } from './chain.ts';

/** The message the real server gives when authorization refuses a request. */
export function forbiddenMessage(user: UserInfo, r: RequestInfo): string {
  if (!r.isResourceRequest) return `User "${user.name}" cannot ${r.verb} path "${r.path}"`;
  const resource = r.subresource ? `${r.resource}/${r.subresource}` : r.resource;
  const scope = r.namespace ? ` in the namespace "${r.namespace}"` : ' at the cluster scope';
  return `User "${user.name}" cannot ${r.verb} resource "${resource}" in API group "${r.apiGroup}"${scope}`;
}

/**
 * The authorization stage: the first module that allows or denies decides; when none has an opinion
 * the request is refused (403), as the real server is deny-by-default. The Status names the resource
 * without its subresource (`namespaces "default" is forbidden: …`), as upstream's does.
 */
export function authorize(authorizers: readonly Authorizer[]) {
  return async function authorization(ctx: Context, next: Next): Promise<void> {
    const user = ctx.state.user as UserInfo;
    const request = ctx.state.requestInfo as RequestInfo;
    const result = await runChain(authorizers, { user, request });
    if (result.decision === 'allow') return next();
    throw forbiddenError(user, request, result.reason);
  };
}

/** The 403 upstream's authorization filter answers with (also used by impersonation and reviews). */
export function forbiddenError(user: UserInfo, request: RequestInfo, reason?: string): ApiError {
  const message = forbiddenMessage(user, request) + (reason ? `: ${reason}` : '');
  if (!request.isResourceRequest) return new ApiError(403, 'Forbidden', `forbidden: ${message}`, {});
  return forbidden({ group: request.apiGroup, resource: request.resource }, request.name, message);
}
