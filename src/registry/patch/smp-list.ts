/**
 * Merging a list whose field has `patchStrategy: merge`.
 *
 * Lists of primitives are merged as sets (or, for `$deleteFromPrimitiveList`, have values removed).
 * Lists of maps are merged element-wise by the field's merge key: `$patch: delete` elements remove every
 * live element with their key, a `$patch: replace` element makes the patch's elements the whole list,
 * elements with a known key merge into it, others are added. The order is then settled by smp-order.ts.
 */
import { goString, goTypeName, goValue } from '../../api/go/values.ts';
import { isJsonObject, type JsonObject, type JsonValue } from './json-value.ts';
import type { FieldPatchMeta, PatchSchema } from './patch-schema.ts';
import { schemaName } from './patch-schema.ts';
import { listOfLists, mergeFailed } from './patch-errors.ts';
import { cleanPatchValue, PATCH_DIRECTIVE } from './smp-directives.ts';
import { keyOf, noMergeKey, normalizeElementOrder, partition, sameValue, type ItemKind } from './smp-order.ts';

/** Merges one patch map into one live map (the strategic merge of a matched list element). */
export type MergeElement = (original: JsonObject, patch: JsonObject, schema: PatchSchema) => JsonObject;

/**
 * Whether the items of the lists are maps or primitives; all must have the same Go type.
 * @throws ApiError 422 for lists of lists, 400 for mixed types.
 */
export function elementKind(...lists: (readonly JsonValue[])[]): ItemKind {
  let first: string | undefined;
  for (const item of lists.flat()) {
    const type = goTypeName(item);
    if (first === undefined) {
      first = type;
      if (Array.isArray(item)) throw listOfLists();
    } else if (type !== first) {
      throw mergeFailed(`list element types are not identical: ${goValue(lists)}`);
    }
  }
  return first === 'map[string]interface {}' ? 'map' : 'primitive';
}

/** Applies `$patch` elements: returns the live list to merge into and the patch without them. */
function applySpecialElements(original: JsonValue[], patch: JsonObject[], mergeKey: string): [JsonValue[], JsonObject[]] {
  const plain: JsonObject[] = [];
  let replace = false;
  let base = original;
  for (const item of patch) {
    if (!Object.hasOwn(item, PATCH_DIRECTIVE)) {
      plain.push(item);
      continue;
    }
    const directive = item[PATCH_DIRECTIVE];
    if (directive === 'delete') {
      if (!Object.hasOwn(item, mergeKey)) throw noMergeKey(item, mergeKey);
      base = base.filter((v) => !(isJsonObject(v) && Object.hasOwn(v, mergeKey) && sameValue(v[mergeKey], item[mergeKey])));
    } else if (directive === 'replace') {
      replace = true;
    } else if (directive === 'merge') {
      throw mergeFailed('merging lists cannot yet be specified in the patch');
    } else {
      throw mergeFailed(`unknown patch type: ${goString(directive)} in map: ${goValue(item)}`);
    }
  }
  if (replace) return [plain.map((v) => cleanPatchValue(v) ?? {}), []];
  return [base, plain];
}

function mergeMaps(base: JsonValue[], patch: JsonObject[], meta: FieldPatchMeta, mergeElement: MergeElement): JsonValue[] {
  const merged = [...base];
  for (const item of patch) {
    if (!Object.hasOwn(item, meta.mergeKey)) throw noMergeKey(item, meta.mergeKey);
    const key = item[meta.mergeKey];
    const at = merged.findIndex((v) => isJsonObject(v) && Object.hasOwn(v, meta.mergeKey) && sameValue(keyOf(v, meta.mergeKey), key));
    if (at >= 0) merged[at] = mergeElement(merged[at] as JsonObject, item, meta.schema);
    else merged.push(cleanPatchValue(item) ?? {});
  }
  return merged;
}

/**
 * The strategic merge of a live list and a patch list for a field with the merge strategy (or of a
 * `$deleteFromPrimitiveList` list, `deleteList`). Works on lists the caller owns.
 */
export function mergeList(
  original: JsonValue[],
  patch: JsonValue[],
  meta: FieldPatchMeta,
  deleteList: boolean,
  mergeElement: MergeElement,
): JsonValue[] {
  if (original.length === 0 && patch.length === 0) return original;
  const kind = elementKind(original, patch);
  if (kind === 'primitive') {
    if (deleteList) return original.filter((v) => !patch.some((p) => sameValue(p, v)));
    const both = [...original, ...patch];
    const merged = both.filter((v, i) => both.findIndex((w) => sameValue(v, w)) === i);
    const [patchItems, serverOnly] = partition(merged, patch, '', kind);
    return normalizeElementOrder(patchItems, serverOnly, patch, original, '', kind);
  }
  if (!meta.mergeKey) throw mergeFailed(`cannot merge lists without merge key for ${schemaName(meta.schema)}`);
  const [base, items] = applySpecialElements(original, patch as JsonObject[], meta.mergeKey);
  const merged = mergeMaps(base, items, meta, mergeElement);
  const [patchItems, serverOnly] = partition(merged, items, meta.mergeKey, kind);
  return normalizeElementOrder(patchItems, serverOnly, items, base, meta.mergeKey, kind);
}
