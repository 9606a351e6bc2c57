/**
 * The list options a list's cost depends on, read as the estimator upstream reads them: with the
 * plain query-to-ListOptions conversion, which is laxer than the request's own decoding (a boolean
 * is false only for "0" and "false" in any case) and stricter on integers (an empty `limit=` fails
 * it). A query the conversion refuses costs the most: the request is bound to fail validation, and
 * upstream charges it in full to be safe.
 *
 * Read per request, so nothing here allocates beyond what URLSearchParams.get returns.
 */

/** Go's strconv.ParseInt(s, 10, 64) succeeds on it. */
function isInt64(text: string): boolean {
  if (!/^[+-]?\d+$/.test(text)) return false;
  const digits = text.charCodeAt(0) === 0x2b || text.charCodeAt(0) === 0x2d ? text.length - 1 : text.length;
  // Up to 18 digits always fit; only longer ones need the exact comparison.
  if (digits <= 18) return true;
  const n = BigInt(text);
  return n >= -(2n ** 63n) && n <= 2n ** 63n - 1n;
}

/** The integer parameters the conversion parses; any that fails makes the whole query fail. */
export function listOptionsConvert(query: URLSearchParams): boolean {
  const limit = query.get('limit');
  if (limit !== null && !isInt64(limit)) return false;
  const timeout = query.get('timeoutSeconds');
  if (timeout !== null && !isInt64(timeout)) return false;
  return true;
}

/** `limit` as a number (0 when absent or not positive: no limit). Call after listOptionsConvert. */
export function listLimit(query: URLSearchParams): number {
  const limit = query.get('limit');
  if (limit === null) return 0;
  const n = Number(limit);
  return n > 0 ? n : 0;
}

/** sendInitialEvents=true as the conversion reads it: present and neither "0" nor "false" (any case). */
export function sendsInitialEvents(query: URLSearchParams): boolean {
  const value = query.get('sendInitialEvents');
  return value !== null && value !== '0' && value.toLowerCase() !== 'false';
}

/**
 * Whether the list is answered by storage rather than the watch cache, as upstream decides for a
 * cache that keeps no snapshots (what its estimator assumes): an exact resourceVersion, a
 * continuation, or the legacy exact match (a limit with a resourceVersion other than "0") go to
 * storage; NotOlderThan and resourceVersion "0" are served from the cache; a consistent read
 * (no resourceVersion) is served from the cache when the cache can serve consistent reads; an
 * unknown resourceVersionMatch goes to storage (where validation refuses it).
 */
export function listFromStorage(query: URLSearchParams, limit: number, consistentReadsFromCache: boolean): boolean {
  const match = query.get('resourceVersionMatch') ?? '';
  const resourceVersion = query.get('resourceVersion') ?? '';
  switch (match) {
    case 'Exact':
      return true;
    case 'NotOlderThan':
      return false;
    case '':
      if ((query.get('continue') ?? '') !== '') return true;
      if (limit > 0 && resourceVersion !== '' && resourceVersion !== '0') return true;
      if (resourceVersion === '') return !consistentReadsFromCache;
      return false;
    default:
      return true;
  }
}

/** A label or field selector is set: storage reads more than it returns. */
export function hasSelector(query: URLSearchParams): boolean {
  return (query.get('labelSelector') ?? '') !== '' || (query.get('fieldSelector') ?? '') !== '';
}
