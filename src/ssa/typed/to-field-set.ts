/**
 * Upstream's TypedValue.ToFieldSet: the set of every leaf field and list/map item a value mentions.
 *
 * What goes in, as upstream decides it: scalars; atomic lists and maps as one path; every associative
 * list item (and its contents); every key of a free-key map; a struct field only when it is null or an
 * empty map (granular structs are otherwise implied by their leaves). An item duplicated in the value is
 * owned once, as the item, without its contents.
 */
import { FieldSet } from '../fieldpath/field-set.ts';
import type { JsonValue, PathElement } from '../fieldpath/path-element.ts';
import { deduceAtom, mapEntryAtom, scalarOnly, type Atom, type ListAtom, type MapAtom } from './atoms.ts';
import { isJsonObject, type JsonObject } from './json.ts';
import { listItemName } from './list-items.ts';
import { peKey } from './pe-key.ts';

/**
 * One level of the set being built: the path elements that end a path here, and the sets below the
 * elements that lead further. Built level by level (each level sorted once by FieldSet.fromParts)
 * rather than path by path, which would copy every path and walk it from the root to insert it; the
 * resulting set is the same, since a child is kept only when some path goes through it.
 */
class Level {
  readonly members: PathElement[] = [];
  readonly children: [PathElement, FieldSet][] = [];

  /** Adds the element: a path's end when `member`, and the set below it when there is one. */
  add(pe: PathElement, member: boolean, below: Level | undefined): void {
    if (member) this.members.push(pe);
    if (below && (below.members.length > 0 || below.children.length > 0)) this.children.push([pe, below.toSet()]);
  }

  toSet(): FieldSet {
    return FieldSet.fromParts(this.members, this.children);
  }
}

/**
 * The paths of `v` (validated) at one position: true when the position is itself a path (a scalar, an
 * atomic list or map); paths further down go into `below`, relative to the position.
 */
function collectAt(v: JsonValue, atom: Atom, below: Level): boolean {
  const a = deduceAtom(atom, v);
  if (a.map) {
    if (a.map.relationship === 'atomic') return true;
    if (isJsonObject(v)) collectMap(a.map, v, below);
    return false;
  }
  if (a.scalar) return true;
  if (a.list) {
    if (a.list.relationship === 'atomic') return true;
    if (Array.isArray(v)) collectList(a.list, v, below);
  }
  return false;
}

function collectList(list: ListAtom, v: readonly JsonValue[], level: Level): void {
  const names: (PathElement | undefined)[] = v.map((child) => listItemName(list, child).pe);
  const seen = new Set<string>();
  const duplicates = new Set<string>();
  for (const pe of names) {
    if (!pe) continue;
    const key = peKey(pe);
    if (!seen.has(key)) seen.add(key);
    else if (!duplicates.has(key)) {
      duplicates.add(key);
      level.add(pe, true, undefined);
    }
  }
  for (let i = 0; i < v.length; i++) {
    const pe = names[i];
    if (!pe || (duplicates.size > 0 && duplicates.has(peKey(pe)))) continue;
    // The item is a path of its own, whatever is below it.
    const below = new Level();
    collectAt(v[i]!, list.element, below);
    level.add(pe, true, below);
  }
}

function collectMap(map: MapAtom, v: JsonObject, level: Level): void {
  for (const key of Object.keys(v)) {
    const child = v[key]!;
    const atom = mapEntryAtom(map, key);
    let member = false;
    let below: Level | undefined;
    if (atom) {
      // A scalar value is a path by itself (no walk needed: nothing can be below it).
      if (scalarOnly(atom) !== undefined) member = true;
      else member = collectAt(child, atom, (below = new Level()));
    }
    if (child === null || (isJsonObject(child) && Object.keys(child).length === 0) || map.field(key) === undefined) member = true;
    level.add({ kind: 'field', name: key }, member, below);
  }
}

/** The field set of an already validated value. */
export function fieldSetOf(v: JsonValue, atom: Atom): FieldSet {
  const root = new Level();
  // The value's own position is the empty path, which stands for the whole object: no one owns it.
  collectAt(v, atom, root);
  return root.toSet();
}
