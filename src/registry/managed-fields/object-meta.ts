/**
 * Reading and writing the parts of a JSON object this layer touches, with the semantics of
 * upstream's unstructured accessors (a field of the wrong type reads as absent).
 */
export type JsonObject = Record<string, unknown>;

export function isJsonObject(v: unknown): v is JsonObject {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

function metadataOf(obj: JsonObject): JsonObject | undefined {
  return isJsonObject(obj.metadata) ? obj.metadata : undefined;
}

/** metadata.managedFields as sent or stored (undefined when absent). */
export function managedFieldsOf(obj: JsonObject): unknown {
  return metadataOf(obj)?.managedFields;
}

/** Sets metadata.managedFields; undefined removes the field (upstream's SetManagedFields(nil)). */
export function setManagedFields(obj: JsonObject, entries: readonly unknown[] | undefined): void {
  if (entries === undefined) {
    const meta = metadataOf(obj);
    if (meta) delete meta.managedFields;
    return;
  }
  const meta = metadataOf(obj) ?? (obj.metadata = {});
  (meta as JsonObject).managedFields = [...entries];
}

/** A shallow copy without metadata.managedFields (the rest shared, so never mutate it). */
export function withoutManagedFields(obj: JsonObject): JsonObject {
  const meta = metadataOf(obj);
  if (!meta || !('managedFields' in meta)) return obj;
  const { managedFields: _dropped, ...rest } = meta;
  return { ...obj, metadata: rest };
}

export function stringField(obj: JsonObject | undefined, key: string): string {
  const v = obj?.[key];
  return typeof v === 'string' ? v : '';
}

export function uidOf(obj: JsonObject): string {
  return stringField(metadataOf(obj), 'uid');
}

export interface GroupVersionKind {
  readonly group: string;
  readonly version: string;
  readonly kind: string;
}

/** Upstream's ParseGroupVersion; undefined for a string with more than one '/'. */
export function parseGroupVersion(apiVersion: string): { group: string; version: string } | undefined {
  if (apiVersion === '' || apiVersion === '/') return { group: '', version: '' };
  const parts = apiVersion.split('/');
  if (parts.length === 1) return { group: '', version: apiVersion };
  if (parts.length === 2) return { group: parts[0]!, version: parts[1]! };
  return undefined;
}

/** The kind an unstructured object says it is: all empty when its apiVersion does not parse. */
export function objectGvk(obj: JsonObject): GroupVersionKind {
  const gv = parseGroupVersion(stringField(obj, 'apiVersion'));
  return gv ? { ...gv, kind: stringField(obj, 'kind') } : { group: '', version: '', kind: '' };
}

/** GroupVersion.String(): `apps/v1`, or just the version for the core group. */
export function groupVersionString(gv: { group: string; version: string }): string {
  return gv.group ? `${gv.group}/${gv.version}` : gv.version;
}

/** GroupVersionKind.String(): `apps/v1, Kind=Deployment`, `/v1, Kind=ConfigMap`. */
export function gvkString(gvk: GroupVersionKind): string {
  return `${gvk.group}/${gvk.version}, Kind=${gvk.kind}`;
}

/** Upstream's objectGVKNN, which names the object in typing errors: `ns/name; apps/v1, Kind=Deployment`. */
export function describeObject(obj: JsonObject, gvk: GroupVersionKind): string {
  const meta = metadataOf(obj);
  return `${stringField(meta, 'namespace')}/${stringField(meta, 'name')}; ${gvkString(gvk)}`;
}
