/**
 * The comprehension macros, evaluated as cel-go evaluates their expansions: all and exists stop as
 * soon as the answer is known and let a later false (all) or true (exists) outweigh an earlier
 * error; exists_one, map, filter and the transforms visit every element and fail with the first
 * error. Costs are those of the expanded loop — per element, the loop condition, the reads of the
 * accumulator and the list or map built up (see cel-go's parser/macro.go and ext/comprehensions.go).
 */
import { CelEvalError, evalError, noSuchOverload } from '../errors.ts';
import { CelOptional, isMap, type CelValue, type MapKey } from '../values.ts';
import { CALL_COST, SELECT_COST } from './cost.ts';
import { mapKeyOf } from './ops.ts';
import type { EvalState } from './state.ts';

export type Ev = (s: EvalState) => CelValue;

/**
 * What the literals of an expansion cost: `init`, the accumulator's initial `[]` or `{}` (and a
 * bind's empty range); `element`, the one-element list `[t]` a map step appends. Under OptOptimize
 * a constant literal is folded and costs nothing.
 */
export interface LiteralCosts {
  readonly init: number;
  readonly element: number;
}

/** Where a comprehension puts its variables: one slot, or two (index or key, and value). */
export interface Vars {
  readonly first: number;
  readonly second?: number;
}

const GO_TYPES: Record<string, string> = { string: 'types.String', bigint: 'types.Int', number: 'types.Double', boolean: 'types.Bool' };

/** The range's elements as the iteration variables see them. */
function entries(range: CelValue, two: boolean): [CelValue, CelValue][] {
  if (Array.isArray(range)) return range.map((el, i) => [two ? BigInt(i) : el, el]);
  if (isMap(range)) return [...range].map(([k, v]) => [k, v]);
  const t = range === null ? 'types.Null' : (GO_TYPES[typeof range] ?? 'types.Val');
  throw evalError(`got '${t}', expected iterable type`);
}

function bind(s: EvalState, vars: Vars, entry: [CelValue, CelValue]): void {
  s.slots[vars.first] = entry[0];
  if (vars.second !== undefined) s.slots[vars.second] = entry[1];
}

/** The value of an expression, or its evaluation error as a value (interruptions still propagate). */
function attempt(f: Ev, s: EvalState): CelValue | CelEvalError {
  try {
    return f(s);
  } catch (e) {
    if (e instanceof CelEvalError) return e;
    throw e;
  }
}

/**
 * all and exists: the accumulator starts at `!decisive` and becomes `decisive` at the first element
 * whose predicate is; until then an error (or a non-bool) is kept and thrown at the end, as cel-go's
 * `@not_strictly_false` loop does. `stepCost` is the per-element charge of the macro's expansion.
 */
function quantifier(decisive: boolean, stepCost: number) {
  return (range: Ev, vars: Vars, pred: Ev): Ev => {
    const two = vars.second !== undefined;
    return (s) => {
      let accu: boolean | CelEvalError = !decisive;
      for (const entry of entries(range(s), two)) {
        s.charge(stepCost);
        if (accu === decisive) break;
        bind(s, vars, entry);
        s.charge(SELECT_COST);
        const p = attempt(pred, s);
        if (p === decisive) accu = decisive;
        else if (accu === !decisive && p !== !decisive) accu = p instanceof CelEvalError ? p : noSuchOverload();
      }
      s.charge(SELECT_COST);
      if (accu instanceof CelEvalError) throw accu;
      return accu;
    };
  };
}

/** all: `@not_strictly_false(@result)` then `@result && p` per element. */
export const all = quantifier(false, SELECT_COST + CALL_COST);

/** exists: `@not_strictly_false(!@result)` then `@result || p` per element. */
export const exists = quantifier(true, SELECT_COST + 2 * CALL_COST);

/** exists_one: `p ? @result + 1 : @result` per element, then `@result == 1`. */
export function existsOne(range: Ev, vars: Vars, pred: Ev): Ev {
  const two = vars.second !== undefined;
  return (s) => {
    let count = 0n;
    let err: CelEvalError | undefined;
    for (const entry of entries(range(s), two)) {
      bind(s, vars, entry);
      const p = attempt(pred, s);
      if (p === true) s.charge(SELECT_COST + CALL_COST);
      if (err) continue;
      if (p instanceof CelEvalError) err = p;
      else if (typeof p !== 'boolean') err = noSuchOverload();
      else if (p) count++;
    }
    s.charge(SELECT_COST + CALL_COST);
    if (err) throw err;
    return count === 1n;
  };
}

/** The filter of a map or transform macro: `f ? step : @result`, with its error kept. */
function passes(filter: Ev | undefined, s: EvalState, fail: (e: CelEvalError) => void): boolean {
  if (!filter) return true;
  const p = attempt(filter, s);
  if (p === true) return true;
  if (p instanceof CelEvalError) fail(p);
  else if (p !== false) fail(noSuchOverload());
  return false;
}

/**
 * map / transformList: `@result + [t]` per element (an accumulator read, a one-element list and an
 * addition), optionally behind a filter; filter uses the element itself as t.
 */
export function mapList(range: Ev, vars: Vars, filter: Ev | undefined, transform: Ev | undefined, literals: LiteralCosts): Ev {
  const two = vars.second !== undefined;
  const stepCost = SELECT_COST + literals.element + CALL_COST;
  return (s) => {
    s.charge(literals.init);
    const out: CelValue[] = [];
    let err: CelEvalError | undefined;
    const fail = (e: CelEvalError) => (err ??= e);
    for (const entry of entries(range(s), two)) {
      bind(s, vars, entry);
      if (!passes(filter, s, fail)) continue;
      s.charge(stepCost);
      if (!transform) {
        s.charge(SELECT_COST);
        out.push(entry[0]);
        continue;
      }
      const v = attempt(transform, s);
      if (v instanceof CelEvalError) fail(v);
      else out.push(v);
    }
    s.charge(SELECT_COST);
    if (err) throw err;
    return out;
  };
}

function insert(m: Map<MapKey, CelValue>, key: CelValue, value: CelValue): void {
  const k = mapKeyOf(key);
  if (k === undefined || typeof key === 'number') throw noSuchOverload();
  if (m.has(k)) throw evalError(`insert failed: key ${String(k)} already exists`);
  m.set(k, value);
}

/** transformMap: `cel.@mapInsert(@result, k, t)` per element. */
export function transformMap(range: Ev, vars: Vars, filter: Ev | undefined, transform: Ev, initCost: number): Ev {
  return (s) => {
    s.charge(initCost);
    const out = new Map<MapKey, CelValue>();
    let err: CelEvalError | undefined;
    const fail = (e: CelEvalError) => (err ??= e);
    for (const entry of entries(range(s), true)) {
      bind(s, vars, entry);
      if (!passes(filter, s, fail)) continue;
      s.charge(2 * SELECT_COST + CALL_COST);
      const v = attempt(transform, s);
      if (v instanceof CelEvalError) fail(v);
      else if (!err) {
        try {
          insert(out, entry[0], v);
        } catch (e) {
          if (e instanceof CelEvalError) fail(e);
          else throw e;
        }
      }
    }
    s.charge(SELECT_COST);
    if (err) throw err;
    return out;
  };
}

/** transformMapEntry: `cel.@mapInsert(@result, t)` per element, t a map of entries to add. */
export function transformMapEntry(range: Ev, vars: Vars, filter: Ev | undefined, transform: Ev, initCost: number): Ev {
  return (s) => {
    s.charge(initCost);
    const out = new Map<MapKey, CelValue>();
    let err: CelEvalError | undefined;
    const fail = (e: CelEvalError) => (err ??= e);
    for (const entry of entries(range(s), true)) {
      bind(s, vars, entry);
      if (!passes(filter, s, fail)) continue;
      s.charge(SELECT_COST + CALL_COST);
      const v = attempt(transform, s);
      if (v instanceof CelEvalError) fail(v);
      else if (!err) {
        try {
          if (!isMap(v)) throw noSuchOverload();
          for (const [k, val] of v) insert(out, k, val);
        } catch (e) {
          if (e instanceof CelEvalError) fail(e);
          else throw e;
        }
      }
    }
    s.charge(SELECT_COST);
    if (err) throw err;
    return out;
  };
}

/**
 * sortBy: a bind of the target (an empty range, then the target as accumulator), a map of the keys
 * over it, then @sortByAssociatedKeys(target, keys) whose cost the sort itself charges.
 */
export function sortBy(target: Ev, slot: number, key: Ev, sortByKeys: (list: CelValue, keys: CelValue[], s: EvalState) => CelValue, literals: LiteralCosts): Ev {
  return (s) => {
    s.charge(literals.init);
    const list = target(s);
    s.charge(2 * SELECT_COST + literals.init);
    const keys: CelValue[] = [];
    let err: CelEvalError | undefined;
    for (const entry of entries(list, false)) {
      s.slots[slot] = entry[0];
      s.charge(SELECT_COST + literals.element + CALL_COST);
      const k = attempt(key, s);
      if (k instanceof CelEvalError) err ??= k;
      else keys.push(k);
    }
    s.charge(SELECT_COST);
    if (err) throw err;
    return sortByKeys(list, keys, s);
  };
}

/**
 * optMap / optFlatMap: `t.hasValue() ? optional.of(bind(x, t.value(), e)) : optional.none()` —
 * the target is written twice in the expansion, so its cost counts twice when it holds a value.
 */
export function optMap(target: Ev, slot: number, body: Ev, flat: boolean, bindCost: number): Ev {
  return (s) => {
    const before = s.cost;
    const t = target(s);
    const targetCost = s.cost - before;
    if (!(t instanceof CelOptional)) throw noSuchOverload();
    s.charge(CALL_COST);
    if (t.value === undefined) {
      s.charge(CALL_COST);
      return CelOptional.NONE;
    }
    s.charge(targetCost + CALL_COST + bindCost);
    s.slots[slot] = t.value;
    const v = body(s);
    if (flat) {
      if (!(v instanceof CelOptional)) throw noSuchOverload();
      return v;
    }
    s.charge(CALL_COST);
    return CelOptional.of(v);
  };
}
