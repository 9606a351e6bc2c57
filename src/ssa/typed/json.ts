/**
 * The JSON object test the typed walkers share. Equality of JSON values (upstream's value.Equals) is
 * fieldpath's valuesEqual, the one path elements use.
 */
import type { JsonValue } from '../fieldpath/path-element.ts';

export type JsonObject = { [key: string]: JsonValue };

export function isJsonObject(v: JsonValue | undefined): v is JsonObject {
  return v !== null && typeof v === 'object' && !Array.isArray(v);
}

/**
 * Sets an own key: `__proto__` is a valid key in JSON (a ConfigMap's data may have it), but a plain
 * assignment would set the object's prototype instead.
 */
export function setKey(obj: JsonObject, key: string, value: JsonValue): void {
  if (key === '__proto__') Object.defineProperty(obj, key, { value, writable: true, enumerable: true, configurable: true });
  else obj[key] = value;
}
