/**
 * Strategic merge patch (`application/strategic-merge-patch+json`), driven by the schema's patch markers
 * the way kube-apiserver's strategicpatch package is driven by Go struct tags.
 *
 * Maps merge key by key and `null` deletes a key. Lists are replaced unless their field has
 * `patchStrategy: merge` (see smp-list.ts). Fields the schema does not know merge like a JSON merge
 * patch. A value with nothing to merge with is taken from the patch without its nulls and directives.
 * Directives: `$patch`, `$retainKeys`, `$setElementOrder/…`, `$deleteFromPrimitiveList/…`; none of them
 * is ever left in the result.
 *
 * @example
 * applyStrategicMergePatch(pod, { spec: { containers: [{ name: 'app', image: 'nginx:2' }] } },
 *   'k8s.io.api.core.v1.Pod'); // updates the container named app, keeps the others
 */
import type { ObjectSchema } from '../../schema/type-schema.ts';
import { badRequest } from '../../api/errors.ts';
import { goString, goValue } from '../../api/go/values.ts';
import { cloneJson, isJsonObject, jsonKind, ownValue, setKey, type JsonObject, type JsonValue } from './json-value.ts';
import { lookupField, type PatchSchema } from './patch-schema.ts';
import { BAD_RETAIN_KEYS, mergeFailed, undecodablePatch, UNSUPPORTED_SMP } from './patch-errors.ts';
import {
  cleanPatchValue,
  DELETE_FROM_PRIMITIVE_LIST,
  directiveField,
  PATCH_DIRECTIVE,
  RETAIN_KEYS,
  SET_ELEMENT_ORDER,
} from './smp-directives.ts';
import { applyElementOrders } from './smp-element-order.ts';
import { mergeList } from './smp-list.ts';

/** A map carrying `$patch`: `replace` makes the rest of it the value, `delete` makes the value empty. */
function mapDirective(patch: JsonObject): JsonObject {
  const directive = patch[PATCH_DIRECTIVE];
  if (directive === 'delete') return {};
  if (directive !== 'replace') throw mergeFailed(`unknown patch type: ${goString(directive)} in map: ${goValue(patch)}`);
  const rest = { ...patch };
  delete rest[PATCH_DIRECTIVE];
  return (cleanPatchValue(rest) as JsonObject | undefined) ?? {};
}

/** The value of a map field with `patchStrategy: replace`. */
function replaceMap(patch: JsonObject): JsonObject {
  return Object.hasOwn(patch, PATCH_DIRECTIVE) ? mapDirective(patch) : (cleanPatchValue(patch) as JsonObject);
}

/** `$retainKeys`: fields of `original` not listed are cleared; the patch may only set listed fields. */
function applyRetainKeys(original: JsonObject, patch: JsonObject): void {
  if (!Object.hasOwn(patch, RETAIN_KEYS)) return;
  const list = patch[RETAIN_KEYS];
  delete patch[RETAIN_KEYS];
  if (!Array.isArray(list)) throw mergeFailed(BAD_RETAIN_KEYS);
  const retained = (key: string): boolean => list.includes(key);
  for (const [key, value] of Object.entries(patch)) {
    if (value === null || key.startsWith(DELETE_FROM_PRIMITIVE_LIST) || key.startsWith(SET_ELEMENT_ORDER)) continue;
    if (!retained(key)) throw mergeFailed(BAD_RETAIN_KEYS);
  }
  for (const key of Object.keys(original)) {
    if (!retained(key)) delete original[key];
  }
}

function shape(v: JsonValue): 'map' | 'list' | 'scalar' {
  return isJsonObject(v) ? 'map' : Array.isArray(v) ? 'list' : 'scalar';
}

/** Puts a patch value where there is nothing to merge with. */
function put(original: JsonObject, key: string, value: JsonValue): void {
  const clean = cleanPatchValue(value);
  if (clean === undefined) delete original[key];
  else setKey(original, key, clean);
}

/** Merges `patch` into `original` (both owned by the caller, both changed) and returns the result. */
function mergeMap(original: JsonObject, patch: JsonObject, schema: PatchSchema): JsonObject {
  if (Object.hasOwn(patch, PATCH_DIRECTIVE)) return mapDirective(patch);
  applyRetainKeys(original, patch);
  applyElementOrders(original, patch, schema, mergeMap);

  for (const [patchKey, value] of Object.entries(patch)) {
    const deleteList = patchKey.startsWith(DELETE_FROM_PRIMITIVE_LIST);
    const key = deleteList ? directiveField(patchKey, DELETE_FROM_PRIMITIVE_LIST) : patchKey;
    if (value === null) {
      delete original[key];
      continue;
    }
    const current = ownValue(original, key);
    if (current === undefined || current === null || shape(current) !== shape(value)) {
      if (!deleteList) put(original, key, value);
      continue;
    }
    const meta = lookupField(schema, key);
    if (isJsonObject(current)) {
      const patchMap = value as JsonObject;
      setKey(original, key, meta.strategy === 'replace' ? replaceMap(patchMap) : mergeMap(current, patchMap, meta.schema));
    } else if (Array.isArray(current)) {
      const merges = meta.strategy === 'merge' || deleteList;
      if (merges) setKey(original, key, mergeList(current, value as JsonValue[], meta, deleteList, mergeMap));
      else put(original, key, value);
    } else if (!deleteList) {
      setKey(original, key, value);
    }
  }
  return original;
}

/**
 * Applies a strategic merge patch to a copy of `current`, an object of `schema` (undefined: a kind
 * without a schema to merge by, refused).
 * A `null` patch changes nothing.
 * @throws ApiError 400 when the patch is not an object or a directive is malformed (see patch-errors.ts),
 *   422 for lists of lists.
 */
export function applyStrategicMergePatch(current: object, patch: unknown, schema: ObjectSchema | undefined): JsonObject {
  if (!schema) throw badRequest(UNSUPPORTED_SMP);
  if (patch === null || patch === undefined) return cloneJson(current) as JsonObject;
  if (!isJsonObject(patch)) throw undecodablePatch(jsonKind(patch), 'map[string]interface {}');
  return mergeMap(cloneJson(current) as JsonObject, cloneJson(patch), schema);
}
