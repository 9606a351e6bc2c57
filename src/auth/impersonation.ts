import type { Context, Next } from 'koa';
import { ApiError } from '../api/errors.ts';
import type { AccessChecker } from './services.ts';

const IMPERSONATE = /^impersonate-/i;

/**
 * Impersonation (`Impersonate-User`, `-Group`, `-Uid`, `-Extra-*`, what `kubectl --as` sends) is not
 * implemented yet. Ignoring the headers would run the request as the caller, so that an admin's
 * `kubectl --as=alice` would act as the admin: such requests are refused instead (403).
 */
export function impersonation(_access: AccessChecker) {
  return async function impersonation(ctx: Context, next: Next): Promise<void> {
    const names = Object.keys(ctx.req.headers).filter((h) => IMPERSONATE.test(h));
    if (names.length > 0) {
      throw new ApiError(403, 'Forbidden', `impersonation is not supported by this server yet (the request carries ${names.map(headerName).join(', ')})`, {});
    }
    await next();
  };
}

/** A header's canonical spelling for the message (Node lower-cases them). */
function headerName(lower: string): string {
  return lower.replace(/(^|-)([a-z])/g, (_, dash: string, c: string) => dash + c.toUpperCase());
}
