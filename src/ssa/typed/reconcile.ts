/**
 * Upstream's ReconcileFieldSetWithSchema: managed field sets recorded under an older schema, where a
 * field was granular and is now atomic, are collapsed to the atomic field itself (its owners keep the
 * whole field; the stale children go). One schema per kind does not make this moot: sets read back from
 * storage may predate a schema change of this server or come from another apiserver.
 * Atomic-to-granular needs nothing: the owner of the atomic field keeps owning just that field.
 */
import { FieldSet } from '../fieldpath/field-set.ts';
import type { Path, PathElement } from '../fieldpath/path-element.ts';
import { mapEntryAtom, type Atom, type ListAtom, type MapAtom } from './atoms.ts';

interface Changes {
  readonly remove: Path[];
  readonly add: Path[];
}

function reconcileAt(set: FieldSet | undefined, atom: Atom, path: PathElement[], isAtomic: boolean, changes: Changes): void {
  // Upstream resolves without deducing against a value: a map view wins over the others.
  if (atom.map) reconcileMap(atom.map, set, path, isAtomic, changes);
  else if (atom.list) reconcileList(atom.list, set, path, isAtomic, changes);
}

function collapse(path: PathElement[], changes: Changes): void {
  changes.remove.push([...path]);
  changes.add.push([...path]);
}

function visitEntries(set: FieldSet, path: PathElement[], changes: Changes, atomFor: (pe: PathElement) => Atom | undefined): void {
  const visit = (pe: PathElement, isMember: boolean): void => {
    const atom = atomFor(pe);
    if (!atom) return;
    const child = set.child(pe);
    path.push(pe);
    reconcileAt(child, atom, path, isMember && child === undefined, changes);
    path.pop();
  };
  // Children that are not members first, then members (with their children, if any), as upstream.
  for (const [pe] of set.childEntries()) if (!set.hasMember(pe)) visit(pe, false);
  for (const pe of set.memberElements()) visit(pe, true);
}

function reconcileList(list: ListAtom, set: FieldSet | undefined, path: PathElement[], isAtomic: boolean, changes: Changes): void {
  if (!isAtomic && list.relationship === 'atomic') {
    collapse(path, changes);
    return;
  }
  if (set) visitEntries(set, path, changes, () => list.element);
}

function reconcileMap(map: MapAtom, set: FieldSet | undefined, path: PathElement[], isAtomic: boolean, changes: Changes): void {
  // Maps of deduced values (preserve-unknown-fields) carry no atomic/granular markers to reconcile.
  if (map.untypedDeduced) return;
  if (!isAtomic && map.relationship === 'atomic') {
    if (set && !set.isEmpty()) collapse(path, changes);
    return;
  }
  if (set) visitEntries(set, path, changes, (pe) => (pe.kind === 'field' ? mapEntryAtom(map, pe.name) : map.elementType));
}

/** The set adjusted to the schema, or undefined when it already agrees with it. */
export function reconcileWithSchema(set: FieldSet, atom: Atom): FieldSet | undefined {
  const changes: Changes = { remove: [], add: [] };
  reconcileAt(set, atom, [], false, changes);
  if (changes.remove.length === 0 && changes.add.length === 0) return undefined;
  return set.recursiveDifference(FieldSet.fromPaths(changes.remove)).union(FieldSet.fromPaths(changes.add));
}
