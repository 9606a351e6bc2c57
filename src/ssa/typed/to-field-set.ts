/**
 * Upstream's TypedValue.ToFieldSet: the set of every leaf field and list/map item a value mentions.
 *
 * What goes in, as upstream decides it: scalars; atomic lists and maps as one path; every associative
 * list item (and its contents); every key of a free-key map; a struct field only when it is null or an
 * empty map (granular structs are otherwise implied by their leaves). An item duplicated in the value is
 * owned once, as the item, without its contents.
 */
import { FieldSet } from '../fieldpath/field-set.ts';
import type { JsonValue, Path, PathElement } from '../fieldpath/path-element.ts';
import { deduceAtom, mapEntryAtom, type Atom, type ListAtom, type MapAtom } from './atoms.ts';
import { isJsonObject } from './json.ts';
import { listItemName } from './list-items.ts';
import { peKey } from './pe-key.ts';

/** Appends the paths of `v` (at `path`) to `out`; the value must have been validated. */
export function collectPaths(v: JsonValue, atom: Atom, path: PathElement[], out: Path[]): void {
  const a = deduceAtom(atom, v);
  if (a.map) collectMap(a.map, v, path, out);
  else if (a.scalar) out.push([...path]);
  else if (a.list) collectList(a.list, v, path, out);
}

function collectList(list: ListAtom, v: JsonValue, path: PathElement[], out: Path[]): void {
  if (list.relationship === 'atomic') {
    out.push([...path]);
    return;
  }
  if (!Array.isArray(v)) return;
  const names: (PathElement | undefined)[] = v.map((child) => listItemName(list, child).pe);
  const seen = new Set<string>();
  const duplicates = new Set<string>();
  names.forEach((pe) => {
    if (!pe) return;
    const key = peKey(pe);
    if (!seen.has(key)) seen.add(key);
    else if (!duplicates.has(key)) {
      duplicates.add(key);
      out.push([...path, pe]);
    }
  });
  v.forEach((child, i) => {
    const pe = names[i];
    if (!pe || duplicates.has(peKey(pe))) return;
    path.push(pe);
    collectPaths(child, list.element, path, out);
    out.push([...path]);
    path.pop();
  });
}

function collectMap(map: MapAtom, v: JsonValue, path: PathElement[], out: Path[]): void {
  if (map.relationship === 'atomic') {
    out.push([...path]);
    return;
  }
  if (!isJsonObject(v)) return;
  for (const [key, child] of Object.entries(v)) {
    const atom = mapEntryAtom(map, key);
    path.push({ kind: 'field', name: key });
    if (atom) collectPaths(child, atom, path, out);
    const declared = map.field(key) !== undefined;
    if (child === null || (isJsonObject(child) && Object.keys(child).length === 0) || !declared) out.push([...path]);
    path.pop();
  }
}

/** The field set of an already validated value. */
export function fieldSetOf(v: JsonValue, atom: Atom): FieldSet {
  const out: Path[] = [];
  collectPaths(v, atom, [], out);
  return FieldSet.fromPaths(out);
}
