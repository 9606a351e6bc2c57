/**
 * Strategic merge patch directives and the clean-up of values taken from a patch as they are.
 *
 * - `$patch: replace | delete` in a map, `$patch: replace | delete` as a list element (`merge` is refused)
 * - `$deleteFromPrimitiveList/<field>: [...]` removes values from a merging list of primitives
 * - `$setElementOrder/<field>: [...]` orders a merging list
 * - `$retainKeys: [...]` clears the fields of a map that are not listed
 */
import { cloneJson, isJsonObject, setKey, type JsonObject, type JsonValue } from './json-value.ts';
import { BAD_PRIMITIVE_LIST, BAD_SET_ELEMENT_ORDER, mergeFailed } from './patch-errors.ts';

export const PATCH_DIRECTIVE = '$patch';
export const RETAIN_KEYS = '$retainKeys';
export const DELETE_FROM_PRIMITIVE_LIST = '$deleteFromPrimitiveList';
export const SET_ELEMENT_ORDER = '$setElementOrder';

/** True for the keys of parallel directive lists and `$retainKeys`, which never belong in an object. */
export function isDirectiveKey(key: string): boolean {
  return key === RETAIN_KEYS || key.startsWith(DELETE_FROM_PRIMITIVE_LIST) || key.startsWith(SET_ELEMENT_ORDER);
}

/**
 * The field a parallel-list directive key names (`$setElementOrder/containers` → `containers`).
 * @throws ApiError 400 for a key of the wrong form (`$setElementOrderX`, no `/`).
 */
export function directiveField(key: string, prefix: typeof DELETE_FROM_PRIMITIVE_LIST | typeof SET_ELEMENT_ORDER): string {
  const slash = key.indexOf('/');
  if (slash < 0 || key.slice(0, slash) !== prefix) {
    throw mergeFailed(prefix === DELETE_FROM_PRIMITIVE_LIST ? BAD_PRIMITIVE_LIST : BAD_SET_ELEMENT_ORDER);
  }
  return key.slice(slash + 1);
}

/**
 * A patch value as it goes into the result where there is nothing to merge with: object keys set to null
 * are dropped, maps carrying `$patch` are dropped (from objects and lists alike), and directive keys are
 * stripped. Returns undefined when the value itself is such a map. Works on a copy.
 */
export function cleanPatchValue(value: JsonValue): JsonValue | undefined {
  return clean(cloneJson(value));
}

function clean(value: JsonValue): JsonValue | undefined {
  if (Array.isArray(value)) {
    const out: JsonValue[] = [];
    for (const v of value) {
      const c = clean(v);
      if (c !== undefined) out.push(c);
    }
    return out;
  }
  if (!isJsonObject(value)) return value;
  if (Object.hasOwn(value, PATCH_DIRECTIVE)) return undefined;
  const out: JsonObject = {};
  for (const [k, v] of Object.entries(value)) {
    if (v === null || isDirectiveKey(k)) continue;
    const c = clean(v);
    if (c !== undefined) setKey(out, k, c);
  }
  return out;
}
