/**
 * Filters over field sets (upstream fieldpath.Filter and SetMatcher), which registries use for the
 * fields a subresource resets: an exclude filter removes a set's paths and all below them; an include
 * filter keeps only paths matched by prefix patterns, `*` matching any one path element.
 */
import { FieldSet } from './field-set.ts';
import { comparePathElements, pathElementsEqual, type PathElement } from './path-element.ts';

export interface FieldSetFilter {
  filter(set: FieldSet): FieldSet;
}

/** Removes the paths in `exclude` and everything below them (upstream NewExcludeSetFilter). */
export function excludeFilter(exclude: FieldSet): FieldSetFilter {
  return { filter: (set) => set.recursiveDifference(exclude) };
}

export type PathElementMatcher = { readonly wildcard: true } | { readonly wildcard: false; readonly element: PathElement };

export function matchAnyPathElement(): PathElementMatcher {
  return { wildcard: true };
}

/**
 * Upstream PathElementMatcher.Compare, wildcards first. Two wildcards never compare equal (the
 * right-hand one counts as the lesser), which matters to merge() below.
 */
function compareMatchers(a: PathElementMatcher, b: PathElementMatcher): number {
  if (a.wildcard || b.wildcard) return a.wildcard && !b.wildcard ? -1 : 1;
  return comparePathElements(a.element, b.element);
}

// The order upstream sorts members in (by its Less, under which two wildcards are equal).
function sortOrder(a: PathElementMatcher, b: PathElementMatcher): number {
  if (a.wildcard || b.wildcard) return a.wildcard === b.wildcard ? 0 : a.wildcard ? -1 : 1;
  return comparePathElements(a.element, b.element);
}

export interface MemberMatcher {
  readonly path: PathElementMatcher;
  readonly child: SetMatcher;
}

export class SetMatcher {
  // Members sorted, wildcards first; ignored when the matcher itself is a wildcard.
  private constructor(
    readonly wildcard: boolean,
    private readonly members: readonly MemberMatcher[],
  ) {}

  /** Upstream NewSetMatcher. */
  static of(wildcard: boolean, members: readonly MemberMatcher[]): SetMatcher {
    return new SetMatcher(wildcard, [...members].sort((a, b) => sortOrder(a.path, b.path)));
  }

  /** Matches every set (upstream MatchAnySet). */
  static any(): SetMatcher {
    return new SetMatcher(true, []);
  }

  /**
   * Upstream SetMatcher.Merge. Upstream looks members up with its comparison the wrong way round,
   * which finds a member only when it is the only one at its level, and two wildcards never match
   * each other; a member not found is added a second time, and the first of the two wins when
   * filtering. So merging `spec.containers[*].resources` with `spec.containers[*].resizePolicy` (the
   * pods/resize reset filter) matches resources only, upstream as here.
   */
  merge(o: SetMatcher): SetMatcher {
    if (this.wildcard || o.wildcard) return SetMatcher.any();
    const merged = [...this.members];
    for (const m of o.members) {
      const at = upstreamFind(this.members, m.path);
      if (at >= 0) merged[at] = { path: merged[at]!.path, child: merged[at]!.child.merge(m.child) };
      else merged.push(m);
    }
    return SetMatcher.of(false, merged);
  }

  /** Upstream Set.FilterIncludeMatches. */
  filterIncludeMatches(set: FieldSet): FieldSet {
    if (this.wildcard) return set;
    const members = set.memberElements().filter((pe) => this.matchFor(pe) !== undefined);
    const children: (readonly [PathElement, FieldSet])[] = [];
    for (const [pe, child] of set.childEntries()) {
      const m = this.matchFor(pe);
      if (!m) continue;
      const kept = m.child.filterIncludeMatches(child);
      if (kept.size() > 0) children.push([pe, kept]);
    }
    return FieldSet.fromParts(members, children);
  }

  private matchFor(pe: PathElement): MemberMatcher | undefined {
    return this.members.find((m) => m.path.wildcard || pathElementsEqual(m.path.element, pe));
  }
}

// sort.Find with the member's Compare(target) as the comparison (the reverse of what sort.Find expects).
function upstreamFind(members: readonly MemberMatcher[], target: PathElementMatcher): number {
  let i = 0;
  let j = members.length;
  while (i < j) {
    const h = (i + j) >>> 1;
    if (compareMatchers(members[h]!.path, target) > 0) i = h + 1;
    else j = h;
  }
  return i < members.length && compareMatchers(members[i]!.path, target) === 0 ? i : -1;
}

/**
 * Upstream PrefixMatcher: matches the paths under the given path, and the path's own prefixes. Parts
 * are path elements or matchers (matchAnyPathElement() for any one element).
 */
export function prefixMatcher(...parts: readonly (PathElement | PathElementMatcher)[]): SetMatcher {
  let current = SetMatcher.any();
  for (let i = parts.length - 1; i >= 0; i--) {
    const part = parts[i]!;
    const path: PathElementMatcher = 'wildcard' in part ? part : { wildcard: false, element: part };
    if (!path.wildcard && path.element.kind === 'key' && path.element.fields.length === 0) {
      throw new Error('associative list key type path elements must have at least one key (got zero)');
    }
    current = SetMatcher.of(false, [{ path, child: current }]);
  }
  return current;
}

/** Keeps only the paths some matcher matches (upstream NewIncludeMatcherFilter); none keeps all. */
export function includeMatcherFilter(...matchers: readonly SetMatcher[]): FieldSetFilter {
  const [first = SetMatcher.any(), ...rest] = matchers;
  const matcher = rest.reduce((a, b) => a.merge(b), first);
  return { filter: (set) => matcher.filterIncludeMatches(set) };
}
