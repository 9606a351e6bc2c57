/**
 * Upstream's TypedValue.RemoveItems: drops every field and list/map item named in a set from a value.
 *
 * Faithful to upstream's quirks, which shape what apply leaves behind: a container from which
 * everything was removed becomes null rather than empty (and stays in its parent), an empty or atomic
 * container that the set reaches into becomes null, and items that cannot be named are kept.
 */
import type { FieldSet } from '../fieldpath/field-set.ts';
import type { JsonValue, PathElement } from '../fieldpath/path-element.ts';
import { deduceAtom, mapEntryAtom, NO_ATOM, type Atom, type ListAtom, type MapAtom } from './atoms.ts';
import { isJsonObject, setKey, type JsonObject } from './json.ts';
import { listItemName } from './list-items.ts';

function removeFromList(list: ListAtom, v: JsonValue, set: FieldSet): JsonValue {
  if (!Array.isArray(v) || v.length === 0) return null;
  if (list.relationship === 'atomic') return null;
  const kept: JsonValue[] = [];
  for (const item of v) {
    const pe = listItemName(list, item).pe;
    if (!pe) {
      kept.push(item);
      continue;
    }
    if (set.hasMember(pe)) continue;
    const sub = set.withPrefix(pe);
    kept.push(sub.isEmpty() ? item : removeFrom(item, sub, list.element));
  }
  return kept.length > 0 ? kept : null;
}

function removeFromMap(map: MapAtom, v: JsonValue, set: FieldSet): JsonValue {
  if (!isJsonObject(v) || Object.keys(v).length === 0) return null;
  if (map.relationship === 'atomic') return null;
  const kept: JsonObject = {};
  let any = false;
  for (const [key, child] of Object.entries(v)) {
    const pe: PathElement = { kind: 'field', name: key };
    if (set.hasMember(pe)) continue;
    const sub = set.withPrefix(pe);
    setKey(kept, key, sub.isEmpty() ? child : removeFrom(child, sub, mapEntryAtom(map, key) ?? NO_ATOM));
    any = true;
  }
  return any ? kept : null;
}

/** `v` without the items of `set` (paths relative to `v`). */
export function removeFrom(v: JsonValue, set: FieldSet, atom: Atom): JsonValue {
  const a = deduceAtom(atom, v);
  if (a.map) return removeFromMap(a.map, v, set);
  if (a.scalar) return v;
  if (a.list) return removeFromList(a.list, v, set);
  return null;
}
