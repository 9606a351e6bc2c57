/**
 * CEL's operators on runtime values with cel-go's semantics: heterogeneous equality (numbers
 * compare across int, uint and double; other kinds are never equal), ordering across numeric types,
 * checked int64/uint64 arithmetic, and the "no such overload" errors of mismatched operands.
 */
import { compareGoStrings } from '../../api/go/strings.ts';
import { CelEvalError, evalError, noSuchOverload } from '../errors.ts';
import { CelDuration, CelObject, CelOptional, CelTimestamp, CelType, CelUint, INT64_MAX, INT64_MIN, isMap, JsonMapBase, UINT64_MAX, type CelMap, type CelValue, type MapKey } from '../values.ts';
import { addToTimestamp, checkedDuration, timestampDifference } from './time.ts';

const integerOverflow = () => evalError('integer overflow');
const uintOverflow = () => evalError('unsigned integer overflow');
const noSuchOverloadOf = (fn: string): CelEvalError => evalError(`no such overload: ${fn}`);

function checkedInt(v: bigint): bigint {
  if (v < INT64_MIN || v > INT64_MAX) throw integerOverflow();
  return v;
}

function checkedUint(v: bigint): CelUint {
  if (v < 0n || v > UINT64_MAX) throw uintOverflow();
  return new CelUint(v);
}

/** A number's value for cross-type comparison: bigint for int and uint, number for double. */
function numeric(v: CelValue): bigint | number | undefined {
  if (typeof v === 'bigint' || typeof v === 'number') return v;
  if (v instanceof CelUint) return v.value;
  return undefined;
}

/** Compares int/uint values (bigints) and doubles exactly; NaN compares as undefined. */
function compareNumbers(a: bigint | number, b: bigint | number): number | undefined {
  if (typeof a === 'number' && Number.isNaN(a)) return undefined;
  if (typeof b === 'number' && Number.isNaN(b)) return undefined;
  if (typeof a === typeof b) return a < b ? -1 : a > b ? 1 : 0;
  // bigint against number: JavaScript compares the exact mathematical values.
  return a < b ? -1 : a > b ? 1 : 0;
}

function bytesCompare(a: Uint8Array, b: Uint8Array): number {
  const n = Math.min(a.length, b.length);
  for (let i = 0; i < n; i++) if (a[i] !== b[i]) return a[i]! < b[i]! ? -1 : 1;
  return a.length === b.length ? 0 : a.length < b.length ? -1 : 1;
}

/**
 * types.Equal: null equals only null; numbers compare by value across types; lists and maps compare
 * element-wise; library objects decide themselves (and may answer "no such overload").
 */
export function equals(a: CelValue, b: CelValue): boolean {
  if (a === null || b === null) return a === b;
  switch (typeof a) {
    case 'string':
    case 'boolean':
      return a === b;
    case 'bigint':
    case 'number': {
      const nb = numeric(b);
      return nb !== undefined && compareNumbers(a, nb) === 0;
    }
  }
  if (a instanceof CelUint) {
    const nb = numeric(b);
    return nb !== undefined && compareNumbers(a.value, nb) === 0;
  }
  if (Array.isArray(a)) return Array.isArray(b) && listEquals(a, b);
  if (isMap(a)) return isMap(b) && mapEquals(a, b);
  if (a instanceof Uint8Array) return b instanceof Uint8Array && bytesCompare(a, b) === 0;
  if (a instanceof CelTimestamp) return b instanceof CelTimestamp && a.nanos === b.nanos;
  if (a instanceof CelDuration) return b instanceof CelDuration && a.nanos === b.nanos;
  if (a instanceof CelType) return b instanceof CelType && a.name === b.name;
  if (a instanceof CelOptional) {
    if (!(b instanceof CelOptional)) return false;
    if (a.value === undefined || b.value === undefined) return a.value === b.value;
    return equals(a.value, b.value);
  }
  if (a instanceof CelObject) {
    const r = a.equals(b);
    if (r === undefined) throw noSuchOverload();
    return r;
  }
  return false;
}

/** cel-go's element comparison inside lists and maps: only a definite `false` decides. */
function elementEquals(a: CelValue, b: CelValue): boolean {
  try {
    return equals(a, b);
  } catch (e) {
    if (e instanceof CelEvalError) return true;
    throw e;
  }
}

// ---- lists with x-kubernetes-list-type set or map ----

type ListKind = 'set' | { readonly mapKeys: readonly string[] };
const listKinds = new WeakMap<readonly CelValue[], ListKind>();

/**
 * Marks a list as Kubernetes' structural schemas type it (x-kubernetes-list-type set, or map with
 * its key fields): `==` then ignores order, and `+` is a union (set) or a merge by key (map), as
 * upstream's schema-aware values behave. Returns the list.
 */
export function unorderedList(list: readonly CelValue[], kind: ListKind): readonly CelValue[] {
  listKinds.set(list, kind);
  return list;
}

function unorderedEquals(a: readonly CelValue[], b: readonly CelValue[]): boolean {
  return a.length === b.length && a.every((x) => b.some((y) => elementEquals(x, y))) && b.every((y) => a.some((x) => elementEquals(x, y)));
}

/** The key of a map-list element: its key fields' values. */
function listKey(el: CelValue, keys: readonly string[]): string {
  return JSON.stringify(keys.map((k) => (isMap(el) ? String(el.get(k)) : '')));
}

function mergeLists(a: readonly CelValue[], b: readonly CelValue[], kind: ListKind): readonly CelValue[] {
  let out: CelValue[];
  if (kind === 'set') out = [...a, ...b.filter((y) => !a.some((x) => elementEquals(x, y)))];
  else {
    const keyOf = (el: CelValue) => listKey(el, kind.mapKeys);
    const fromB = new Map(b.map((el) => [keyOf(el), el] as const));
    out = a.map((el) => fromB.get(keyOf(el)) ?? el);
    const inA = new Set(a.map(keyOf));
    for (const el of b) if (!inA.has(keyOf(el))) out.push(el);
  }
  return unorderedList(out, kind);
}

function listEquals(a: readonly CelValue[], b: readonly CelValue[]): boolean {
  if (listKinds.has(a) || listKinds.has(b)) return unorderedEquals(a, b);
  if (a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) if (!elementEquals(a[i]!, b[i]!)) return false;
  return true;
}

function mapEquals(a: CelMap, b: CelMap): boolean {
  if (a instanceof JsonMapBase) {
    const own = a.equalsMap(b);
    if (own !== undefined) return own;
  }
  if (a.size !== b.size) return false;
  for (const [k, v] of a) {
    const other = mapGet(b, k);
    if (other === undefined || !elementEquals(v, other)) return false;
  }
  return true;
}

/** A map key from a value (uint keys as ints; integral doubles find int keys); undefined if none. */
export function mapKeyOf(v: CelValue): MapKey | undefined {
  switch (typeof v) {
    case 'string':
    case 'bigint':
    case 'boolean':
      return v;
    case 'number':
      return Number.isInteger(v) ? BigInt(v) : undefined;
  }
  if (v instanceof CelUint) return v.value;
  return undefined;
}

/** A map's value for a key (numeric keys heterogeneously, as cel-go finds them). */
export function mapGet(m: CelMap, key: CelValue): CelValue | undefined {
  const k = mapKeyOf(key);
  return k === undefined ? undefined : m.get(k);
}

/** A key that a map literal may hold (int, uint, bool, string), else an error. */
export function literalKey(v: CelValue): MapKey {
  const k = typeof v === 'number' ? undefined : mapKeyOf(v);
  if (k === undefined) throw evalError('unsupported key type');
  return k;
}

/** `a < b` and friends: -1, 0 or 1, else "no such overload" (NaN cannot be ordered). */
export function compare(a: CelValue, b: CelValue, fn: string): number {
  const na = numeric(a);
  if (na !== undefined) {
    const nb = numeric(b);
    if (nb === undefined) throw noSuchOverload();
    const c = compareNumbers(na, nb);
    if (c === undefined) throw evalError('NaN values cannot be ordered');
    return c;
  }
  if (typeof a === 'string') {
    if (typeof b !== 'string') throw noSuchOverload();
    return compareGoStrings(a, b);
  }
  if (typeof a === 'boolean') {
    if (typeof b !== 'boolean') throw noSuchOverload();
    return a === b ? 0 : a ? 1 : -1;
  }
  if (a instanceof Uint8Array) {
    if (!(b instanceof Uint8Array)) throw noSuchOverload();
    return bytesCompare(a, b);
  }
  if (a instanceof CelTimestamp) {
    if (!(b instanceof CelTimestamp)) throw noSuchOverload();
    return a.nanos < b.nanos ? -1 : a.nanos > b.nanos ? 1 : 0;
  }
  if (a instanceof CelDuration) {
    if (!(b instanceof CelDuration)) throw noSuchOverload();
    return a.nanos < b.nanos ? -1 : a.nanos > b.nanos ? 1 : 0;
  }
  throw noSuchOverloadOf(fn);
}

export function add(a: CelValue, b: CelValue): CelValue {
  switch (typeof a) {
    case 'bigint':
      if (typeof b !== 'bigint') throw noSuchOverload();
      return checkedInt(a + b);
    case 'number':
      if (typeof b !== 'number') throw noSuchOverload();
      return a + b;
    case 'string':
      if (typeof b !== 'string') throw noSuchOverload();
      return a + b;
  }
  if (a instanceof CelUint) {
    if (!(b instanceof CelUint)) throw noSuchOverload();
    return checkedUint(a.value + b.value);
  }
  if (Array.isArray(a)) {
    if (!Array.isArray(b)) throw noSuchOverload();
    const kind = listKinds.get(a);
    if (kind) return mergeLists(a, b, kind);
    return a.length === 0 ? b : b.length === 0 ? a : [...a, ...b];
  }
  if (a instanceof Uint8Array) {
    if (!(b instanceof Uint8Array)) throw noSuchOverload();
    const out = new Uint8Array(a.length + b.length);
    out.set(a);
    out.set(b, a.length);
    return out;
  }
  if (a instanceof CelTimestamp) {
    if (!(b instanceof CelDuration)) throw noSuchOverload();
    return addToTimestamp(a, b.nanos);
  }
  if (a instanceof CelDuration) {
    if (b instanceof CelDuration) return checkedDuration(a.nanos + b.nanos);
    if (b instanceof CelTimestamp) return addToTimestamp(b, a.nanos);
    throw noSuchOverload();
  }
  throw noSuchOverloadOf('_+_');
}

export function subtract(a: CelValue, b: CelValue): CelValue {
  switch (typeof a) {
    case 'bigint':
      if (typeof b !== 'bigint') throw noSuchOverload();
      return checkedInt(a - b);
    case 'number':
      if (typeof b !== 'number') throw noSuchOverload();
      return a - b;
  }
  if (a instanceof CelUint) {
    if (!(b instanceof CelUint)) throw noSuchOverload();
    return checkedUint(a.value - b.value);
  }
  if (a instanceof CelTimestamp) {
    if (b instanceof CelTimestamp) return timestampDifference(a, b);
    if (b instanceof CelDuration) return addToTimestamp(a, -b.nanos);
    throw noSuchOverload();
  }
  if (a instanceof CelDuration) {
    if (!(b instanceof CelDuration)) throw noSuchOverload();
    return checkedDuration(a.nanos - b.nanos);
  }
  throw noSuchOverloadOf('_-_');
}

export function multiply(a: CelValue, b: CelValue): CelValue {
  if (typeof a === 'bigint') {
    if (typeof b !== 'bigint') throw noSuchOverload();
    return checkedInt(a * b);
  }
  if (typeof a === 'number') {
    if (typeof b !== 'number') throw noSuchOverload();
    return a * b;
  }
  if (a instanceof CelUint) {
    if (!(b instanceof CelUint)) throw noSuchOverload();
    return checkedUint(a.value * b.value);
  }
  throw noSuchOverloadOf('_*_');
}

export function divide(a: CelValue, b: CelValue): CelValue {
  if (typeof a === 'bigint') {
    if (typeof b !== 'bigint') throw noSuchOverload();
    if (b === 0n) throw evalError('division by zero');
    return checkedInt(a / b);
  }
  if (typeof a === 'number') {
    if (typeof b !== 'number') throw noSuchOverload();
    return a / b;
  }
  if (a instanceof CelUint) {
    if (!(b instanceof CelUint)) throw noSuchOverload();
    if (b.value === 0n) throw evalError('division by zero');
    return new CelUint(a.value / b.value);
  }
  throw noSuchOverloadOf('_/_');
}

export function modulo(a: CelValue, b: CelValue): CelValue {
  if (typeof a === 'bigint') {
    if (typeof b !== 'bigint') throw noSuchOverload();
    if (b === 0n) throw evalError('modulus by zero');
    if (a === INT64_MIN && b === -1n) throw integerOverflow();
    return a % b;
  }
  if (a instanceof CelUint) {
    if (!(b instanceof CelUint)) throw noSuchOverload();
    if (b.value === 0n) throw evalError('modulus by zero');
    return new CelUint(a.value % b.value);
  }
  throw noSuchOverloadOf('_%_');
}

export function negate(a: CelValue): CelValue {
  if (typeof a === 'bigint') return checkedInt(-a);
  if (typeof a === 'number') return -a;
  if (a instanceof CelDuration) return checkedDuration(-a.nanos);
  throw noSuchOverloadOf('-_');
}

export function not(a: CelValue): boolean {
  if (typeof a !== 'boolean') throw noSuchOverload();
  return !a;
}

/** `a in b`: list membership by heterogeneous equality, or map key presence. */
export function contains(container: CelValue, item: CelValue): boolean {
  if (Array.isArray(container)) {
    let err: unknown;
    for (const el of container) {
      try {
        if (equals(el, item)) return true;
      } catch (e) {
        if (!(e instanceof CelEvalError)) throw e;
        err ??= e;
      }
    }
    if (err) throw err;
    return false;
  }
  if (isMap(container)) return mapGet(container, item) !== undefined;
  throw noSuchOverloadOf('@in');
}

/** A list index from an int, uint or integral double, else cel-go's error. */
export function listIndex(idx: CelValue): number {
  // Out-of-range values stay out of range as numbers; the caller reports the bounds.
  if (typeof idx === 'bigint') return Number(idx);
  if (idx instanceof CelUint) return Number(idx.value);
  if (typeof idx === 'number') {
    if (Number.isInteger(idx)) return idx;
    throw evalError(`unsupported index value ${idx} in list`);
  }
  throw evalError(`unsupported index type '${indexTypeName(idx)}' in list`);
}

function indexTypeName(v: CelValue): string {
  switch (typeof v) {
    case 'string':
      return 'string';
    case 'boolean':
      return 'bool';
  }
  if (v === null) return 'null_type';
  if (Array.isArray(v)) return 'list';
  if (isMap(v)) return 'map';
  return 'object';
}

export { checkedInt, checkedUint };
