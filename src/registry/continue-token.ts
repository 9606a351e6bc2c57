import { badRequest } from '../api/errors.ts';
import type { ListKey } from '../storage/storage.ts';

/**
 * Continue tokens: base64 of {"v":"meta.k8s.io/v1","rv":<version>,"start":"<key>\u0000"}, the shape the
 * real server uses. The key is `<namespace>/<name>` (namespaced) or `<name>`; the trailing NUL makes
 * it the first key after the last item. rv -1 means "at the latest version" (the inconsistent
 * token an expired continue hands back).
 */
export interface ContinuePosition {
  readonly resourceVersion: number;
  readonly after: ListKey;
}

export function encodeContinue(resourceVersion: number, after: ListKey, namespaced: boolean): string {
  const key = namespaced ? `${after.namespace}/${after.name}` : after.name;
  const json = JSON.stringify({ v: 'meta.k8s.io/v1', rv: resourceVersion, start: `${key}\u0000` });
  return Buffer.from(json).toString('base64url');
}

export function decodeContinue(token: string, namespaced: boolean): ContinuePosition {
  let parsed: unknown;
  try {
    parsed = JSON.parse(Buffer.from(token, 'base64url').toString('utf8'));
  } catch {
    throw invalidToken('illegal base64 data or JSON');
  }
  if (typeof parsed !== 'object' || parsed === null) throw invalidToken('not an object');
  const { v, rv, start } = parsed as { v?: unknown; rv?: unknown; start?: unknown };
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
  return { resourceVersion: rv, after };
}

/** upstream: `invalid continue token: continue key is not valid: <why>` (400). */
function invalidToken(why: string) {
  return badRequest(`invalid continue token: continue key is not valid: ${why}`);
}
