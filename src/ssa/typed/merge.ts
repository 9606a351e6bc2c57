/**
 * Upstream's TypedValue.Merge: the live object with a partial configuration laid over it. Nothing is
 * removed; where both sides set a leaf (a scalar, an atomic list or map, or a container empty or null
 * on both sides) the configuration's value wins, explicit nulls included.
 *
 * Associative lists are merged item by item, in upstream's exact order: the two lists are walked
 * together; a live item the configuration does not mention is emitted as soon as the live walk reaches
 * it; a live item the configuration mentions waits until the configuration walk reaches it; configuration
 * items are emitted in their own order whenever the live walk stands at a mentioned item or is done.
 * So a configuration reorders the items it names, and items only it has follow the item before them
 * in it, after any live-only items met on the way.
 *
 * Results share unchanged subtrees with the inputs; treat every value as immutable.
 */
import { pathElementString, type JsonValue, type PathElement } from '../fieldpath/path-element.ts';
import { deduceAtom, mapEntryAtom, NO_ATOM, scalarOnly, type Atom, type ListAtom, type MapAtom, type ScalarKind } from './atoms.ts';
import { errorAt, withPrefix, type ValidationError } from './errors.ts';
import { isJsonObject, setKey, type JsonObject } from './json.ts';
import { forEachNamedItem } from './list-items.ts';
import { scalarFits, scalarPairErrors } from './validate.ts';

interface Walker {
  lhs: JsonValue | undefined;
  rhs: JsonValue | undefined;
  inLeaf: boolean;
  /** The merged value here, or undefined for none (the key is then left out of its parent). */
  out: JsonValue | undefined;
}

function mergeAt(w: Walker, atom: Atom): ValidationError[] {
  if (w.lhs === undefined && w.rhs === undefined) return errorAt('at least one of lhs and rhs must be provided');
  const alhs = deduceAtom(atom, w.lhs);
  const arhs = deduceAtom(atom, w.rhs);
  const errors: ValidationError[] = [];
  if (w.rhs === undefined) {
    errors.push(...handle(alhs, w));
  } else if (w.lhs === undefined || alhs === arhs) {
    errors.push(...handle(arhs, w));
  } else {
    // Sides of different kinds: the left-hand walk only reports errors, the right-hand one gives the result.
    errors.push(...handle(alhs, { ...w }));
    errors.push(...handle(arhs, w));
  }
  return errors;
}

function handle(a: Atom, w: Walker): ValidationError[] {
  if (a.map) return mergeMaps(a.map, w);
  if (a.scalar) return mergeScalars(a.scalar, w);
  if (a.list) return mergeLists(a.list, w);
  return errorAt('schema error: invalid atom: inlined');
}

/** A leaf keeps the right-hand value when there is one (explicit null included), else the left-hand one. */
function doLeaf(w: Walker): void {
  if (w.inLeaf) return;
  w.inLeaf = true;
  if (w.rhs !== undefined) w.out = w.rhs;
  else if (w.lhs !== undefined) w.out = w.lhs;
}

function mergeScalars(kind: ScalarKind, w: Walker): ValidationError[] {
  const errors = scalarPairErrors(kind, w.lhs, w.rhs);
  if (errors.length === 0) doLeaf(w);
  return errors;
}

function mergeChild(
  parent: Walker,
  pe: PathElement,
  lhs: JsonValue | undefined,
  rhs: JsonValue | undefined,
  atom: Atom,
): { out: JsonValue | undefined; errors: ValidationError[] } {
  const child: Walker = { lhs, rhs, inLeaf: parent.inLeaf, out: undefined };
  const errors = mergeAt(child, atom);
  // The prefix is worked out only when there is something to put it on.
  return { out: child.out, errors: errors.length > 0 ? withPrefix(errors, pathElementString(pe)) : errors };
}

interface Indexed {
  /** One name per item in list order (repeated names included when duplicates are allowed). */
  readonly names: PathElement[];
  readonly keys: string[];
  /** Item by name; a duplicated name maps to null, so that it is never merged with a configuration item. */
  readonly byKey: Map<string, JsonValue>;
}

function indexItems(list: ListAtom, items: readonly JsonValue[], allowDuplicates: boolean, errors: ValidationError[]): Indexed {
  const indexed: Indexed = { names: [], keys: [], byKey: new Map() };
  forEachNamedItem(list, items, errors, (pe, key, item) => {
    const found = indexed.byKey.has(key);
    if (found && !allowDuplicates) {
      errors.push(...errorAt(`duplicate entries for key ${pathElementString(pe)}`));
      return;
    }
    indexed.byKey.set(key, found ? null : item);
    indexed.names.push(pe);
    indexed.keys.push(key);
  });
  return indexed;
}

/**
 * Upstream's ordering walk over both lists at once. Errors of the item merges are dropped, as upstream
 * drops them (it validated both sides before merging).
 */
function mergeListItems(list: ListAtom, lhs: readonly JsonValue[], rhs: readonly JsonValue[], w: Walker): ValidationError[] {
  const errors: ValidationError[] = [];
  const right = indexItems(list, rhs, false, errors);
  const left = indexItems(list, lhs, true, errors);
  if (errors.length > 0) return errors;

  // Configuration items that are also live, in configuration order: the live walk waits for each in turn.
  const shared = right.keys.filter((k) => left.byKey.has(k));
  let sharedAt = 0;
  let nextShared: string | undefined = shared[sharedAt++];
  const advanceShared = (): void => {
    nextShared = sharedAt < shared.length ? shared[sharedAt++] : undefined;
  };

  const out: JsonValue[] = [];
  const emit = (pe: PathElement, l: JsonValue | undefined, r: JsonValue | undefined): void => {
    const merged = mergeChild(w, pe, l, r, list.element).out;
    if (merged !== undefined) out.push(merged);
  };
  const mergedRight = new Set<string>();
  const lLen = left.keys.length;
  const rLen = right.keys.length;
  let lI = 0;
  let rI = 0;
  while (lI < lLen || rI < rLen) {
    if (lI < lLen && rI < rLen) {
      const key = left.keys[lI]!;
      if (key === right.keys[rI]) {
        mergedRight.add(key);
        emit(left.names[lI]!, left.byKey.get(key), right.byKey.get(key));
        lI++;
        rI++;
        advanceShared();
        continue;
      }
      if (right.byKey.has(key) && nextShared !== undefined && nextShared !== key) {
        // A shared item, but not the one due now: it is emitted when the configuration reaches it.
        lI++;
        continue;
      }
    }
    if (lI < lLen) {
      const key = left.keys[lI]!;
      if (!right.byKey.has(key)) {
        // Only live: taken from the list itself, since a duplicated name maps to null in the index.
        emit(left.names[lI]!, lhs[lI], undefined);
        lI++;
        continue;
      } else if (mergedRight.has(key)) {
        lI++;
      }
    }
    if (rI < rLen) {
      const key = right.keys[rI]!;
      mergedRight.add(key);
      emit(right.names[rI]!, left.byKey.get(key), right.byKey.get(key));
      rI++;
      if (nextShared !== undefined && nextShared === key) advanceShared();
    }
  }
  if (out.length > 0) w.out = out;
  return [];
}

function mergeLists(list: ListAtom, w: Walker): ValidationError[] {
  const lhs = Array.isArray(w.lhs) ? w.lhs : undefined;
  const rhs = Array.isArray(w.rhs) ? w.rhs : undefined;
  // Empty or null on both sides is a leaf, which keeps the configuration's choice between [] and null.
  const bothEmpty = (!lhs || lhs.length === 0) && (!rhs || rhs.length === 0);
  if (list.relationship === 'atomic' || bothEmpty) {
    doLeaf(w);
    return [];
  }
  return mergeListItems(list, lhs ?? [], rhs ?? [], w);
}

function mergeMaps(map: MapAtom, w: Walker): ValidationError[] {
  const lhs: JsonObject | undefined = isJsonObject(w.lhs) ? w.lhs : undefined;
  const rhs: JsonObject | undefined = isJsonObject(w.rhs) ? w.rhs : undefined;
  const lhsKeys = lhs ? Object.keys(lhs) : undefined;
  const rhsKeys = rhs ? Object.keys(rhs) : undefined;
  const bothEmpty = (!lhsKeys || lhsKeys.length === 0) && (!rhsKeys || rhsKeys.length === 0);
  if (map.relationship === 'atomic' || bothEmpty) {
    doLeaf(w);
    return [];
  }
  const errors: ValidationError[] = [];
  const out: JsonObject = {};
  let any = false;
  // Live keys keep their order; keys only the configuration has follow in its order.
  const keys = lhsKeys ?? [];
  if (rhsKeys) for (const key of rhsKeys) if (!lhs || !Object.hasOwn(lhs, key)) keys.push(key);
  for (const key of keys) {
    const l = lhs && Object.hasOwn(lhs, key) ? lhs[key] : undefined;
    const r = rhs && Object.hasOwn(rhs, key) ? rhs[key] : undefined;
    const atom = mapEntryAtom(map, key) ?? NO_ATOM;
    let merged: JsonValue | undefined;
    const kind = scalarOnly(atom);
    if (kind !== undefined && (l !== undefined || r !== undefined) && (scalarFits(kind, l) || scalarFits(kind, r))) {
      // A scalar leaf with nothing to report: what doLeaf would keep, without the walk.
      merged = w.inLeaf ? undefined : r !== undefined ? r : l;
    } else {
      const child = mergeChild(w, { kind: 'field', name: key }, l, r, atom);
      if (child.errors.length > 0) errors.push(...child.errors);
      merged = child.out;
    }
    if (merged !== undefined) {
      setKey(out, key, merged);
      any = true;
    }
  }
  if (any) w.out = out;
  return errors;
}

/** Merges two already validated values of the same atom; `value` is undefined only when both were empty. */
export function mergeValues(lhs: JsonValue, rhs: JsonValue, atom: Atom): { value: JsonValue | undefined; errors: ValidationError[] } {
  const w: Walker = { lhs, rhs, inLeaf: false, out: undefined };
  const errors = mergeAt(w, atom);
  return { value: w.out, errors };
}
