/**
 * Upstream value.Compare and value.Equals over plain JSON values: a total order across types so that
 * set-like list items and key fields can be sorted.
 *
 * Go tells int64 from float64 but compares the two numerically, so every JS number simply compares by
 * value. Kinds then rank numbers < strings < booleans < lists < maps < null.
 */
import { compareGoStrings } from '../../api/go/strings.ts';
import type { JsonValue } from './path-element.ts';

function rank(v: JsonValue): number {
  if (v === null) return 5;
  switch (typeof v) {
    case 'number':
      return 0;
    case 'string':
      return 1;
    case 'boolean':
      return 2;
    default:
      return Array.isArray(v) ? 3 : 4;
  }
}

const hasOwn = Object.prototype.hasOwnProperty;

type JsonMap = { readonly [key: string]: JsonValue };

/**
 * Upstream walks the union of both maps' keys in order, and its checks run in this order: once the
 * left map has had as many keys visited as it has, it is the lesser; likewise the right; then a key
 * missing on one side makes that side the greater.
 */
function compareMaps(a: JsonMap, b: JsonMap): number {
  const aKeys = Object.keys(a);
  const bKeys = Object.keys(b);
  if (aKeys.length === 0 && bKeys.length === 0) return 0;
  const keys = aKeys.concat(bKeys.filter((k) => !hasOwn.call(a, k))).sort(compareGoStrings);
  for (let i = 0; i < keys.length; i++) {
    const key = keys[i]!;
    let c: number;
    if (i === aKeys.length) c = -1;
    else if (i === bKeys.length) c = 1;
    else if (!hasOwn.call(a, key)) c = 1;
    else if (!hasOwn.call(b, key)) c = -1;
    else c = compareValues(a[key]!, b[key]!);
    if (c !== 0) return c;
  }
  return 0;
}

/** -1, 0 or 1. Scalars and lists compare without allocating; maps (rare in keys) sort their keys. */
export function compareValues(a: JsonValue, b: JsonValue): number {
  const ra = rank(a);
  const rb = rank(b);
  if (ra !== rb) return ra < rb ? -1 : 1;
  switch (ra) {
    case 0:
      return (a as number) < (b as number) ? -1 : (a as number) > (b as number) ? 1 : 0;
    case 1:
      return compareGoStrings(a as string, b as string);
    case 2:
      return a === b ? 0 : a ? 1 : -1;
    case 3: {
      const la = a as JsonValue[];
      const lb = b as JsonValue[];
      const n = la.length < lb.length ? la.length : lb.length;
      for (let i = 0; i < n; i++) {
        const c = compareValues(la[i]!, lb[i]!);
        if (c !== 0) return c;
      }
      return la.length === lb.length ? 0 : la.length < lb.length ? -1 : 1;
    }
    case 4:
      return compareMaps(a as JsonMap, b as JsonMap);
    default:
      return 0;
  }
}

export function valuesEqual(a: JsonValue, b: JsonValue): boolean {
  if (a === b) return true;
  if (a === null || b === null || typeof a !== 'object' || typeof b !== 'object') return false;
  if (Array.isArray(a)) {
    if (!Array.isArray(b) || a.length !== b.length) return false;
    for (let i = 0; i < a.length; i++) if (!valuesEqual(a[i]!, b[i]!)) return false;
    return true;
  }
  if (Array.isArray(b)) return false;
  const aKeys = Object.keys(a);
  if (aKeys.length !== Object.keys(b).length) return false;
  for (const key of aKeys) if (!hasOwn.call(b, key) || !valuesEqual(a[key]!, b[key]!)) return false;
  return true;
}
