/**
 * Upstream's Set.EnsureNamedFieldsAreMembers: a set of leaves plus every declared struct field on the
 * way to them. Pruning removes items named in a set, so a struct field that an applier's leaves pass
 * through must count as owned for it to be removable, while free map keys and list items on the way do
 * not (they are owned, and removed, only when they are themselves in the set).
 */
import { FieldSet } from '../fieldpath/field-set.ts';
import type { Path, PathElement } from '../fieldpath/path-element.ts';
import { mapEntryAtom, NO_ATOM, type Atom } from './atoms.ts';

function collect(set: FieldSet, atom: Atom, prefix: PathElement[], out: Path[]): void {
  for (const pe of set.memberElements()) out.push([...prefix, pe]);
  for (const [pe, child] of set.childEntries()) {
    let childAtom: Atom = NO_ATOM;
    if (pe.kind === 'field' && atom.map) {
      // Only declared fields are named; the schema atom is used as declared, without deduction.
      if (atom.map.field(pe.name)) out.push([...prefix, pe]);
      childAtom = mapEntryAtom(atom.map, pe.name) ?? NO_ATOM;
    } else if (pe.kind === 'key' && atom.list) {
      childAtom = atom.list.element;
    }
    prefix.push(pe);
    collect(child, childAtom, prefix, out);
    prefix.pop();
  }
}

export function namedFieldsAsMembers(set: FieldSet, atom: Atom): FieldSet {
  const out: Path[] = [];
  collect(set, atom, [], out);
  return FieldSet.fromPaths(out);
}
