/**
 * ObjectMeta as upstream reads and writes it for custom resources (objectmeta/coerce.go): the JSON
 * is decoded into metav1.ObjectMeta (JSON type errors in Go's words, unknown fields dropped and
 * optionally reported) and written back with the unstructured converter, which
 *
 * - drops empty strings, zero generation, empty maps and lists (`omitempty`),
 * - prints times as RFC 3339 in UTC to the second, and a zero creationTimestamp as `null`,
 * - turns `null` into the zero value (a `null` label value becomes ""),
 * - always prints an owner reference's apiVersion, kind, name and uid.
 *
 * The decoded form is never built as a Go struct; the round trip is computed directly on the JSON.
 */
import { goTimeParseError, isCanonicalUtcTime, RFC3339 } from '../../../api/go/time.ts';
import { messageSchema } from '../../../schema/type-schema.ts';
import { findTypeError } from '../../../registry/type-check.ts';
import { isJsonObject, type JsonObject } from '../json.ts';

const OBJECT_META = 'k8s.io.apimachinery.pkg.apis.meta.v1.ObjectMeta';

const STRING_FIELDS = new Set(['name', 'generateName', 'namespace', 'selfLink', 'uid', 'resourceVersion']);
const KNOWN_FIELDS = new Set([
  ...STRING_FIELDS,
  'generation',
  'creationTimestamp',
  'deletionTimestamp',
  'deletionGracePeriodSeconds',
  'labels',
  'annotations',
  'ownerReferences',
  'finalizers',
  'managedFields',
]);
const OWNER_REFERENCE_FIELDS = new Set(['apiVersion', 'kind', 'name', 'uid', 'controller', 'blockOwnerDeletion']);
const MANAGED_FIELDS_ENTRY_FIELDS = new Set(['manager', 'operation', 'apiVersion', 'time', 'fieldsType', 'fieldsV1', 'subresource']);

/** Go's error decoding `metadata` into ObjectMeta, or undefined when it decodes. */
export function objectMetaDecodeError(metadata: unknown): string | undefined {
  if (metadata === null) return undefined;
  if (!isJsonObject(metadata)) {
    const what = Array.isArray(metadata) ? 'array' : typeof metadata === 'boolean' ? 'bool' : typeof metadata;
    return `json: cannot unmarshal ${what} into Go value of type v1.ObjectMeta`;
  }
  return findTypeError(messageSchema(OBJECT_META), metadata);
}

/** The paths of the fields ObjectMeta does not know, as the strict decoder names them under `prefix`. */
export function unknownObjectMetaFields(metadata: JsonObject, prefix: string): string[] {
  const out: string[] = [];
  for (const k of Object.keys(metadata)) {
    if (!KNOWN_FIELDS.has(k)) {
      out.push(`${prefix}.${k}`);
      continue;
    }
    const v = metadata[k];
    if (k === 'ownerReferences' || k === 'managedFields') {
      if (!Array.isArray(v)) continue;
      const known = k === 'ownerReferences' ? OWNER_REFERENCE_FIELDS : MANAGED_FIELDS_ENTRY_FIELDS;
      v.forEach((item, i) => {
        if (!isJsonObject(item)) return;
        for (const f of Object.keys(item)) if (!known.has(f)) out.push(`${prefix}.${k}[${i}].${f}`);
      });
    }
  }
  return out;
}

/**
 * ObjectMeta after Go's decode and the unstructured converter (see the module comment); `metadata`
 * must decode (objectMetaDecodeError undefined).
 */
export function roundTripObjectMeta(metadata: unknown): JsonObject {
  const m = isJsonObject(metadata) ? metadata : {};
  const out: JsonObject = {};
  for (const k of ['name', 'generateName', 'namespace', 'selfLink', 'uid', 'resourceVersion']) {
    const v = m[k];
    if (typeof v === 'string' && v !== '') out[k] = v;
  }
  if (typeof m.generation === 'number' && m.generation !== 0) out.generation = m.generation;
  // A struct, never empty to the converter: its zero prints as null.
  out.creationTimestamp = typeof m.creationTimestamp === 'string' ? unstructuredTime(m.creationTimestamp) : null;
  if (typeof m.deletionTimestamp === 'string') out.deletionTimestamp = unstructuredTime(m.deletionTimestamp);
  if (typeof m.deletionGracePeriodSeconds === 'number') out.deletionGracePeriodSeconds = m.deletionGracePeriodSeconds;
  for (const k of ['labels', 'annotations']) {
    const v = m[k];
    if (!isJsonObject(v)) continue;
    const keys = Object.keys(v);
    if (keys.length === 0) continue;
    const map: Record<string, string> = {};
    for (const key of keys) map[key] = typeof v[key] === 'string' ? (v[key] as string) : '';
    out[k] = map;
  }
  if (Array.isArray(m.ownerReferences) && m.ownerReferences.length > 0) out.ownerReferences = m.ownerReferences.map(ownerReference);
  if (Array.isArray(m.finalizers) && m.finalizers.length > 0) out.finalizers = m.finalizers.map((f) => (typeof f === 'string' ? f : ''));
  if (Array.isArray(m.managedFields) && m.managedFields.length > 0) out.managedFields = m.managedFields.map(managedFieldsEntry);
  return out;
}

function ownerReference(raw: unknown): JsonObject {
  const r = isJsonObject(raw) ? raw : {};
  const out: JsonObject = {};
  for (const k of ['apiVersion', 'kind', 'name', 'uid']) out[k] = typeof r[k] === 'string' ? r[k] : '';
  if (typeof r.controller === 'boolean') out.controller = r.controller;
  if (typeof r.blockOwnerDeletion === 'boolean') out.blockOwnerDeletion = r.blockOwnerDeletion;
  return out;
}

function managedFieldsEntry(raw: unknown): JsonObject {
  const e = isJsonObject(raw) ? raw : {};
  const out: JsonObject = {};
  for (const k of ['manager', 'operation', 'apiVersion']) if (typeof e[k] === 'string' && e[k] !== '') out[k] = e[k];
  if (typeof e.time === 'string') out.time = unstructuredTime(e.time);
  if (typeof e.fieldsType === 'string' && e.fieldsType !== '') out.fieldsType = e.fieldsType;
  if (e.fieldsV1 !== undefined && e.fieldsV1 !== null) out.fieldsV1 = e.fieldsV1;
  if (typeof e.subresource === 'string' && e.subresource !== '') out.subresource = e.subresource;
  return out;
}

const ZERO_TIME = '0001-01-01T00:00:00Z';
const RFC3339_PARTS = /^(\d{4})-(\d{2})-(\d{2})T(\d{1,2}):(\d{2}):(\d{2})(?:[.,]\d+)?(?:Z|([+-])(\d{2}):(\d{2}))$/;

/** metav1.Time's ToUnstructured of an RFC 3339 text Go accepts: UTC, whole seconds; the zero time is null. */
export function unstructuredTime(text: string): string | null {
  // Already UTC to the second (what the server writes): printed back as it is, unless it is the zero time.
  if (isCanonicalUtcTime(text)) return text === ZERO_TIME ? null : text;
  const m = goTimeParseError(text, RFC3339) === undefined ? RFC3339_PARTS.exec(text) : null;
  if (!m) return null;
  const d = new Date(0);
  d.setUTCFullYear(Number(m[1]), Number(m[2]) - 1, Number(m[3]));
  d.setUTCHours(Number(m[4]), Number(m[5]), Number(m[6]), 0);
  if (m[7]) {
    const offsetMinutes = (Number(m[8]) * 60 + Number(m[9])) * (m[7] === '-' ? -1 : 1);
    d.setTime(d.getTime() - offsetMinutes * 60_000);
  }
  const year = d.getUTCFullYear();
  if (year === 1 && d.getUTCMonth() === 0 && d.getUTCDate() === 1 && d.getUTCHours() === 0 && d.getUTCMinutes() === 0 && d.getUTCSeconds() === 0) {
    return null; // time.Time{}: IsZero
  }
  const pad = (n: number, w = 2) => String(n).padStart(w, '0');
  return `${pad(year, 4)}-${pad(d.getUTCMonth() + 1)}-${pad(d.getUTCDate())}T${pad(d.getUTCHours())}:${pad(d.getUTCMinutes())}:${pad(d.getUTCSeconds())}Z`;
}

/** Whether a written-back ObjectMeta has the zero creationTimestamp (to be removed, as coerce does). */
export function hasZeroCreationTimestamp(meta: JsonObject): boolean {
  return meta.creationTimestamp === null;
}

export interface GetObjectMetaOptions {
  /** Fields of the wrong JSON type are dropped one by one instead of failing the whole decode. */
  dropMalformedFields?: boolean;
  /** Report fields ObjectMeta does not know. */
  returnUnknownFieldPaths?: boolean;
  /** Where the object sits (`spec.template`); the root when empty. */
  parentPath?: string;
}

export interface ObjectMetaResult {
  /** The round-tripped ObjectMeta; undefined when there is no `metadata` or it cannot be read. */
  meta?: JsonObject;
  /** Whether `metadata` is present. */
  found: boolean;
  /** `metadata.foo` style paths of unknown fields, when asked for. */
  unknownFields: string[];
  /** Go's decode error, when the metadata cannot be read (and malformed fields are not dropped). */
  error?: string;
}

/**
 * Upstream's GetObjectMetaWithOptions: the object's metadata decoded as ObjectMeta. With
 * dropMalformedFields, fields of the wrong type are left out one by one (a metadata that is not an
 * object at all is still an error: `invalid metadata: expected object, got string`).
 */
export function getObjectMeta(obj: JsonObject, opts: GetObjectMetaOptions = {}): ObjectMetaResult {
  if (!Object.hasOwn(obj, 'metadata')) return { found: false, unknownFields: [] };
  const metadata = obj.metadata;
  const prefix = opts.parentPath ? `${opts.parentPath}.metadata` : 'metadata';
  const error = objectMetaDecodeError(metadata);
  if (error === undefined) {
    const unknownFields = opts.returnUnknownFieldPaths && isJsonObject(metadata) ? unknownObjectMetaFields(metadata, prefix) : [];
    return { meta: roundTripObjectMeta(metadata), found: true, unknownFields };
  }
  if (!opts.dropMalformedFields) return { found: true, unknownFields: [], error };
  if (!isJsonObject(metadata)) {
    const got = Array.isArray(metadata) ? '[]interface {}' : typeof metadata === 'boolean' ? 'bool' : typeof metadata === 'number' ? (Number.isInteger(metadata) ? 'int64' : 'float64') : 'string';
    return { found: false, unknownFields: [], error: `invalid metadata: expected object, got ${got}` };
  }
  const accepted: JsonObject = {};
  for (const k of Object.keys(metadata)) {
    const single = { [k]: metadata[k] };
    if (objectMetaDecodeError(single) === undefined) accepted[k] = metadata[k];
  }
  const unknownFields = opts.returnUnknownFieldPaths ? unknownObjectMetaFields(accepted, prefix) : [];
  return { meta: roundTripObjectMeta(accepted), found: true, unknownFields };
}

/** Upstream's SetObjectMeta: writes the round-tripped metadata back (removes it for undefined). */
export function setObjectMeta(obj: JsonObject, meta: JsonObject | undefined): void {
  if (meta === undefined) delete obj.metadata;
  else obj.metadata = meta;
}
