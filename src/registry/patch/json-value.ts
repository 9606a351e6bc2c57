import { cloneJson as cloneDeep } from '../../codecs/deep-json.ts';

/**
 * Plain JSON values as the patch code sees them: what `JSON.parse` returns, nothing else.
 */
export type JsonValue = null | boolean | number | string | JsonValue[] | JsonObject;
export interface JsonObject {
  [key: string]: JsonValue;
}

export function isJsonObject(v: unknown): v is JsonObject {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

/** Own keys only: `__proto__` or `constructor` in a document are ordinary keys, never inherited ones. */
export function hasKey(obj: JsonObject, key: string): boolean {
  return Object.hasOwn(obj, key);
}

/** The value under an own key, or undefined. */
export function ownValue(obj: JsonObject, key: string): JsonValue | undefined {
  return Object.hasOwn(obj, key) ? obj[key] : undefined;
}

/** Sets an own key, also `__proto__` (a plain assignment would change the prototype instead). */
export function setKey(obj: JsonObject, key: string, value: JsonValue): void {
  if (key === '__proto__') Object.defineProperty(obj, key, { value, enumerable: true, writable: true, configurable: true });
  else obj[key] = value;
}

/** A deep copy; inputs are never mutated by the patch code, its own copies are. */
export function cloneJson<T>(value: T): T {
  // Without recursion: structuredClone gives up at about 2,000 levels.
  return cloneDeep(value);
}

/** Structural equality; object key order does not matter. */
export function jsonEqual(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (Array.isArray(a)) {
    return Array.isArray(b) && a.length === b.length && a.every((v, i) => jsonEqual(v, b[i]));
  }
  if (isJsonObject(a) && isJsonObject(b)) {
    const keys = Object.keys(a);
    return keys.length === Object.keys(b).length && keys.every((k) => Object.hasOwn(b, k) && jsonEqual(a[k], b[k]));
  }
  return false;
}

/** The JSON kind as Go's decoder names it in `json: cannot unmarshal <kind> into …`. */
export function jsonKind(v: unknown): 'object' | 'array' | 'string' | 'number' | 'bool' | 'null' {
  if (v === null || v === undefined) return 'null';
  if (Array.isArray(v)) return 'array';
  if (typeof v === 'string') return 'string';
  if (typeof v === 'number') return 'number';
  if (typeof v === 'boolean') return 'bool';
  return 'object';
}
