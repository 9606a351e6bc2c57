/**
 * The JSON object test the typed walkers share. Equality of JSON values (upstream's value.Equals) is
 * fieldpath's valuesEqual, the one path elements use.
 */
import type { JsonValue } from '../fieldpath/path-element.ts';

export type JsonObject = { [key: string]: JsonValue };

export function isJsonObject(v: JsonValue | undefined): v is JsonObject {
  return v !== null && typeof v === 'object' && !Array.isArray(v);
}
