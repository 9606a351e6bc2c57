/**
 * How an item of an associative list is named in a field path: by its key fields (a list map), or by
 * its own value (a set). Error texts are upstream's, since they surface in apply responses.
 */
import { goQuoteList } from '../../api/go/quote.ts';
import { sortKeyFields, type JsonValue, type PathElement } from '../fieldpath/path-element.ts';
import type { ListAtom } from './atoms.ts';
import { errorAt, type ValidationError } from './errors.ts';
import { isJsonObject } from './json.ts';
import { peKey } from './pe-key.ts';

export type ItemName = { readonly pe: PathElement; readonly error?: undefined } | { readonly pe?: undefined; readonly error: string };

function keyedItemName(list: ListAtom, child: JsonValue): ItemName {
  if (child === null) return { error: 'associative list with keys may not have a null element' };
  if (!isJsonObject(child)) return { error: 'associative list with keys may not have non-map elements' };
  const fields: (readonly [string, JsonValue])[] = [];
  for (const name of list.keys) {
    if (Object.hasOwn(child, name)) {
      fields.push([name, child[name]!]);
      continue;
    }
    if (!list.element.map) return { error: `couldn't find default value for ${name}: associative list may not have non-map types` };
    // A key the item omits takes its schema default; without one the key is left out, which names a
    // different item than one that sets it.
    const def = list.keyDefault(name);
    if (def !== undefined && def !== null) fields.push([name, def]);
  }
  if (list.keys.length > 0 && fields.length === 0) {
    return {
      error: `associative list with keys has an element that omits all key fields ${goQuoteList(list.keys)} (and doesn't have default values for any key fields)`,
    };
  }
  sortKeyFields(fields);
  return { pe: { kind: 'key', fields } };
}

function setItemName(child: JsonValue): ItemName {
  if (child === null) return { error: "associative list without keys has an element that's an explicit null" };
  if (Array.isArray(child)) return { error: 'not supported: associative list with lists as elements' };
  if (typeof child === 'object') return { error: "associative list without keys has an element that's a map type" };
  return { pe: { kind: 'value', value: child } };
}

/** Upstream's listItemToPathElement. */
export function listItemName(list: ListAtom, child: JsonValue): ItemName {
  if (list.relationship !== 'associative') return { error: 'invalid indexing of non-associative list' };
  return list.keys.length > 0 ? keyedItemName(list, child) : setItemName(child);
}

/**
 * Names each item of an associative list for compare and merge: `each` gets the item's path element
 * and its peKey; an item that cannot be named is reported (`element i: …`) and skipped.
 */
export function forEachNamedItem(
  list: ListAtom,
  items: readonly JsonValue[],
  errors: ValidationError[],
  each: (pe: PathElement, key: string, item: JsonValue) => void,
): void {
  for (let i = 0; i < items.length; i++) {
    const item = items[i]!;
    const named = listItemName(list, item);
    if (named.error !== undefined) errors.push(...errorAt(`element ${i}: ${named.error}`));
    else each(named.pe, peKey(named.pe), item);
  }
}
