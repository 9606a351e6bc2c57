import type { FieldError } from '../api/errors.ts';
import { configMapKeyErrors } from '../api/validation/names.ts';
import { canonicalJson } from '../registry/system-fields.ts';
import * as field from '../registry/validation/field.ts';

/** The key rules ConfigMap and Secret share. */
export function dataKeyErrors(map: string, key: string): FieldError[] {
  return configMapKeyErrors(key).map((detail) => field.invalid(field.path(map).key(key), key, detail));
}

export function isMap(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** Type errors for a map-of-strings field, plus key errors. */
export function stringMapErrors(map: string, value: unknown): FieldError[] {
  if (value === undefined || value === null) return [];
  if (!isMap(value)) return [field.typeInvalid(map, value, 'must be a map of strings')];
  const errs: FieldError[] = [];
  for (const [k, v] of Object.entries(value)) {
    errs.push(...dataKeyErrors(map, k));
    if (typeof v !== 'string') errs.push(field.typeInvalid(field.path(map).key(k), v, 'must be a string'));
  }
  return errs;
}

const BASE64_RE = /^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$/;

export function isBase64(value: string): boolean {
  return BASE64_RE.test(value);
}

/** Bytes of data a map holds (base64 values count decoded). */
export function dataSize(map: unknown, base64: boolean): number {
  if (!isMap(map)) return 0;
  let n = 0;
  for (const v of Object.values(map)) {
    if (typeof v !== 'string') continue;
    n += base64 ? Buffer.byteLength(v, 'base64') : Buffer.byteLength(v);
  }
  return n;
}

/** Immutable ConfigMaps and Secrets: once `immutable: true`, data and the flag itself stay. */
export function immutableDataErrors(obj: Record<string, unknown>, old: Record<string, unknown>, fields: string[]): FieldError[] {
  if (old.immutable !== true) return [];
  const errs: FieldError[] = [];
  if (obj.immutable !== true) {
    errs.push(field.forbidden('immutable', 'field is immutable when `immutable` is set'));
  }
  for (const f of fields) {
    if (canonicalJson(obj[f] ?? null) !== canonicalJson(old[f] ?? null)) {
      errs.push(field.forbidden(f, 'field is immutable when `immutable` is set'));
    }
  }
  return errs;
}

export const MAX_DATA_SIZE = 1024 * 1024;
