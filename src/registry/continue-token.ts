import { badRequest } from '../api/errors.ts';
import { jsonSyntaxError } from '../codecs/json-syntax.ts';
import type { ListKey } from '../storage/storage.ts';

/**
 * Continue tokens: base64 of {"v":"meta.k8s.io/v1","rv":<version>,"start":"<key>\u0000"}, the shape the
 * real server uses. The key is `<namespace>/<name>` (namespaced) or `<name>`; the trailing NUL makes
 * it the first key after the last item. rv -1 means "at the latest version" (the inconsistent
 * token an expired continue hands back).
 *
 * One field of our own may follow: "remaining", the items after the key in the snapshot of rv, as
 * the page that handed out the token counted them. Every page of a walk reads the same snapshot, so
 * the next page's remainingItemCount is that number less its own items: counting the rows after the
 * key again would cost a scan of the rest of the list on every page (most of a page's time at a
 * million objects). A value that is not a count is ignored (the page counts instead).
 */
export interface ContinuePosition {
  readonly resourceVersion: number;
  readonly after: ListKey;
  /** The items after `after` at `resourceVersion`, when the token carries them. */
  readonly remaining?: number;
}

export function encodeContinue(resourceVersion: number, after: ListKey, namespaced: boolean, remaining?: number): string {
  const key = namespaced ? `${after.namespace}/${after.name}` : after.name;
  const token: Record<string, unknown> = { v: 'meta.k8s.io/v1', rv: resourceVersion, start: `${key}\u0000` };
  if (remaining !== undefined) token.remaining = remaining;
  return Buffer.from(JSON.stringify(token)).toString('base64url');
}

export function decodeContinue(token: string, namespaced: boolean): ContinuePosition {
  const bad = base64Problem(token);
  if (bad) throw invalidToken(bad);
  const bytes = Buffer.from(token, 'base64url');
  let parsed: unknown;
  try {
    parsed = JSON.parse(bytes.toString('utf8'));
  } catch {
    throw invalidToken(jsonSyntaxError(bytes) ?? 'invalid JSON');
  }
  if (typeof parsed !== 'object' || parsed === null) throw invalidToken('not an object');
  const { v, rv, start, remaining } = parsed as { v?: unknown; rv?: unknown; start?: unknown; remaining?: unknown };
  if (v !== 'meta.k8s.io/v1') throw invalidToken('server does not recognize this encoded version');
  if (typeof rv !== 'number' || !Number.isSafeInteger(rv) || rv === 0 || rv < -1) throw invalidToken('invalid resource version');
  if (typeof start !== 'string' || !start.endsWith('\u0000') || start.length < 2) throw invalidToken('invalid start key');
  const key = start.slice(0, -1);
  // No stored name holds a NUL, so a key with one cannot come from this server.
  if (key.includes('..') || key.startsWith('/') || key.includes('\u0000')) throw invalidToken(key);
  let after: ListKey;
  if (namespaced) {
    const slash = key.indexOf('/');
    if (slash < 0) throw invalidToken(key);
    after = { namespace: key.slice(0, slash), name: key.slice(slash + 1) };
  } else {
    after = { namespace: '', name: key };
  }
  const counted = typeof remaining === 'number' && Number.isSafeInteger(remaining) && remaining >= 0 && rv !== -1;
  return { resourceVersion: rv, after, ...(counted ? { remaining } : {}) };
}

/**
 * What Go's strict unpadded URL base64 decoder says of a token it cannot read
 * (`illegal base64 data at input byte 4`), or undefined when it can.
 */
function base64Problem(token: string): string | undefined {
  const at = token.search(/[^A-Za-z0-9_-]/);
  if (at >= 0) return `illegal base64 data at input byte ${at}`;
  if (token.length % 4 === 1) return `illegal base64 data at input byte ${token.length - 1}`;
  return undefined;
}

/** upstream: `invalid continue token: continue key is not valid: <why>` (400). */
function invalidToken(why: string) {
  return badRequest(`invalid continue token: continue key is not valid: ${why}`);
}
