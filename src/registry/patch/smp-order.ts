/**
 * The order of a merged list, as strategic merge patch settles it: the patch's items keep the patch's
 * order (or `$setElementOrder`'s), the server-only items keep the live order, and the two are interleaved
 * by their live positions. An item missing from the live list goes before the server-only items that
 * follow it, so new items come first unless `$setElementOrder` places them.
 */
import type { ApiError } from '../../api/errors.ts';
import { goTypeName, goValue } from '../../api/go/values.ts';
import { isJsonObject, jsonEqual, ownValue, type JsonValue } from './json-value.ts';
import { PATCH_DIRECTIVE } from './smp-directives.ts';
import { mergeFailed } from './patch-errors.ts';

/** Whether list items are maps (matched by merge key) or primitives (matched by value). */
export type ItemKind = 'map' | 'primitive';

/** Go's `==` on decoded JSON scalars; structures compare by content. */
export function sameValue(a: JsonValue | undefined, b: JsonValue | undefined): boolean {
  if (a === undefined || b === undefined) return (a ?? null) === (b ?? null);
  return typeof a === 'object' && a !== null ? jsonEqual(a, b) : a === b;
}

export function noMergeKey(item: JsonValue, mergeKey: string): ApiError {
  return mergeFailed(`map: ${goValue(item)} does not contain declared merge key: ${mergeKey}`);
}

/** The merge key value of a list item (undefined when the item is not a map). */
export function keyOf(item: JsonValue, mergeKey: string): JsonValue | undefined {
  return isJsonObject(item) ? (ownValue(item, mergeKey) ?? null) : undefined;
}

function indexIn(list: readonly JsonValue[], item: JsonValue, mergeKey: string, kind: ItemKind): number {
  if (kind === 'primitive') return list.findIndex((v) => sameValue(v, item));
  const key = keyOf(item, mergeKey);
  return list.findIndex((v) => sameValue(keyOf(v, mergeKey), key));
}

/** Splits `items` into those present in `by` and the others, keeping their order. */
export function partition(items: readonly JsonValue[], by: readonly JsonValue[], mergeKey: string, kind: ItemKind): [JsonValue[], JsonValue[]] {
  const inBy: JsonValue[] = [];
  const others: JsonValue[] = [];
  for (const item of items) {
    if (kind === 'map' && (!isJsonObject(item) || !Object.hasOwn(item, mergeKey))) throw noMergeKey(item, mergeKey);
    (indexIn(by, item, mergeKey, kind) >= 0 ? inBy : others).push(item);
  }
  return [inBy, others];
}

function requireMergeKeys(mergeKey: string, ...lists: (readonly JsonValue[])[]): void {
  for (const list of lists) {
    for (const item of list) {
      if (!isJsonObject(item)) throw mergeFailed(`expected a map[string]interface {}, but received a ${goTypeName(item)}`);
      if (!Object.hasOwn(item, mergeKey)) throw noMergeKey(item, mergeKey);
    }
  }
}

/** `toSort` stably sorted by position in `order`; items to delete (`$patch: delete`) go last. */
function sortByOrder(toSort: readonly JsonValue[], order: readonly JsonValue[], mergeKey: string, kind: ItemKind): JsonValue[] {
  let keep = [...toSort];
  let deletions: JsonValue[] = [];
  if (kind === 'map') {
    requireMergeKeys(mergeKey, toSort, order);
    deletions = keep.filter((v) => isJsonObject(v) && v[PATCH_DIRECTIVE] === 'delete');
    keep = keep.filter((v) => !deletions.includes(v));
  }
  const position = (v: JsonValue): number => {
    const i = indexIn(order, v, mergeKey, kind);
    return i < 0 ? Number.MAX_SAFE_INTEGER : i;
  };
  const sorted = keep.map((v, i) => ({ v, i, p: position(v) })).sort((a, b) => a.p - b.p || a.i - b.i);
  return [...sorted.map((e) => e.v), ...deletions];
}

/**
 * Orders a merged list: `patchItems` by `patchOrder`, `serverOnly` by `serverOrder` (the live list), then
 * interleaves them, taking a server-only item first only when both are in the live list and it comes first.
 */
export function normalizeElementOrder(
  patchItems: readonly JsonValue[],
  serverOnly: readonly JsonValue[],
  patchOrder: readonly JsonValue[],
  serverOrder: readonly JsonValue[],
  mergeKey: string,
  kind: ItemKind,
): JsonValue[] {
  const right = sortByOrder(patchItems, patchOrder, mergeKey, kind);
  const left = sortByOrder(serverOnly, serverOrder, mergeKey, kind);
  const out: JsonValue[] = [];
  let i = 0;
  let j = 0;
  while (i < left.length && j < right.length) {
    const li = indexIn(serverOrder, left[i], mergeKey, kind);
    const ri = indexIn(serverOrder, right[j], mergeKey, kind);
    if (li >= 0 && ri >= 0 && li < ri) out.push(left[i++]);
    else out.push(right[j++]);
  }
  return [...out, ...left.slice(i), ...right.slice(j)];
}
