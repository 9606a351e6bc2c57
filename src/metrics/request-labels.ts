import type { RequestInfo } from '../api/request-info.ts';

/**
 * The label values of request metrics, cleaned as kube-apiserver cleans them (endpoints/metrics):
 * verbs are upper case and come from the HTTP method (GET on a collection is LIST, a watch is WATCH,
 * a server-side apply PATCH is APPLY, a connect subresource is CONNECT) and anything unexpected is
 * `other`; dry_run is `All`, `invalid` or empty. Nothing here takes a name or a namespace.
 */

export type MetricsScope = 'resource' | 'namespace' | 'cluster' | '';

export const OTHER_VERB = 'other';
/** The verbs upstream reports, and `other` for any other method, so that methods cannot grow the label. */
export const REPORTED_VERBS: readonly string[] = [
  'APPLY', 'CONNECT', 'CREATE', 'DELETE', 'DELETECOLLECTION', 'GET', 'LIST', 'PATCH', 'POST', 'PROXY', 'PUT', 'UPDATE', 'WATCH', 'WATCHLIST', OTHER_VERB,
];
const KNOWN_VERBS = new Set(REPORTED_VERBS);
const CONNECT_SUBRESOURCES = new Set(['log', 'exec', 'portforward', 'attach', 'proxy']);
/** types.ApplyPatchType, compared as upstream compares it (the whole header). */
const APPLY_PATCH_TYPE = 'application/apply-patch+yaml';

/**
 * The scope of the route that served a resource request, as upstream's installer gives each route
 * one: `resource` for a path naming an object and for a create, `namespace` for a namespaced
 * collection, `cluster` for a cluster-scoped collection and for a list across all namespaces.
 */
export function routeScope(info: RequestInfo, namespaced: boolean): MetricsScope {
  if ((info.name !== '' && !info.nameFromSelector) || info.verb === 'create') return 'resource';
  return namespaced && info.inNamespace ? 'namespace' : 'cluster';
}

/** Upstream's CleanScope, for requests that reached no route (a 429 at the in-flight limit, an abort). */
export function requestScope(info: RequestInfo): MetricsScope {
  if (info.name !== '' || info.verb === 'create') return 'resource';
  if (info.namespace !== '') return 'namespace';
  return info.isResourceRequest ? 'cluster' : '';
}

/** `watch=` as upstream reads it for metrics: its first value, anything but 0 and false (any case). */
export function watchRequested(rawQuery: string, query: URLSearchParams): boolean {
  if (!rawQuery.includes('watch')) return false;
  const value = query.get('watch');
  if (value === null) return false;
  const lower = value.toLowerCase();
  return lower !== '0' && lower !== 'false';
}

/**
 * The reported verb: CanonicalVerb then cleanVerb. `contentType` is only read for PATCH (pass a
 * function so that other requests do not look the header up).
 */
export function reportedVerb(method: string, scope: MetricsScope, info: RequestInfo, watchQuery: boolean, contentType: () => string): string {
  // The legacy /watch/ paths and ?watch=true lists (the installer's WATCH and WATCHLIST routes).
  if (info.verb === 'watch') return 'WATCH';
  let verb = method;
  if (verb === 'GET' || verb === 'HEAD') verb = scope !== 'resource' && scope !== '' ? 'LIST' : 'GET';
  if (method === 'GET' && watchQuery) verb = 'WATCH';
  if (verb === 'PATCH' && contentType() === APPLY_PATCH_TYPE) verb = 'APPLY';
  if (info.isResourceRequest && CONNECT_SUBRESOURCES.has(info.subresource)) verb = 'CONNECT';
  return KNOWN_VERBS.has(verb) ? verb : OTHER_VERB;
}

/**
 * dry_run: empty without the parameter (checked on the raw query first, so most requests parse
 * nothing), `invalid` when a value is not `All` (the only one the server accepts), `All` otherwise.
 */
export function cleanDryRun(rawQuery: string, query: URLSearchParams): string {
  if (!rawQuery.includes('dryRun')) return '';
  const values = query.getAll('dryRun');
  if (values.some((v) => v !== 'All')) return 'invalid';
  return values.length > 0 ? 'All' : '';
}
