import { badRequest } from './errors.ts';

/**
 * What a request is about, parsed once from the URL: the same attributes authorization,
 * audit and the handlers read.
 */
export interface RequestInfo {
  readonly isResourceRequest: boolean;
  readonly path: string;
  /** API verb (get, list, watch, create …) for resource requests; the lowercase method otherwise. */
  readonly verb: string;
  readonly apiPrefix: string;
  readonly apiGroup: string;
  readonly apiVersion: string;
  readonly namespace: string;
  readonly resource: string;
  readonly subresource: string;
  readonly name: string;
  /**
   * The path names a resource inside a namespace (`/namespaces/<ns>/<resource>…`) rather than a
   * namespace itself (`/namespaces/<name>[/status|/finalize]`); both set `namespace`.
   */
  readonly inNamespace: boolean;
  /** Path segments past the subresource (only meaningful for proxy-like subresources). */
  readonly parts: readonly string[];
  /** `name` came from a `metadata.name=` field selector (a list or watch), not from the path. */
  readonly nameFromSelector?: boolean;
  /**
   * The raw field and label selectors of a list, watch or deletecollection (upstream's selector
   * attributes), for authorizers that decide on them: the Node authorizer lets a kubelet list only
   * the pods whose `spec.nodeName` is its own.
   */
  readonly fieldSelector?: string;
  readonly labelSelector?: string;
}

/** Subresources of namespaces that are not namespaced resources inside them. */
const NAMESPACE_SUBRESOURCES = new Set(['status', 'finalize']);

const VERB_BY_METHOD: Record<string, string> = {
  POST: 'create',
  GET: 'get',
  HEAD: 'get',
  PUT: 'update',
  PATCH: 'patch',
  DELETE: 'delete',
};

function isTrue(value: string | null): boolean {
  return value !== null && value !== 'false' && value !== '0' && value !== 'False' && value !== 'FALSE';
}

/**
 * The path with its escapes decoded, as Go's URL.Path is (`my%2Dcm` names `my-cm`); 400 for a
 * malformed escape, and for an escaped NUL, which no stored name or namespace can hold.
 */
function decodePath(path: string): string {
  if (!path.includes('%')) return path;
  let decoded: string;
  try {
    decoded = decodeURIComponent(path);
  } catch {
    throw badRequest(`invalid URL escape in path ${JSON.stringify(path)}`);
  }
  if (decoded.includes('\u0000')) throw badRequest(`invalid NUL character in path ${JSON.stringify(path)}`);
  return decoded;
}

/** Parses `/api/v1/...` and `/apis/<group>/<version>/...` the way the real server does. */
export function parseRequestInfo(method: string, rawPath: string, query: URLSearchParams): RequestInfo {
  const path = decodePath(rawPath);
  const nonResource: RequestInfo = {
    isResourceRequest: false,
    path,
    verb: method.toLowerCase(),
    apiPrefix: '',
    apiGroup: '',
    apiVersion: '',
    namespace: '',
    resource: '',
    subresource: '',
    name: '',
    inNamespace: false,
    parts: [],
  };
  let segments = path.replace(/^\/+|\/+$/g, '').split('/');
  const prefix = segments[0];
  if (prefix !== 'api' && prefix !== 'apis') return nonResource;
  segments = segments.slice(1);
  let group = '';
  if (prefix === 'apis') {
    if (segments.length < 1) return nonResource;
    group = segments[0];
    segments = segments.slice(1);
  }
  if (segments.length < 1 || segments[0] === '') return { ...nonResource, apiPrefix: prefix, apiGroup: group };
  const version = segments[0];
  segments = segments.slice(1);
  if (segments.length < 1 || segments[0] === '') {
    return { ...nonResource, apiPrefix: prefix, apiGroup: group, apiVersion: version };
  }

  let verb = VERB_BY_METHOD[method] ?? method.toLowerCase();
  // The deprecated /watch/ path prefix.
  let legacyWatch = false;
  if (segments[0] === 'watch') {
    legacyWatch = true;
    segments = segments.slice(1);
  }

  let namespace = '';
  let inNamespace = false;
  if (segments[0] === 'namespaces') {
    if (segments.length > 1) {
      namespace = segments[1];
      if (segments.length > 2 && !NAMESPACE_SUBRESOURCES.has(segments[2])) {
        segments = segments.slice(2);
        inNamespace = true;
      }
    }
  }
  const resource = segments[0] ?? '';
  let name = segments[1] ?? '';
  const subresource = segments[2] ?? '';
  const parts = segments.slice(3);
  // For /api/v1/namespaces/<name> the namespace attribute is the namespace itself, as upstream.

  if (legacyWatch) verb = 'watch';
  else if (verb === 'get' && !name) verb = isTrue(query.get('watch')) ? 'watch' : 'list';
  else if (verb === 'delete' && !name) verb = 'deletecollection';

  let nameFromSelector = false;
  if (!name && (verb === 'list' || verb === 'watch')) {
    const fieldName = exactMetadataName(query.get('fieldSelector'));
    if (fieldName) {
      name = fieldName;
      nameFromSelector = true;
    }
  }
  const selectors: { fieldSelector?: string; labelSelector?: string } = {};
  if (verb === 'list' || verb === 'watch' || verb === 'deletecollection') {
    const fieldSelector = query.get('fieldSelector');
    const labelSelector = query.get('labelSelector');
    if (fieldSelector) selectors.fieldSelector = fieldSelector;
    if (labelSelector) selectors.labelSelector = labelSelector;
  }
  return {
    isResourceRequest: true,
    path,
    verb,
    apiPrefix: prefix,
    apiGroup: group,
    apiVersion: version,
    namespace,
    resource,
    subresource,
    name,
    inNamespace,
    parts,
    ...(nameFromSelector ? { nameFromSelector } : {}),
    ...selectors,
  };
}

/** `metadata.name=x` in a field selector names the object for authorization (as upstream). */
function exactMetadataName(selector: string | null): string | undefined {
  if (!selector) return undefined;
  for (const term of selector.split(',')) {
    const m = /^metadata\.name(==|=)(.+)$/.exec(term);
    if (m && !m[2].includes('/') && !m[2].includes('%') && m[2] !== '.' && m[2] !== '..') return m[2];
  }
  return undefined;
}
