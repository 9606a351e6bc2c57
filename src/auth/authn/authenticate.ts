import type { IncomingMessage } from 'node:http';
import type { Context, Next } from 'koa';
import { ApiError, unauthorized } from '../../api/errors.ts';
import { ANONYMOUS, SYSTEM_AUTHENTICATED, type UserInfo } from '../user.ts';
import type { Authenticator } from './authenticator.ts';

/** What the authenticators made of a request: a user, or none, with the failures of those that refused. */
export interface UnionResult {
  readonly user: UserInfo | null;
  readonly failures: readonly unknown[];
}

/**
 * Upstream's union rule: every method is asked in turn until one recognises the request; a method
 * that finds bad credentials does not stop the next from succeeding (a bad client certificate next
 * to a good token authenticates by the token). Its failure counts only when no method succeeds.
 */
export async function authenticateUnion(authenticators: readonly Authenticator[], req: IncomingMessage): Promise<UnionResult> {
  const failures: unknown[] = [];
  for (const a of authenticators) {
    try {
      const user = await a.authenticate(req);
      if (user) return { user, failures };
    } catch (err) {
      failures.push(err);
    }
  }
  return { user: null, failures };
}

/**
 * Who may stay anonymous: everyone (true), no one (false), or only requests to these exact paths
 * (the authentication configuration's anonymous conditions, matched as upstream against the path
 * without the query).
 */
export type AnonymousAccess = boolean | { readonly paths: ReadonlySet<string> };

function anonymousAllowed(access: AnonymousAccess, path: string): boolean {
  if (typeof access === 'boolean') return access;
  let decoded = path;
  try {
    decoded = decodeURIComponent(path);
  } catch {
    // A malformed escape is compared as sent.
  }
  return access.paths.has(decoded);
}

/**
 * Token verifiers hand back the same user object while their cache holds the token, so the user with
 * `system:authenticated` added is kept beside it: one object per verified user rather than one per
 * request, which also lets later stages recognise a user they have seen.
 */
const authenticatedUsers = new WeakMap<UserInfo, UserInfo>();

function withAuthenticatedGroup(user: UserInfo): UserInfo {
  if (user.groups.includes(SYSTEM_AUTHENTICATED)) return user;
  let found = authenticatedUsers.get(user);
  if (!found) authenticatedUsers.set(user, (found = { ...user, groups: [...user.groups, SYSTEM_AUTHENTICATED] }));
  return found;
}

/**
 * The authentication stage: the union of the methods decides. Credentials that no method accepts,
 * where at least one method found them wrong, are a 401 (so clients refresh them) — never anonymous;
 * a request without any credentials is anonymous where `anonymous` allows it.
 */
export function authenticate(authenticators: readonly Authenticator[], options: { anonymous: AnonymousAccess } = { anonymous: true }) {
  if (authenticators.length === 0) throw new Error('authenticate: at least one authenticator is required');
  return async function authentication(ctx: Context, next: Next): Promise<void> {
    const { user, failures } = await authenticateUnion(authenticators, ctx.req);
    if (!user && failures.length > 0) {
      // The client is told only "Unauthorized", as upstream; the reasons stay with the error for logs.
      const first = failures[0];
      if (first instanceof ApiError && first.code === 401) throw first;
      const err = unauthorized();
      err.cause = first;
      throw err;
    }
    // Anonymous not allowed (here): a request without credentials is refused, as upstream, with a plain 401.
    if (!user && !anonymousAllowed(options.anonymous, ctx.path)) throw unauthorized();
    ctx.state.user = user ? withAuthenticatedGroup(user) : ANONYMOUS;
    await next();
  };
}
