/**
 * `$setElementOrder/<field>: [...]`: the order the client wants for a merging list (kubectl sends it
 * with every list it changes). The patch's own items for that field must appear in it in the same
 * relative order. The list is merged as usual, then the listed items take the directive's order and the
 * live items it does not mention keep their places around them.
 */
import { goTypeName, goValue } from '../../api/go/values.ts';
import { isJsonObject, ownValue, setKey, type JsonObject, type JsonValue } from './json-value.ts';
import { lookupField, type PatchSchema } from './patch-schema.ts';
import { mergeFailed } from './patch-errors.ts';
import { cleanPatchValue, directiveField, PATCH_DIRECTIVE, SET_ELEMENT_ORDER } from './smp-directives.ts';
import { elementKind, mergeList, type MergeElement } from './smp-list.ts';
import { noMergeKey, normalizeElementOrder, partition, sameValue } from './smp-order.ts';

function notAList(value: JsonValue): Error {
  return mergeFailed(`expected a []interface {}, but received a ${goTypeName(value)}`);
}

function sameItem(a: JsonValue, b: JsonValue, mergeKey: string): boolean {
  if (!mergeKey) return sameValue(a, b);
  for (const item of [a, b]) {
    if (!isJsonObject(item)) throw mergeFailed(`expected a map[string]interface {}, but received a ${goTypeName(item)}`);
    if (!Object.hasOwn(item, mergeKey)) throw noMergeKey(item, mergeKey);
  }
  return sameValue((a as JsonObject)[mergeKey], (b as JsonObject)[mergeKey]);
}

/** The patch's items (deletions and other directives aside) must follow the directive's order. */
function checkOrder(patchList: readonly JsonValue[], order: readonly JsonValue[], mergeKey: string): void {
  if (order.length === 0 || patchList.length === 0) return;
  let items = patchList;
  if (mergeKey) {
    for (const v of patchList) {
      if (!isJsonObject(v)) throw mergeFailed(`expected a map[string]interface {}, but received a ${goTypeName(v)}`);
    }
    items = patchList.filter((v) => (v as JsonObject)[PATCH_DIRECTIVE] !== 'delete');
  }
  let p = 0;
  let o = 0;
  while (p < items.length && o < order.length) {
    const item = items[p];
    if (isJsonObject(item) && Object.hasOwn(item, PATCH_DIRECTIVE)) {
      p++;
      continue;
    }
    if (sameItem(item, order[o], mergeKey)) p++;
    o++;
  }
  if (p < items.length) {
    throw mergeFailed(`The order in patch list:\n${goValue(patchList)}\n doesn't match ${SET_ELEMENT_ORDER} list:\n${goValue(order)}\n`);
  }
}

/**
 * Handles every `$setElementOrder/<field>` of `patch`: merges that field into `original` in the wanted
 * order and takes both the directive and the field out of `patch`.
 */
export function applyElementOrders(original: JsonObject, patch: JsonObject, schema: PatchSchema, mergeElement: MergeElement): void {
  for (const key of Object.keys(patch)) {
    if (!key.startsWith(SET_ELEMENT_ORDER)) continue;
    const order = patch[key];
    delete patch[key];
    if (!Array.isArray(order)) throw notAList(order);
    const field = directiveField(key, SET_ELEMENT_ORDER);
    const live = ownValue(original, field);
    const wanted = ownValue(patch, field);
    if (live !== undefined && !Array.isArray(live)) throw notAList(live);
    if (wanted !== undefined && !Array.isArray(wanted)) throw notAList(wanted);
    const meta = lookupField(schema, field);
    checkOrder(wanted ?? [], order, meta.mergeKey);

    let merged: JsonValue[];
    if (live && wanted) {
      merged = meta.strategy === 'merge' ? mergeList(live, wanted, meta, false, mergeElement) : (cleanPatchValue(wanted) as JsonValue[]);
    } else if (wanted) {
      merged = cleanPatchValue(wanted) as JsonValue[];
    } else if (live) {
      merged = live;
    } else {
      continue;
    }
    delete patch[field];
    const liveList = live ?? [];
    if (liveList.length === 0 && (wanted ?? []).length === 0) {
      setKey(original, field, merged);
      continue;
    }
    const itemKind = elementKind(liveList, wanted ?? []);
    // Lists without a merge key are ordered by whole items.
    const kind = meta.mergeKey ? itemKind : 'primitive';
    const [listed, others] = partition(merged, order, meta.mergeKey, kind);
    setKey(original, field, normalizeElementOrder(listed, others, order, liveList, meta.mergeKey, kind));
  }
}
