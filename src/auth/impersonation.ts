/**
 * Impersonation, as upstream's impersonation filter (1.34, the non-constrained kind): a request with
 * `Impersonate-User` (what `kubectl --as` sends), optionally `Impersonate-Group` (repeated),
 * `Impersonate-Uid` and `Impersonate-Extra-<key>` (repeated), runs as the user those headers describe,
 * provided the authenticated user may `impersonate` each part of it. It runs after authentication and
 * before the request's own authorization, which then judges the impersonated user.
 */
import type { Context, Next } from 'koa';
import { badRequest } from '../api/errors.ts';
import type { RequestInfo } from '../api/request-info.ts';
import { dns1123LabelErrors, dns1123SubdomainErrors } from '../api/validation/names.ts';
import { forbiddenError } from './authz/authorize.ts';
import type { AccessChecker } from './services.ts';
import { ANONYMOUS, SYSTEM_AUTHENTICATED, type UserInfo } from './user.ts';

const USER_HEADER = 'impersonate-user';
const GROUP_HEADER = 'impersonate-group';
const UID_HEADER = 'impersonate-uid';
const EXTRA_PREFIX = 'impersonate-extra-';
const AUTHENTICATION_GROUP = 'authentication.k8s.io';
const SERVICE_ACCOUNT_PREFIX = 'system:serviceaccount:';
const SYSTEM_UNAUTHENTICATED = 'system:unauthenticated';

/** Where the authenticated user is kept once `state.user` is the impersonated one (for audit). */
export interface ImpersonationState {
  impersonatedBy?: UserInfo;
}

/** One thing the requester asks to act as, with the attributes authorization judges it by. */
interface Wanted {
  readonly resource: string;
  readonly apiGroup: string;
  readonly namespace: string;
  readonly name: string;
  readonly subresource: string;
}

/** What the headers ask for; null when they ask for nothing. */
export interface ImpersonationRequest {
  readonly user: UserInfo;
  /** The checks, in upstream's order: user (or service account), groups, extras, uid. */
  readonly checks: readonly Wanted[];
}

/**
 * `system:serviceaccount:<namespace>:<name>` with a valid namespace and name, as upstream's
 * SplitUsername; anything else is an ordinary user name.
 */
export function splitServiceAccountUsername(username: string): { namespace: string; name: string } | undefined {
  if (!username.startsWith(SERVICE_ACCOUNT_PREFIX)) return undefined;
  const parts = username.slice(SERVICE_ACCOUNT_PREFIX.length).split(':');
  if (parts.length !== 2) return undefined;
  const [namespace, name] = parts as [string, string];
  if (dns1123LabelErrors(namespace).length > 0 || dns1123SubdomainErrors(name).length > 0) return undefined;
  return { namespace, name };
}

/** An extra key as the header carries it: lower-cased, then percent-decoded (kept as is when that fails, as upstream). */
function extraKey(encoded: string): string {
  try {
    return decodeURIComponent(encoded);
  } catch {
    return encoded;
  }
}

/**
 * Reads the impersonation headers (each header line separately: a comma inside a value is part of
 * it). Groups, uid or extras without a user are refused as a bad request (upstream answers 500 for
 * this client error).
 */
export function readImpersonationHeaders(headers: NodeJS.Dict<string[]>): ImpersonationRequest | null {
  const userName = headers[USER_HEADER]?.[0] ?? '';
  const groupValues = headers[GROUP_HEADER] ?? [];
  const uid = headers[UID_HEADER]?.[0] ?? '';
  const extra: Record<string, string[]> = {};
  const extraChecks: Wanted[] = [];
  for (const [header, values] of Object.entries(headers)) {
    if (!header.startsWith(EXTRA_PREFIX) || !values) continue;
    const encoded = header.slice(EXTRA_PREFIX.length);
    if (encoded === '') throw badRequest('impersonation extra header key must not be empty');
    const key = extraKey(encoded.toLowerCase());
    for (const value of values) {
      (extra[key] ??= []).push(value);
      extraChecks.push({ resource: 'userextras', apiGroup: AUTHENTICATION_GROUP, namespace: '', name: value, subresource: key });
    }
  }
  const hasExtra = extraChecks.length > 0;
  if (userName === '') {
    if (groupValues.length > 0 || uid !== '' || hasExtra) {
      const asked = [...groupValues.map((g) => `group ${JSON.stringify(g)}`), ...(uid !== '' ? [`uid ${JSON.stringify(uid)}`] : []), ...(hasExtra ? ['user extras'] : [])];
      throw badRequest(`requested ${asked.join(', ')} without impersonating a user`);
    }
    return null;
  }

  const checks: Wanted[] = [];
  // Groups given are the whole list (system:authenticated aside); without them a service account
  // gets its fixed groups and any other user none.
  let groups: string[] = [];
  const account = splitServiceAccountUsername(userName);
  if (account) {
    checks.push({ resource: 'serviceaccounts', apiGroup: '', namespace: account.namespace, name: account.name, subresource: '' });
    if (groupValues.length === 0) groups = ['system:serviceaccounts', `system:serviceaccounts:${account.namespace}`];
  } else {
    checks.push({ resource: 'users', apiGroup: '', namespace: '', name: userName, subresource: '' });
  }
  for (const group of groupValues) {
    checks.push({ resource: 'groups', apiGroup: '', namespace: '', name: group, subresource: '' });
    groups.push(group);
  }
  checks.push(...extraChecks);
  if (uid !== '') checks.push({ resource: 'uids', apiGroup: AUTHENTICATION_GROUP, namespace: '', name: uid, subresource: '' });

  if (userName === ANONYMOUS.name) {
    if (!groups.includes(SYSTEM_UNAUTHENTICATED)) groups.push(SYSTEM_UNAUTHENTICATED);
  } else if (!groups.includes(SYSTEM_AUTHENTICATED) && !groups.includes(SYSTEM_UNAUTHENTICATED)) {
    groups.push(SYSTEM_AUTHENTICATED);
  }
  const user: UserInfo = Object.freeze({
    name: userName,
    ...(uid !== '' ? { uid } : {}),
    groups: Object.freeze(groups),
    ...(hasExtra ? { extra: Object.freeze(extra) } : {}),
  });
  return { user, checks };
}

/** The attributes upstream authorizes one impersonation check with: verb impersonate, a resource request. */
export function impersonationAttributes(wanted: Wanted): RequestInfo {
  return {
    isResourceRequest: true,
    path: '',
    verb: 'impersonate',
    apiPrefix: wanted.apiGroup === '' ? 'api' : 'apis',
    apiGroup: wanted.apiGroup,
    apiVersion: 'v1',
    namespace: wanted.namespace,
    resource: wanted.resource,
    subresource: wanted.subresource,
    name: wanted.name,
    inNamespace: wanted.namespace !== '',
    parts: [],
  };
}

const PREFIX = 'impersonate-';

/** Whether any header name starts with `Impersonate-` (any case); rawHeaders alternates names and values. */
function namesImpersonationHeader(raw: readonly string[]): boolean {
  for (let i = 0; i < raw.length; i += 2) {
    const name = raw[i]!;
    if (name.length > PREFIX.length && (name.charCodeAt(0) | 0x20) === 0x69 && name.slice(0, PREFIX.length).toLowerCase() === PREFIX) return true;
  }
  return false;
}

/** The request's headersDistinct, built from rawHeaders over HTTP/2 (Node 20's compatibility API has none). */
function distinctHeaders(req: Context['req']): NodeJS.Dict<string[]> {
  if (req.headersDistinct) return req.headersDistinct;
  const out: NodeJS.Dict<string[]> = {};
  const raw = req.rawHeaders;
  for (let i = 0; i < raw.length; i += 2) (out[raw[i]!.toLowerCase()] ??= []).push(raw[i + 1]!);
  return out;
}

/**
 * The impersonation stage: each part asked for is authorized for the authenticated user; the first
 * refusal is the 403 upstream gives (`users "alice" is forbidden: User "bob" cannot impersonate
 * resource "users" in API group "" at the cluster scope`). Allowed, the request continues as the
 * impersonated user; the authenticated one is kept in `state.impersonatedBy`.
 */
export function impersonation(access: AccessChecker) {
  return async function impersonate(ctx: Context, next: Next): Promise<void> {
    // Nearly every request impersonates no one: a look at the raw names spares building headersDistinct.
    if (!namesImpersonationHeader(ctx.req.rawHeaders)) return next();
    const wanted = readImpersonationHeaders(distinctHeaders(ctx.req));
    if (!wanted) return next();
    const requester = ctx.state.user as UserInfo;
    for (const check of wanted.checks) {
      const request = impersonationAttributes(check);
      const result = await access.authorize({ user: requester, request });
      if (result.decision !== 'allow') throw forbiddenError(requester, request, result.reason);
    }
    (ctx.state as ImpersonationState).impersonatedBy = requester;
    ctx.state.user = wanted.user;
    // As upstream, the headers go once honoured, so nothing further along (a proxy) passes them on.
    for (const header of Object.keys(ctx.req.headers)) {
      if (header === USER_HEADER || header === GROUP_HEADER || header === UID_HEADER || header.startsWith(EXTRA_PREFIX)) delete ctx.req.headers[header];
    }
    await next();
  };
}
