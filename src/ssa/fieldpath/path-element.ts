/**
 * Path elements: the steps of a field path (upstream fieldpath.PathElement), their order and equality.
 * A path element selects a field of a map, an item of an associative list by its key fields, an item of
 * a set-like list by its value, or an item of an atomic list by its index.
 */
import { compareGoStrings } from '../../api/go/strings.ts';
import { sortKeyFields } from './key-fields.ts';
import { compareValues, valuesEqual } from './value-order.ts';

export type JsonValue = null | boolean | number | string | JsonValue[] | { [key: string]: JsonValue };

export type PathElement =
  | { readonly kind: 'field'; readonly name: string }
  // Sorted by name (Go byte order, stable), as upstream's FieldList; keyElement() sorts.
  | { readonly kind: 'key'; readonly fields: readonly (readonly [string, JsonValue])[] }
  | { readonly kind: 'value'; readonly value: JsonValue }
  | { readonly kind: 'index'; readonly index: number };

export type Path = readonly PathElement[];

export { pathElementText, parsePathElement } from './path-element-text.ts';
export { pathString, pathElementString } from './path-string.ts';
export { sortKeyFields };

export function fieldElement(name: string): PathElement {
  return { kind: 'field', name };
}

/** A key element; the fields are sorted by name here, so any order will do. */
export function keyElement(fields: Iterable<readonly [string, JsonValue]>): PathElement {
  return { kind: 'key', fields: sortKeyFields([...fields]) };
}

export function valueElement(value: JsonValue): PathElement {
  return { kind: 'value', value };
}

export function indexElement(index: number): PathElement {
  return { kind: 'index', index };
}

// Upstream orders kinds as fields, keys, values, indexes.
const KIND_RANK = { field: 0, key: 1, value: 2, index: 3 } as const;

function compareKeyFields(a: readonly (readonly [string, JsonValue])[], b: readonly (readonly [string, JsonValue])[]): number {
  const n = a.length < b.length ? a.length : b.length;
  for (let i = 0; i < n; i++) {
    const [an, av] = a[i]!;
    const [bn, bv] = b[i]!;
    const c = compareGoStrings(an, bn) || compareValues(av, bv);
    if (c !== 0) return c;
  }
  return a.length === b.length ? 0 : a.length < b.length ? -1 : 1;
}

/** Upstream PathElement.Compare: -1, 0 or 1. */
export function comparePathElements(a: PathElement, b: PathElement): number {
  if (a.kind !== b.kind) return KIND_RANK[a.kind] < KIND_RANK[b.kind] ? -1 : 1;
  switch (a.kind) {
    case 'field':
      return compareGoStrings(a.name, (b as typeof a).name);
    case 'key':
      return compareKeyFields(a.fields, (b as typeof a).fields);
    case 'value':
      return compareValues(a.value, (b as typeof a).value);
    case 'index': {
      const bi = (b as typeof a).index;
      return a.index < bi ? -1 : a.index > bi ? 1 : 0;
    }
  }
}

export function pathElementsEqual(a: PathElement, b: PathElement): boolean {
  if (a.kind !== b.kind) return false;
  switch (a.kind) {
    case 'field':
      return a.name === (b as typeof a).name;
    case 'key': {
      const bf = (b as typeof a).fields;
      if (a.fields.length !== bf.length) return false;
      return a.fields.every(([name, v], i) => name === bf[i]![0] && valuesEqual(v, bf[i]![1]));
    }
    case 'value':
      return valuesEqual(a.value, (b as typeof a).value);
    case 'index':
      return a.index === (b as typeof a).index;
  }
}

/** Upstream Path.Compare: element by element, a prefix first. */
export function comparePaths(a: Path, b: Path): number {
  const n = a.length < b.length ? a.length : b.length;
  for (let i = 0; i < n; i++) {
    const c = comparePathElements(a[i]!, b[i]!);
    if (c !== 0) return c;
  }
  return a.length === b.length ? 0 : a.length < b.length ? -1 : 1;
}

export function pathsEqual(a: Path, b: Path): boolean {
  return a.length === b.length && a.every((pe, i) => pathElementsEqual(pe, b[i]!));
}
