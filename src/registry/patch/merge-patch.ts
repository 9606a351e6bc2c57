/**
 * JSON Merge Patch (RFC 7386, `application/merge-patch+json`) as kube-apiserver applies it
 * (evanphx/json-patch v4 `MergePatch`).
 *
 * `null` deletes a key, an object merges into an object, anything else replaces. A value that lands where
 * there was no object has its nulls pruned (object keys and, like the library, array elements too).
 * A body that is `null`, a string, a number or a boolean is 400 `Invalid JSON Patch`; an array replaces
 * the whole document and so fails to decode as the object (422 Invalid on `patch`).
 */
import { badRequest } from '../../api/errors.ts';
import { cloneJson, isJsonObject, ownValue, setKey, type JsonObject, type JsonValue } from './json-value.ts';
import { undecodableResult } from './patch-errors.ts';

function pruneNulls(value: JsonValue): JsonValue {
  if (Array.isArray(value)) return value.filter((v) => v !== null).map(pruneNulls);
  if (isJsonObject(value)) {
    for (const [k, v] of Object.entries(value)) {
      if (v === null) delete value[k];
      else setKey(value, k, pruneNulls(v));
    }
  }
  return value;
}

function mergeValue(current: JsonValue, patch: JsonValue): JsonValue {
  if (!isJsonObject(current)) return pruneNulls(patch);
  if (!isJsonObject(patch)) return patch;
  mergeObjects(current, patch);
  return current;
}

function mergeObjects(doc: JsonObject, patch: JsonObject): void {
  for (const [k, v] of Object.entries(patch)) {
    const current = ownValue(doc, k);
    if (v === null) delete doc[k];
    else if (current === undefined || current === null) setKey(doc, k, pruneNulls(v));
    else setKey(doc, k, mergeValue(current, v));
  }
}

/**
 * Applies an RFC 7386 merge patch to a copy of `current`.
 * @throws ApiError 400 `Invalid JSON Patch` when the patch is not an object or array,
 *   422 when it is an array (the result would not be an object).
 */
export function applyMergePatch(current: object, patch: unknown): JsonObject {
  if (Array.isArray(patch)) throw undecodableResult(pruneNulls(cloneJson(patch) as JsonValue));
  if (!isJsonObject(patch)) throw badRequest('Invalid JSON Patch');
  const doc = cloneJson(current) as JsonObject;
  mergeObjects(doc, cloneJson(patch));
  return doc;
}
