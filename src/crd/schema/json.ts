/**
 * Decoded-JSON helpers for the schema walks: the object test, a deep copy and reflect.DeepEqual.
 * Objects are plain records and arrays plain arrays; nothing else (no Dates, no Maps) appears in a
 * decoded custom resource.
 */

export type JsonObject = Record<string, unknown>;

/** A JSON object: not null, not an array. */
export function isJsonObject(v: unknown): v is JsonObject {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

/** runtime.DeepCopyJSONValue. */
export function deepCopyJson<T>(v: T): T {
  if (Array.isArray(v)) return v.map(deepCopyJson) as T;
  if (isJsonObject(v)) {
    const out: JsonObject = {};
    for (const k of Object.keys(v)) out[k] = deepCopyJson(v[k]);
    return out as T;
  }
  return v;
}

/**
 * reflect.DeepEqual of two decoded JSON values. (Go tells an int64 1 from a float64 1.0; decoded
 * JSON here keeps only the number, so they are equal.)
 */
export function deepEqualJson(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (Array.isArray(a)) {
    if (!Array.isArray(b) || a.length !== b.length) return false;
    for (let i = 0; i < a.length; i++) if (!deepEqualJson(a[i], b[i])) return false;
    return true;
  }
  if (isJsonObject(a)) {
    if (!isJsonObject(b)) return false;
    const ak = Object.keys(a);
    if (ak.length !== Object.keys(b).length) return false;
    for (const k of ak) {
      if (!Object.hasOwn(b, k) || !deepEqualJson(a[k], b[k])) return false;
    }
    return true;
  }
  return false;
}
