import type { FieldError } from '../api/errors.ts';
import { configMapKeyErrors } from '../api/validation/names.ts';
import { canonicalJson } from '../registry/system-fields.ts';

/** The key rules ConfigMap and Secret share. */
export function dataKeyErrors(field: string, key: string): FieldError[] {
  return configMapKeyErrors(key).map((detail) => ({ type: 'FieldValueInvalid', field: `${field}[${key}]`, value: key, detail }));
}

export function isMap(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** Type errors for a map-of-strings field, plus key errors. */
export function stringMapErrors(field: string, value: unknown): FieldError[] {
  if (value === undefined || value === null) return [];
  if (!isMap(value)) return [{ type: 'FieldValueTypeInvalid', field, value, detail: 'must be a map of strings' }];
  const errs: FieldError[] = [];
  for (const [k, v] of Object.entries(value)) {
    errs.push(...dataKeyErrors(field, k));
    if (typeof v !== 'string') errs.push({ type: 'FieldValueTypeInvalid', field: `${field}[${k}]`, value: v, detail: 'must be a string' });
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
    errs.push({ type: 'FieldValueForbidden', field: 'immutable', detail: 'field is immutable when `immutable` is set' });
  }
  for (const f of fields) {
    if (canonicalJson(obj[f] ?? null) !== canonicalJson(old[f] ?? null)) {
      errs.push({ type: 'FieldValueForbidden', field: f, detail: 'field is immutable when `immutable` is set' });
    }
  }
  return errs;
}

export const MAX_DATA_SIZE = 1024 * 1024;
