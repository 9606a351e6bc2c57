/**
 * What a conversion webhook may change in metadata: only labels and annotations. The identity
 * fields are compared first (validateConvertedObject), then the original metadata is put back with
 * the webhook's labels and annotations on it (restoreObjectMeta), which must still be valid.
 */
import { qualifiedNameErrors } from '../../api/validation/names.ts';
import type { FieldError } from '../../api/errors.ts';
import * as field from '../../registry/validation/field.ts';
import { labelMapErrors } from '../../registry/validation/label-selector.ts';
import { aggregateText } from '../schema/field-errors.ts';
import type { UnstructuredObject } from './types.ts';
import { goTypeName } from './types.ts';

const TOTAL_ANNOTATION_SIZE = 256 * 1024;

const isMap = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

function metaString(obj: UnstructuredObject, key: string): string {
  const meta = obj.metadata;
  const v = isMap(meta) ? meta[key] : undefined;
  return typeof v === 'string' ? v : '';
}

/** The converted object keeps kind, name, namespace and uid; returns the refusal text, if any. */
export function convertedIdentityError(original: UnstructuredObject, converted: UnstructuredObject): string | undefined {
  const kind = (o: UnstructuredObject) => (typeof o.kind === 'string' ? o.kind : '');
  if (kind(original) !== kind(converted)) return `must have the same kind: ${kind(original)} != ${kind(converted)}`;
  for (const [key, label] of [['name', 'name'], ['namespace', 'namespace'], ['uid', 'UID']] as const) {
    const e = metaString(original, key);
    const a = metaString(converted, key);
    if (e !== a) return `must have the same ${label}: ${e} != ${a}`;
  }
  return undefined;
}

/** ValidateAnnotations' key and total-size rules, under upstream's (singular) `metadata.annotation` path. */
function annotationErrors(annotations: Record<string, string>): FieldError[] {
  const at = field.path('metadata', 'annotation');
  const errs: FieldError[] = [];
  let size = 0;
  for (const [k, v] of Object.entries(annotations)) {
    for (const msg of qualifiedNameErrors(k.toLowerCase())) errs.push(field.invalid(at, k, msg));
    size += Buffer.byteLength(k) + Buffer.byteLength(v);
  }
  if (size > TOTAL_ANNOTATION_SIZE) errs.push(field.tooLong(at, TOTAL_ANNOTATION_SIZE));
  return errs;
}

/**
 * The converted object with the original's metadata, except labels and annotations as the webhook
 * returned them (checked only when they changed, so stored oddities do not block reads). Throws the
 * refusal text.
 */
export function restoreObjectMeta(original: UnstructuredObject, converted: UnstructuredObject): UnstructuredObject {
  if (!('metadata' in converted)) throw new Error('missing metadata in converted object');
  const responseMeta = converted.metadata;
  if (!isMap(responseMeta)) throw new Error(`invalid metadata of type ${goTypeName(responseMeta)} in converted object`);
  const restored: Record<string, unknown> = 'metadata' in original ? structuredClone(original.metadata) as Record<string, unknown> : {};
  if (!isMap(restored)) throw new Error(`invalid metadata of type ${goTypeName(restored)} in input object`);
  for (const fld of ['labels', 'annotations'] as const) {
    const response = responseMeta[fld];
    if (response === undefined || response === null) {
      delete restored[fld];
      continue;
    }
    if (!isMap(response)) throw new Error(`invalid metadata.${fld} of type ${goTypeName(response)} in converted object`);
    const originalField = restored[fld];
    if (originalField !== undefined && originalField !== null && !isMap(originalField)) {
      throw new Error(`invalid metadata.${fld} of type ${goTypeName(originalField)} in original object`);
    }
    const before = (originalField ?? {}) as Record<string, unknown>;
    let changed = Object.keys(before).length !== Object.keys(response).length;
    for (const [k, v] of Object.entries(response)) {
      if (typeof v !== 'string') throw new Error(`metadata.${fld}[${k}] must be a string, but is ${goTypeName(v)} in converted object`);
      if (before[k] !== v) changed = true;
    }
    if (changed) {
      const strings = response as Record<string, string>;
      const errs = fld === 'labels' ? labelMapErrors(strings, field.path('metadata', 'labels')) : annotationErrors(strings);
      if (errs.length > 0) throw new Error(aggregateText(errs));
    }
    restored[fld] = response;
  }
  return { ...converted, metadata: restored };
}
