/**
 * Upstream's TypedValue.Compare: which fields the right-hand value added, modified or removed relative
 * to the left-hand one.
 *
 * Atomic lists and maps, scalars, and containers that are empty or null on both sides are leaves: they
 * are compared whole. A granular container present on one side only is itself added or removed, along
 * with everything in it. Items duplicated in an associative list are compared as one atomic group.
 */
import { pathElementString, type JsonValue, type Path, type PathElement } from '../fieldpath/path-element.ts';
import { valuesEqual } from '../fieldpath/value-order.ts';
import { deduceAtom, mapEntryAtom, NO_ATOM, scalarOnly, type Atom, type ListAtom, type MapAtom, type ScalarKind } from './atoms.ts';
import { errorAt, withPrefix, type ValidationError } from './errors.ts';
import { isJsonObject, type JsonObject } from './json.ts';
import { forEachNamedItem } from './list-items.ts';
import { scalarFits, scalarPairErrors } from './validate.ts';

export interface RawComparison {
  readonly added: Path[];
  readonly modified: Path[];
  readonly removed: Path[];
}

/** One position of the walk: the two values there (undefined: absent) and whether it is inside a leaf. */
interface Walker {
  lhs: JsonValue | undefined;
  rhs: JsonValue | undefined;
  path: PathElement[];
  inLeaf: boolean;
}

function pathCopy(w: Walker): Path {
  return [...w.path];
}

/** Compares `lhs` and `rhs` at the walker's path, recording into `out`. */
function compareAt(w: Walker, atom: Atom, out: RawComparison): ValidationError[] {
  if (w.lhs === undefined && w.rhs === undefined) return errorAt('at least one of lhs and rhs must be provided');
  const alhs = deduceAtom(atom, w.lhs);
  const arhs = deduceAtom(atom, w.rhs);
  // Every handler returns a new array of its own, so the first one can collect the rest.
  let errors: ValidationError[];
  if (w.rhs === undefined) {
    errors = handle(alhs, w, out);
  } else if (w.lhs === undefined || alhs === arhs) {
    errors = handle(arhs, w, out);
  } else {
    // The two sides are of different kinds (a map replaced by a scalar in an untyped field): walk each
    // side as its own kind; only the right-hand walk decides whether this position was a leaf.
    errors = handle(alhs, { ...w }, out);
    pushAll(errors, handle(arhs, w, out));
  }
  if (!w.inLeaf) {
    if (w.lhs === undefined) out.added.push(pathCopy(w));
    else if (w.rhs === undefined) out.removed.push(pathCopy(w));
  }
  return errors;
}

function pushAll(target: ValidationError[], more: readonly ValidationError[]): void {
  for (const e of more) target.push(e);
}

function handle(a: Atom, w: Walker, out: RawComparison): ValidationError[] {
  if (a.map) return compareMaps(a.map, w, out);
  if (a.scalar) return compareScalars(a.scalar, w, out);
  if (a.list) return compareLists(a.list, w, out);
  return errorAt('schema error: invalid atom: inlined');
}

function doLeaf(w: Walker, out: RawComparison): void {
  if (w.inLeaf) return;
  w.inLeaf = true;
  if (w.lhs === undefined) out.added.push(pathCopy(w));
  else if (w.rhs === undefined) out.removed.push(pathCopy(w));
  else if (!valuesEqual(w.lhs, w.rhs)) out.modified.push(pathCopy(w));
}

function compareScalars(kind: ScalarKind, w: Walker, out: RawComparison): ValidationError[] {
  const errors = scalarPairErrors(kind, w.lhs, w.rhs);
  if (errors.length === 0) doLeaf(w, out);
  return errors;
}

/** What descend() returns for a position with nothing to report: read-only, shared. */
const NO_ERRORS: readonly ValidationError[] = Object.freeze([]);

function descend(
  w: Walker,
  pe: PathElement,
  lhs: JsonValue | undefined,
  rhs: JsonValue | undefined,
  atom: Atom,
  out: RawComparison,
): readonly ValidationError[] {
  const leaf = scalarLeaf(w.inLeaf, lhs, rhs, atom);
  if (leaf !== undefined) {
    if (leaf !== null) out[leaf].push([...w.path, pe]);
    return NO_ERRORS;
  }
  w.path.push(pe);
  const child: Walker = { lhs, rhs, path: w.path, inLeaf: w.inLeaf };
  const errors = compareAt(child, atom, out);
  w.path.pop();
  // The prefix is worked out only when there is something to put it on.
  return errors.length > 0 ? withPrefix(errors, pathElementString(pe)) : errors;
}

/**
 * descend() of a scalar leaf, without the walk: for an atom that is only a scalar, where a side fits
 * it (so there is no error), the walk ends in doLeaf at once, which records the position as added,
 * removed or modified, or nothing (null). The values of string maps (labels, annotations, ConfigMap
 * data) and scalar struct fields all come this way. Undefined when the walk must report something.
 */
function scalarLeaf(inLeaf: boolean, lhs: JsonValue | undefined, rhs: JsonValue | undefined, atom: Atom): keyof RawComparison | null | undefined {
  const kind = scalarOnly(atom);
  if (kind === undefined || (lhs === undefined && rhs === undefined)) return undefined;
  if (!scalarFits(kind, lhs) && !scalarFits(kind, rhs)) return undefined;
  if (inLeaf) return null;
  if (lhs === undefined) return 'added';
  if (rhs === undefined) return 'removed';
  return valuesEqual(lhs, rhs) ? null : 'modified';
}

/** Items of one side grouped by name, in first-seen order; items that cannot be named are reported. */
function groupItems(
  list: ListAtom,
  items: readonly JsonValue[],
  groups: Map<string, { pe: PathElement; lhs: JsonValue[]; rhs: JsonValue[] }>,
  side: 'lhs' | 'rhs',
  errors: ValidationError[],
): void {
  forEachNamedItem(list, items, errors, (pe, key, item) => {
    let group = groups.get(key);
    if (!group) groups.set(key, (group = { pe, lhs: [], rhs: [] }));
    group[side].push(item);
  });
}

function sameItems(a: readonly JsonValue[], b: readonly JsonValue[]): boolean {
  return a.length === b.length && a.every((v, i) => valuesEqual(v, b[i]!));
}

function compareListItems(list: ListAtom, lhs: readonly JsonValue[], rhs: readonly JsonValue[], w: Walker, out: RawComparison): ValidationError[] {
  const errors: ValidationError[] = [];
  const groups = new Map<string, { pe: PathElement; lhs: JsonValue[]; rhs: JsonValue[] }>();
  groupItems(list, lhs, groups, 'lhs', errors);
  groupItems(list, rhs, groups, 'rhs', errors);
  for (const { pe, lhs: l, rhs: r } of groups.values()) {
    if (l.length <= 1 && r.length <= 1) {
      pushAll(errors, descend(w, pe, l[0], r[0], list.element, out));
    } else if (l.length >= 2 && r.length >= 2) {
      // Duplicated on both sides: the group changed or it did not.
      if (!sameItems(l, r)) out.modified.push([...w.path, pe]);
    } else if (l.length >= 2) {
      // No longer duplicated: the single new item is added field by field, the duplicate marker removed.
      if (r.length !== 0) pushAll(errors, descend(w, pe, undefined, r[0], list.element, out));
      out.removed.push([...w.path, pe]);
    } else {
      // Newly duplicated: the old single item is removed field by field, the duplicate marker added.
      if (l.length !== 0) pushAll(errors, descend(w, pe, l[0], undefined, list.element, out));
      out.added.push([...w.path, pe]);
    }
  }
  return errors;
}

function compareLists(list: ListAtom, w: Walker, out: RawComparison): ValidationError[] {
  const lhs = Array.isArray(w.lhs) ? w.lhs : undefined;
  const rhs = Array.isArray(w.rhs) ? w.rhs : undefined;
  // Empty or null on both sides is a leaf, so that [] versus null still registers as a change.
  const bothEmpty = (!lhs || lhs.length === 0) && (!rhs || rhs.length === 0);
  if (list.relationship === 'atomic' || bothEmpty) {
    doLeaf(w, out);
    return [];
  }
  return compareListItems(list, lhs ?? [], rhs ?? [], w, out);
}

function compareMaps(map: MapAtom, w: Walker, out: RawComparison): ValidationError[] {
  const lhs: JsonObject | undefined = isJsonObject(w.lhs) ? w.lhs : undefined;
  const rhs: JsonObject | undefined = isJsonObject(w.rhs) ? w.rhs : undefined;
  const lhsKeys = lhs ? Object.keys(lhs) : undefined;
  const rhsKeys = rhs ? Object.keys(rhs) : undefined;
  const bothEmpty = (!lhsKeys || lhsKeys.length === 0) && (!rhsKeys || rhsKeys.length === 0);
  if (map.relationship === 'atomic' || bothEmpty) {
    doLeaf(w, out);
    return [];
  }
  const errors: ValidationError[] = [];
  // Left-hand keys in their order, then the keys only the right-hand side has.
  if (lhsKeys) {
    for (const key of lhsKeys) {
      const r = rhs && Object.hasOwn(rhs, key) ? rhs[key] : undefined;
      compareKey(w, key, lhs![key], r, mapEntryAtom(map, key) ?? NO_ATOM, out, errors);
    }
  }
  if (rhsKeys) {
    for (const key of rhsKeys) {
      if (lhs && Object.hasOwn(lhs, key)) continue;
      compareKey(w, key, undefined, rhs![key], mapEntryAtom(map, key) ?? NO_ATOM, out, errors);
    }
  }
  return errors;
}

/** descend() into a map key; the key's path element is made only when it goes into a path. */
function compareKey(w: Walker, key: string, lhs: JsonValue | undefined, rhs: JsonValue | undefined, atom: Atom, out: RawComparison, errors: ValidationError[]): void {
  const leaf = scalarLeaf(w.inLeaf, lhs, rhs, atom);
  if (leaf === undefined) pushAll(errors, descend(w, { kind: 'field', name: key }, lhs, rhs, atom, out));
  else if (leaf !== null) out[leaf].push([...w.path, { kind: 'field', name: key }]);
}

/** Compares two already validated values of the same atom. */
export function compareValues(lhs: JsonValue, rhs: JsonValue, atom: Atom): { comparison: RawComparison; errors: ValidationError[] } {
  const comparison: RawComparison = { added: [], modified: [], removed: [] };
  const errors = compareAt({ lhs, rhs, path: [], inLeaf: false }, atom, comparison);
  return { comparison, errors };
}
