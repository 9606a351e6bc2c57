/**
 * List functions: Kubernetes' lists library (isSorted, sum, min, max, indexOf, lastIndexOf), cel-go's
 * lists extension at version 3 (slice, flatten, sort, sortBy's helper, lists.range, reverse,
 * distinct — added in 1.34, so stored expressions only) and the optional library's first, last and
 * unwrap. Errors and costs are upstream's.
 */
import { CelEvalError, evalError, noSuchOverload } from '../errors.ts';
import { add, compare, equals } from '../runtime/ops.ts';
import { actualSize, CelDuration, CelOptional, CelTimestamp, CelUint, typeName, type CelValue } from '../values.ts';
import { global, LIST_CREATE, member, STRING_TRAVERSAL, type CostFn, type Overload } from './overload.ts';
import { traversalCost } from './traversal.ts';

type List = readonly CelValue[];

const COMPARABLE = ['int', 'uint', 'double', 'bool', 'google.protobuf.Duration', 'google.protobuf.Timestamp', 'string', 'bytes'] as const;
const COMPARABLE_NAMES: Record<(typeof COMPARABLE)[number], string> = {
  int: 'int',
  uint: 'uint',
  double: 'double',
  bool: 'bool',
  'google.protobuf.Duration': 'duration',
  'google.protobuf.Timestamp': 'timestamp',
  string: 'string',
  bytes: 'bytes',
};

function isComparer(v: CelValue): boolean {
  return typeof v === 'bigint' || typeof v === 'number' || typeof v === 'string' || typeof v === 'boolean' || v instanceof CelUint || v instanceof Uint8Array || v instanceof CelTimestamp || v instanceof CelDuration;
}

/** Compare as a traits.Comparer does: undefined where cel-go's Compare yields an error value. */
function tryCompare(a: CelValue, b: CelValue): number | undefined {
  try {
    return compare(a, b, '');
  } catch (e) {
    if (e instanceof CelEvalError) return undefined;
    throw e;
  }
}

function isSorted(list: List): boolean {
  let prev: CelValue | undefined;
  for (const next of list) {
    if (!isComparer(next)) throw noSuchOverload();
    if (prev !== undefined && tryCompare(prev, next) === 1) return false;
    prev = next;
  }
  return true;
}

function sum(list: List, zero: CelValue): CelValue {
  let acc = zero;
  for (const next of list) acc = add(acc, next);
  return acc;
}

/** min keeps the element when the current one compares greater (prefer 1), max when it compares less (-1). */
function extreme(list: List, name: 'min' | 'max'): CelValue {
  const prefer = name === 'min' ? 1 : -1;
  let result: CelValue | undefined;
  for (const next of list) {
    if (!isComparer(next)) throw noSuchOverload();
    if (result === undefined || tryCompare(result, next) === prefer) result = next;
  }
  if (result === undefined) throw evalError(`${name} called on empty list`);
  return result;
}

function tryEquals(a: CelValue, b: CelValue): boolean {
  try {
    return equals(a, b);
  } catch (e) {
    if (e instanceof CelEvalError) return false;
    throw e;
  }
}

function indexOf(list: List, item: CelValue): bigint {
  for (let i = 0; i < list.length; i++) if (tryEquals(list[i]!, item)) return BigInt(i);
  return -1n;
}

function lastIndexOf(list: List, item: CelValue): bigint {
  for (let i = list.length - 1; i >= 0; i--) if (tryEquals(list[i]!, item)) return BigInt(i);
  return -1n;
}

function slice(list: List, start: bigint, end: bigint): List {
  if (start < 0n || end < 0n) throw evalError(`cannot slice(${start}, ${end}), negative indexes not supported`);
  if (start > end) throw evalError(`cannot slice(${start}, ${end}), start index must be less than or equal to end index`);
  if (BigInt(list.length) < end) throw evalError(`cannot slice(${start}, ${end}), list is length ${list.length}`);
  return list.slice(Number(start), Number(end));
}

/** flatten's own checks (its overloads run without type guards). */
function flattenArgs(list: CelValue, depth?: CelValue): CelValue[] {
  const sig = depth === undefined ? '' : typeName(depth);
  if (!Array.isArray(list) || (depth !== undefined && typeof depth !== 'bigint')) throw evalError(`no such overload: ${typeName(list)}.flatten(${sig})`);
  return flatten(list, depth === undefined ? 1n : (depth as bigint));
}

function flatten(list: List, depth: bigint): CelValue[] {
  if (depth < 0n) throw evalError('level must be non-negative');
  const out: CelValue[] = [];
  for (const v of list) {
    if (!Array.isArray(v) || depth === 0n) out.push(v);
    else out.push(...flatten(v, depth - 1n));
  }
  return out;
}

/**
 * sortListByAssociatedKeys: orders `list` by `keys` (same length, comparable, one type). Go's
 * sort.Slice is not stable past twelve elements; this sort is, so equal keys of longer lists may
 * come out in another order than upstream's.
 */
function sortByKeys(list: List, keys: List): List {
  if (list.length !== keys.length) {
    throw evalError(`@sortByAssociatedKeys() expected a list of the same size as the associated keys list, but got ${list.length} and ${keys.length} elements respectively`);
  }
  if (list.length === 0) return list;
  const first = keys[0]!;
  if (!isComparer(first)) throw evalError('list elements must be comparable');
  const kind = runtimeKind(first);
  let mixed = false;
  const order = list.map((_, i) => i);
  order.sort((i, j) => {
    if (runtimeKind(keys[i]!) !== kind || runtimeKind(keys[j]!) !== kind) {
      mixed = true;
      return 0;
    }
    return compare(keys[i]!, keys[j]!, '');
  });
  if (mixed) throw evalError('list elements must have the same type');
  return order.map((i) => list[i]!);
}

function runtimeKind(v: CelValue): string {
  if (v instanceof CelUint) return 'uint';
  if (v instanceof CelTimestamp) return 'timestamp';
  if (v instanceof CelDuration) return 'duration';
  if (v instanceof Uint8Array) return 'bytes';
  return typeof v;
}

function distinct(list: List): List {
  const out: CelValue[] = [];
  for (const v of list) if (!out.some((o) => tryEquals(v, o))) out.push(v);
  return out;
}

function unwrap(list: List): List {
  const out: CelValue[] = [];
  for (const v of list) {
    if (!(v instanceof CelOptional)) throw noSuchOverload();
    if (v.value !== undefined) out.push(v.value);
  }
  return out;
}

// ---- costs (cel-go's list trackers and Kubernetes' estimator) ----

const traversal: CostFn = (args) => traversalCost(args[0]!);
/** trackAllocatingListCall: size × factor, plus the call and a list creation. */
const allocating = (factor: number, size: number) => Math.floor(size * factor) + 1 + LIST_CREATE;
const outputSize: CostFn = (_, result) => allocating(1, actualSize(result));
/** trackListSelfCompare: n² comparisons, dearer for strings and bytes. */
function selfCompare(list: CelValue): number {
  const l = list as List;
  if (l.length === 0) return allocating(2, 0);
  const factor = typeof l[0] === 'string' || l[0] instanceof Uint8Array ? 2 + STRING_TRAVERSAL : 2;
  return allocating(factor, l.length * l.length);
}

const ZEROS: Record<string, CelValue> = { int: 0n, uint: new CelUint(0n), double: 0, 'google.protobuf.Duration': new CelDuration(0n) };

export const listsOverloads: readonly Overload[] = [
  ...COMPARABLE.map((t) => member(`list_${COMPARABLE_NAMES[t]}_is_sorted_bool`, 'isSorted', [`list<${t}>`], 'bool', ([l]) => isSorted(l as List), { cost: traversal })),
  ...(['int', 'uint', 'double', 'google.protobuf.Duration'] as const).map((t) =>
    member(`list_${COMPARABLE_NAMES[t]}_sum_${COMPARABLE_NAMES[t]}`, 'sum', [`list<${t}>`], t, ([l]) => sum(l as List, ZEROS[t]!), { cost: traversal }),
  ),
  ...COMPARABLE.map((t) => member(`list_${COMPARABLE_NAMES[t]}_max_${COMPARABLE_NAMES[t]}`, 'max', [`list<${t}>`], t, ([l]) => extreme(l as List, 'max'), { cost: traversal })),
  ...COMPARABLE.map((t) => member(`list_${COMPARABLE_NAMES[t]}_min_${COMPARABLE_NAMES[t]}`, 'min', [`list<${t}>`], t, ([l]) => extreme(l as List, 'min'), { cost: traversal })),
  member('list_a_index_of_int', 'indexOf', ['list<A>', 'A'], 'int', ([l, x]) => indexOf(l as List, x!), { cost: traversal }),
  member('list_a_last_index_of_int', 'lastIndexOf', ['list<A>', 'A'], 'int', ([l, x]) => lastIndexOf(l as List, x!), { cost: traversal }),

  member('list_slice', 'slice', ['list<T>', 'int', 'int'], 'list<T>', ([l, a, b]) => slice(l as List, a as bigint, b as bigint), { cost: outputSize, storedOnly: true }),
  member('list_flatten', 'flatten', ['list<list<T>>'], 'list<T>', ([l]) => flattenArgs(l!), { cost: (args) => allocating(1, actualSize(args[0]!)), storedOnly: true, unguarded: true }),
  member('list_flatten_int', 'flatten', ['list<dyn>', 'int'], 'list<dyn>', ([l, d]) => flattenArgs(l!, d!), {
    cost: (args) => allocating(typeof args[1] === 'bigint' ? Number(args[1]) : 1, actualSize(args[0]!)),
    storedOnly: true,
    unguarded: true,
  }),
  ...COMPARABLE.map((t) => member(`list_${t}_sort`, 'sort', [`list<${t}>`], `list<${t}>`, ([l]) => sortByKeys(l as List, l as List), { cost: (args) => selfCompare(args[0]!), storedOnly: true })),
  ...COMPARABLE.map((t) =>
    member(`list_${t}_sortByAssociatedKeys`, '@sortByAssociatedKeys', ['list<T>', `list<${t}>`], 'list<T>', ([l, k]) => sortByKeys(l as List, k as List), { cost: (args) => selfCompare(args[1]!), storedOnly: true }),
  ),
  global('lists_range', 'lists.range', ['int'], 'list<int>', ([n]) => Array.from({ length: Math.max(0, Number(n as bigint)) }, (_, i) => BigInt(i)), { cost: outputSize, storedOnly: true }),
  member('list_reverse', 'reverse', ['list<T>'], 'list<T>', ([l]) => [...(l as List)].reverse(), { cost: outputSize, storedOnly: true }),
  member('list_distinct', 'distinct', ['list<T>'], 'list<T>', ([l]) => distinct(l as List), { cost: (args) => selfCompare(args[0]!), storedOnly: true }),

  member('list_first', 'first', ['list<T>'], 'optional<T>', ([l]) => ((l as List).length === 0 ? CelOptional.NONE : CelOptional.of((l as List)[0]!))),
  member('list_last', 'last', ['list<T>'], 'optional<T>', ([l]) => ((l as List).length === 0 ? CelOptional.NONE : CelOptional.of((l as List).at(-1)!))),
  global('optional_unwrap', 'optional.unwrap', ['list<optional<T>>'], 'list<T>', ([l]) => unwrap(l as List)),
  member('optional_unwrapOpt', 'unwrapOpt', ['list<optional<T>>'], 'list<T>', ([l]) => unwrap(l as List)),
];
