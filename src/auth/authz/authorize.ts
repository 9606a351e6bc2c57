import type { Context, Next } from 'koa';
import { ApiError, forbidden } from '../../api/errors.ts';
import type { RequestInfo } from '../../api/request-info.ts';
import type { UserInfo } from '../user.ts';
import type { Authorizer } from './authorizer.ts';

/** The message the real server gives when authorization refuses a request. */
export function forbiddenMessage(user: UserInfo, r: RequestInfo): string {
  if (!r.isResourceRequest) return `User "${user.name}" cannot ${r.verb} path "${r.path}"`;
  const resource = r.subresource ? `${r.resource}/${r.subresource}` : r.resource;
  const scope = r.namespace ? ` in the namespace "${r.namespace}"` : ' at the cluster scope';
  return `User "${user.name}" cannot ${r.verb} resource "${resource}" in API group "${r.apiGroup}"${scope}`;
}

/**
 * The authorization stage: the first module that allows or denies decides; when none has an opinion
 * the request is refused (403), as the real server is deny-by-default.
 */
export function authorize(authorizers: readonly Authorizer[]) {
  return async function authorization(ctx: Context, next: Next): Promise<void> {
    const user = ctx.state.user as UserInfo;
    const request = ctx.state.requestInfo as RequestInfo;
    let reason: string | undefined;
    for (const a of authorizers) {
      const result = await a.authorize({ user, request });
      if (result.decision === 'allow') return next();
      if (result.decision === 'deny') {
        reason = result.reason;
        break;
      }
    }
    const message = forbiddenMessage(user, request) + (reason ? `: ${reason}` : '');
    if (!request.isResourceRequest) throw new ApiError(403, 'Forbidden', `forbidden: ${message}`, {});
    const resource = request.subresource ? `${request.resource}/${request.subresource}` : request.resource;
    throw forbidden({ group: request.apiGroup, resource }, request.name, message);
  };
}
