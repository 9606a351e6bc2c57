/**
 * JSON value helpers with upstream's notion of equality (value.Equals): numbers compare numerically,
 * maps compare key by key regardless of order, and an explicit null differs from an absent key.
 */
import type { JsonValue } from '../fieldpath/path-element.ts';

export type JsonObject = { [key: string]: JsonValue };

export function isJsonObject(v: JsonValue | undefined): v is JsonObject {
  return v !== null && typeof v === 'object' && !Array.isArray(v);
}

export function jsonEquals(a: JsonValue, b: JsonValue): boolean {
  if (a === b) return true;
  if (a === null || b === null || typeof a !== 'object' || typeof b !== 'object') return false;
  if (Array.isArray(a)) {
    if (!Array.isArray(b) || a.length !== b.length) return false;
    for (let i = 0; i < a.length; i++) if (!jsonEquals(a[i]!, b[i]!)) return false;
    return true;
  }
  if (Array.isArray(b)) return false;
  const keys = Object.keys(a);
  if (keys.length !== Object.keys(b).length) return false;
  for (const k of keys) {
    if (!Object.hasOwn(b, k) || !jsonEquals(a[k]!, b[k]!)) return false;
  }
  return true;
}
