/** Shapes shared by the conversion code: objects as JSON holds them, and group/version/kind texts as Go prints them. */

/** A custom resource as decoded JSON: apiVersion, kind, metadata and whatever else. */
export type UnstructuredObject = Record<string, unknown> & { apiVersion?: unknown; kind?: unknown; metadata?: unknown };

/** schema.ParseGroupVersion's split, lenient: `v1` is the core group. */
export function splitApiVersion(apiVersion: string): { group: string; version: string } {
  const slash = apiVersion.indexOf('/');
  return slash < 0 ? { group: '', version: apiVersion } : { group: apiVersion.slice(0, slash), version: apiVersion.slice(slash + 1) };
}

/** GroupVersionKind.String(): `group/version, Kind=Kind`. */
export function gvkText(apiVersion: string, kind: string): string {
  const { group, version } = splitApiVersion(apiVersion);
  return `${group}/${version}, Kind=${kind}`;
}

/** The Go type name `%T` prints for a decoded JSON value. */
export function goTypeName(v: unknown): string {
  if (v === null || v === undefined) return '<nil>';
  if (Array.isArray(v)) return '[]interface {}';
  switch (typeof v) {
    case 'string':
      return 'string';
    case 'number':
      return Number.isInteger(v) ? 'int64' : 'float64';
    case 'boolean':
      return 'bool';
    default:
      return 'map[string]interface {}';
  }
}

export const apiVersionOf = (o: UnstructuredObject): string => (typeof o.apiVersion === 'string' ? o.apiVersion : '');
export const kindOf = (o: UnstructuredObject): string => (typeof o.kind === 'string' ? o.kind : '');
