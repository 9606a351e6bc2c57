/**
 * A set of field paths (upstream fieldpath.Set), stored as a tree: at each level the path elements that
 * end a member path ("members") and the path elements that lead to deeper members ("children"), both
 * kept sorted so that lookups are binary searches and set operations are merges.
 *
 * Operations return new sets and reuse whole subtrees of their inputs where nothing changes, as upstream
 * does. A reused subtree is marked shared, and insert() copies a shared subtree before changing it, so
 * inserting into one set never shows through another. A set handed out as part of another one (child(),
 * withPrefix(), childEntries()) cannot be inserted into: clone() it first.
 */
import { comparePathElements, pathElementsEqual, type Path, type PathElement } from './path-element.ts';
import { pathString } from './path-string.ts';

type Child = readonly [PathElement, FieldSet];

// Binary search: the index of pe, or -(insertion point) - 1.
function search<T>(items: readonly T[], pe: PathElement, elementOf: (item: T) => PathElement): number {
  let lo = 0;
  let hi = items.length - 1;
  while (lo <= hi) {
    const mid = (lo + hi) >>> 1;
    const c = comparePathElements(elementOf(items[mid]!), pe);
    if (c < 0) lo = mid + 1;
    else if (c > 0) hi = mid - 1;
    else return mid;
  }
  return -lo - 1;
}

const self = (pe: PathElement) => pe;
const childElement = (child: Child) => child[0];

/**
 * A sorted copy, equal items in their original order. The levels of a set are short and often already
 * sorted (or nearly: the keys of an object in declaration order), where a check or an insertion sort
 * beats Array.prototype.sort; long ones get that.
 */
function stableSorted<T>(items: readonly T[], elementOf: (item: T) => PathElement): T[] {
  const out = items.slice();
  let sorted = true;
  for (let i = 1; i < out.length && sorted; i++) sorted = comparePathElements(elementOf(out[i - 1]!), elementOf(out[i]!)) <= 0;
  if (sorted) return out;
  if (out.length > 16) return out.sort((a, b) => comparePathElements(elementOf(a), elementOf(b)));
  for (let i = 1; i < out.length; i++) {
    const item = out[i]!;
    const pe = elementOf(item);
    let j = i - 1;
    // Only strictly greater items move past it, so equal ones keep their order.
    while (j >= 0 && comparePathElements(elementOf(out[j]!), pe) > 0) {
      out[j + 1] = out[j]!;
      j--;
    }
    out[j + 1] = item;
  }
  return out;
}

/** Drops repeated elements from a sorted array in place, keeping the first or the last of each run. */
function dropRepeats<T>(items: T[], elementOf: (item: T) => PathElement, keepFirst: boolean): void {
  let n = 0;
  for (let i = 0; i < items.length; i++) {
    const item = items[i]!;
    if (n > 0 && comparePathElements(elementOf(items[n - 1]!), elementOf(item)) === 0) {
      if (!keepFirst) items[n - 1] = item;
      continue;
    }
    items[n++] = item;
  }
  if (n < items.length) items.length = n;
}

// What a merge of two sorted levels keeps: elements only on the left, on both sides, only on the right.
const ONLY_LEFT = 1;
const IN_BOTH = 2;
const ONLY_RIGHT = 4;

/** The members of a set operation, by one walk over both sorted lists; of two equal elements a's is kept. */
function mergeMembers(a: readonly PathElement[], b: readonly PathElement[], keep: number): PathElement[] {
  const out: PathElement[] = [];
  let i = 0;
  let j = 0;
  while (i < a.length && j < b.length) {
    const c = comparePathElements(a[i]!, b[j]!);
    if (c < 0) {
      if (keep & ONLY_LEFT) out.push(a[i]!);
      i++;
    } else if (c > 0) {
      if (keep & ONLY_RIGHT) out.push(b[j]!);
      j++;
    } else {
      if (keep & IN_BOTH) out.push(a[i]!);
      i++;
      j++;
    }
  }
  if (keep & ONLY_LEFT) while (i < a.length) out.push(a[i++]!);
  if (keep & ONLY_RIGHT) while (j < b.length) out.push(b[j++]!);
  return out;
}

// How union, intersection and difference combine the subtrees under an element both sets have.
const unionOf = (a: FieldSet, b: FieldSet): FieldSet | undefined => a.union(b);
const intersectionOf = (a: FieldSet, b: FieldSet): FieldSet | undefined => nonEmpty(a.intersection(b));
const differenceOf = (a: FieldSet, b: FieldSet): FieldSet | undefined => nonEmpty(a.difference(b));

function nonEmpty(set: FieldSet): FieldSet | undefined {
  return set.isEmpty() ? undefined : set;
}

export class FieldSet {
  private shared = false;

  private constructor(
    private members: PathElement[],
    private children: Child[],
  ) {}

  static empty(): FieldSet {
    return new FieldSet([], []);
  }

  static fromPaths(paths: Iterable<Path>): FieldSet {
    const set = FieldSet.empty();
    // The way down the previous path: steps[i] is the element taken from nodes[i] to nodes[i + 1], for
    // the first `depth` steps (entries past that are stale and never read). Paths that come out of a
    // walk share their prefix with the one before, often down to the very element objects, and such a
    // prefix leads to the same nodes without searching for them. Every node here is new and private to
    // this call, so none is shared, and ownChild never replaces one.
    const steps: PathElement[] = [];
    const nodes: FieldSet[] = [set];
    let stepsTaken = 0;
    for (const path of paths) {
      if (path.length === 0) continue;
      const last = path.length - 1;
      let depth = 0;
      const common = Math.min(last, stepsTaken);
      while (depth < common && path[depth] === steps[depth]) depth++;
      let node = nodes[depth]!;
      for (let i = depth; i < last; i++) {
        steps[i] = path[i]!;
        nodes[i + 1] = node = node.ownChild(path[i]!);
      }
      stepsTaken = last;
      const pe = path[last]!;
      const at = search(node.members, pe, self);
      if (at < 0) node.members.splice(-at - 1, 0, pe);
    }
    return set;
  }

  /**
   * A set from one level's members and children, in any order. Repeated members count once; of
   * repeated children the last wins (as when upstream reads a FieldsV1 object with a repeated key).
   * The child sets become part of the new set, so they are shared from then on.
   */
  static fromParts(members: readonly PathElement[], children: readonly Child[]): FieldSet {
    const uniqueMembers = stableSorted(members, self);
    // Of equal members the first stays (stable sort).
    dropRepeats(uniqueMembers, self, true);
    const lastChildren = stableSorted(children, childElement);
    // Of equal children the last stays.
    dropRepeats(lastChildren, childElement, false);
    for (const [, set] of lastChildren) set.shared = true;
    return new FieldSet(uniqueMembers, lastChildren);
  }

  // A child entry taken over whole into a new set, so from now on reachable from two sets.
  private static reuse(child: Child): Child {
    child[1].shared = true;
    return child;
  }

  /**
   * Makes the set read-only: insert() throws from now on, as for any shared set (and every subtree
   * already is, or becomes so when handed out), so nothing can change it any more. For sets that
   * caches hand out to many callers; returns the set.
   */
  freeze(): this {
    this.shared = true;
    return this;
  }

  /** Whether insert() is refused, so the set can no longer change (see freeze()). */
  isFrozen(): boolean {
    return this.shared;
  }

  /** A copy that can be inserted into; subtrees stay shared until an insert reaches them. */
  clone(): FieldSet {
    for (const [, set] of this.children) set.shared = true;
    return new FieldSet(this.members.slice(), this.children.slice());
  }

  /** Adds a path (not its parents). The empty path stands for the whole object, which no one owns. */
  insert(path: Path): void {
    if (path.length === 0) return;
    if (this.shared) throw new Error('FieldSet: cannot insert into a set that is part of another set; clone() it first');
    let node: FieldSet = this;
    for (let i = 0; i < path.length - 1; i++) node = node.ownChild(path[i]!);
    const pe = path[path.length - 1]!;
    const at = search(node.members, pe, self);
    if (at < 0) node.members.splice(-at - 1, 0, pe);
  }

  // The child set for pe, created if missing and copied if shared, ready to be changed.
  private ownChild(pe: PathElement): FieldSet {
    const at = search(this.children, pe, childElement);
    if (at < 0) {
      const created = FieldSet.empty();
      this.children.splice(-at - 1, 0, [pe, created]);
      return created;
    }
    const [existingPe, existing] = this.children[at]!;
    if (!existing.shared) return existing;
    const copy = existing.clone();
    this.children[at] = [existingPe, copy];
    return copy;
  }

  has(path: Path): boolean {
    if (path.length === 0) return false;
    let node: FieldSet = this;
    for (let i = 0; i < path.length - 1; i++) {
      const next = node.find(path[i]!);
      if (!next) return false;
      node = next;
    }
    return node.hasMember(path[path.length - 1]!);
  }

  /** Whether pe itself is a member at this level (upstream's Members.Has). */
  hasMember(pe: PathElement): boolean {
    return search(this.members, pe, self) >= 0;
  }

  private find(pe: PathElement): FieldSet | undefined {
    const at = search(this.children, pe, childElement);
    return at < 0 ? undefined : this.children[at]![1];
  }

  /** No member anywhere in the tree (child nodes may still exist, as upstream allows). */
  isEmpty(): boolean {
    return this.members.length === 0 && this.children.every(([, set]) => set.isEmpty());
  }

  size(): number {
    let n = this.members.length;
    for (const [, set] of this.children) n += set.size();
    return n;
  }

  union(o: FieldSet): FieldSet {
    // o first: of two equal members upstream keeps o's.
    const members = mergeMembers(o.members, this.members, ONLY_LEFT | IN_BOTH | ONLY_RIGHT);
    return new FieldSet(members, FieldSet.mergeChildren(this.children, o.children, ONLY_LEFT | ONLY_RIGHT, unionOf));
  }

  /** The member paths in both sets. */
  intersection(o: FieldSet): FieldSet {
    const members = mergeMembers(this.members, o.members, IN_BOTH);
    return new FieldSet(members, FieldSet.mergeChildren(this.children, o.children, 0, intersectionOf));
  }

  /**
   * The member paths of this set that are not members of o. A path below a member of o stays (parent
   * minus child is the parent; child minus parent is the child): see recursiveDifference.
   */
  difference(o: FieldSet): FieldSet {
    const members = mergeMembers(this.members, o.members, ONLY_LEFT);
    return new FieldSet(members, FieldSet.mergeChildren(this.children, o.children, ONLY_LEFT, differenceOf));
  }

  /**
   * The children of a set operation, by one walk over both sorted lists: a child on one side only is
   * taken over whole if `keep` says so, and the subtrees of a child on both sides are combined (the
   * child left out where combine gives undefined).
   */
  private static mergeChildren(
    a: readonly Child[],
    b: readonly Child[],
    keep: number,
    combine: (a: FieldSet, b: FieldSet) => FieldSet | undefined,
  ): Child[] {
    const out: Child[] = [];
    let i = 0;
    let j = 0;
    while (i < a.length && j < b.length) {
      const [pe, set] = a[i]!;
      const c = comparePathElements(pe, b[j]![0]);
      if (c < 0) {
        if (keep & ONLY_LEFT) out.push(FieldSet.reuse(a[i]!));
        i++;
      } else if (c > 0) {
        if (keep & ONLY_RIGHT) out.push(FieldSet.reuse(b[j]!));
        j++;
      } else {
        const both = combine(set, b[j]![1]);
        if (both) out.push([pe, both]);
        i++;
        j++;
      }
    }
    if (keep & ONLY_LEFT) while (i < a.length) out.push(FieldSet.reuse(a[i++]!));
    if (keep & ONLY_RIGHT) while (j < b.length) out.push(FieldSet.reuse(b[j++]!));
    return out;
  }

  /** As difference, but a member of o also takes away every path below it. */
  recursiveDifference(o: FieldSet): FieldSet {
    const members = mergeMembers(this.members, o.members, ONLY_LEFT);
    const children: Child[] = [];
    for (const child of this.children) {
      const [pe, set] = child;
      if (o.hasMember(pe)) continue;
      const other = o.find(pe);
      if (!other) children.push(FieldSet.reuse(child));
      else {
        const rest = set.recursiveDifference(other);
        if (!rest.isEmpty()) children.push([pe, rest]);
      }
    }
    return new FieldSet(members, children);
  }

  /** Only the paths that have no member below them. */
  leaves(): FieldSet {
    const members: PathElement[] = [];
    let j = 0;
    for (const pe of this.members) {
      while (j < this.children.length && comparePathElements(this.children[j]![0], pe) < 0) j++;
      if (j < this.children.length && comparePathElements(this.children[j]![0], pe) === 0) j++;
      else members.push(pe);
    }
    return new FieldSet(
      members,
      this.children.map(([pe, set]) => [pe, set.leaves()] as const),
    );
  }

  /** Same members and the same tree of children (upstream's Equals compares the structure). */
  equals(o: FieldSet): boolean {
    if (this === o) return true;
    if (this.members.length !== o.members.length || this.children.length !== o.children.length) return false;
    for (let i = 0; i < this.members.length; i++) if (!pathElementsEqual(this.members[i]!, o.members[i]!)) return false;
    for (let i = 0; i < this.children.length; i++) {
      const [pe, set] = this.children[i]!;
      const [ope, oset] = o.children[i]!;
      if (!pathElementsEqual(pe, ope) || !set.equals(oset)) return false;
    }
    return true;
  }

  /**
   * Every member path in upstream's order (Set.Iterate): a level's members first, then each child's
   * paths in turn. This is the order of conflicts in apply errors.
   */
  paths(): Path[] {
    const out: Path[] = [];
    this.collect([], out);
    return out;
  }

  private collect(prefix: PathElement[], out: Path[]): void {
    for (const pe of this.members) out.push([...prefix, pe]);
    for (const [pe, set] of this.children) {
      prefix.push(pe);
      set.collect(prefix, out);
      prefix.pop();
    }
  }

  /** This level's members, sorted (a live view: do not change it). */
  memberElements(): readonly PathElement[] {
    return this.members;
  }

  /** This level's children, sorted (a live view; the sets in it are shared from then on). */
  childEntries(): readonly Child[] {
    for (const [, set] of this.children) set.shared = true;
    return this.children;
  }

  /** The subtree under pe, if any (shared with this set). */
  child(pe: PathElement): FieldSet | undefined {
    const set = this.find(pe);
    if (set) set.shared = true;
    return set;
  }

  /** The paths below pe, without pe (upstream WithPrefix); empty when there are none. */
  withPrefix(pe: PathElement): FieldSet {
    return this.child(pe) ?? FieldSet.empty();
  }

  /** One path per line, as upstream's Set.String. */
  toString(): string {
    return this.paths().map(pathString).join('\n');
  }
}
