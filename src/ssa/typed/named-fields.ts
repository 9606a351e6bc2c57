/**
 * Upstream's Set.EnsureNamedFieldsAreMembers: a set of leaves plus every declared struct field on the
 * way to them. Pruning removes items named in a set, so a struct field that an applier's leaves pass
 * through must count as owned for it to be removable, while free map keys and list items on the way do
 * not (they are owned, and removed, only when they are themselves in the set).
 */
import { FieldSet } from '../fieldpath/field-set.ts';
import { comparePathElements, type PathElement } from '../fieldpath/path-element.ts';
import { mapEntryAtom, NO_ATOM, type Atom } from './atoms.ts';

/**
 * The set below one position, built level by level (as fieldSetOf builds its sets): this level's
 * members and its named fields, and below each child what the child gives, where that is anything
 * (the same set as inserting each path would build, which never makes a child no path goes through).
 */
function named(set: FieldSet, atom: Atom): FieldSet | undefined {
  const namedFields: PathElement[] = [];
  const children: [PathElement, FieldSet][] = [];
  for (const [pe, child] of set.childEntries()) {
    let childAtom: Atom = NO_ATOM;
    if (pe.kind === 'field' && atom.map) {
      // Only declared fields are named; the schema atom is used as declared, without deduction.
      if (atom.map.field(pe.name)) namedFields.push(pe);
      childAtom = mapEntryAtom(atom.map, pe.name) ?? NO_ATOM;
    } else if (pe.kind === 'key' && atom.list) {
      childAtom = atom.list.element;
    }
    const below = named(child, childAtom);
    if (below) children.push([pe, below]);
  }
  // Both lists are in the set's order, so their merge is too (and fromParts has nothing to sort).
  const members = mergeSorted(set.memberElements(), namedFields);
  if (members.length === 0 && children.length === 0) return undefined;
  return FieldSet.fromParts(members, children);
}

/** Two sorted lists as one, an element in both once (the first list's). */
function mergeSorted(a: readonly PathElement[], b: readonly PathElement[]): PathElement[] {
  if (b.length === 0) return a.slice();
  const out: PathElement[] = [];
  let i = 0;
  let j = 0;
  while (i < a.length && j < b.length) {
    const c = comparePathElements(a[i]!, b[j]!);
    if (c <= 0) {
      out.push(a[i++]!);
      if (c === 0) j++;
    } else out.push(b[j++]!);
  }
  while (i < a.length) out.push(a[i++]!);
  while (j < b.length) out.push(b[j++]!);
  return out;
}

export function namedFieldsAsMembers(set: FieldSet, atom: Atom): FieldSet {
  return named(set, atom) ?? FieldSet.empty();
}
