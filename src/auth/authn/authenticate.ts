import type { Context, Next } from 'koa';
import { ANONYMOUS, SYSTEM_AUTHENTICATED, type UserInfo } from '../user.ts';
import type { Authenticator } from './authenticator.ts';

/**
 * The authentication stage: asks each method in turn; the first that recognises credentials decides
 * (a method that finds bad credentials throws 401). Without credentials the request is anonymous.
 */
export function authenticate(authenticators: readonly Authenticator[]) {
  if (authenticators.length === 0) throw new Error('authenticate: at least one authenticator is required');
  return async function authentication(ctx: Context, next: Next): Promise<void> {
    let user: UserInfo | null = null;
    for (const a of authenticators) {
      user = await a.authenticate(ctx.req);
      if (user) break;
    }
    if (user && !user.groups.includes(SYSTEM_AUTHENTICATED)) {
      user = { ...user, groups: [...user.groups, SYSTEM_AUTHENTICATED] };
    }
    ctx.state.user = user ?? ANONYMOUS;
    await next();
  };
}
