/**
 * cel-go's OptOptimize, which every Kubernetes program is built with: what its planner computes
 * once, when the program is built, instead of on every evaluation (interpreter/decorators.go,
 * decOptimize). Only runtime cost shows the difference, since a precomputed value costs nothing:
 * - a list or map literal whose entries are all constants becomes a constant (an error it meets
 *   becomes a constant error, raised on every evaluation as before);
 * - a type conversion (`int`, `string`, `dyn`, `timestamp` …) of a constant becomes a constant; one
 *   that fails makes the program fail to build;
 * - `x in [constant primitives]` becomes a free set lookup (`x in []` is simply false).
 * Constants are the literals, type names and whatever was folded before.
 */
import { CelEvalError, CelInterrupt } from '../errors.ts';
import { CelUint, INT64_MAX, type CelValue } from '../values.ts';
import { EvalState } from './state.ts';

type Ev = (s: EvalState) => CelValue;

/** What a constant closure yields: a value, or the evaluation error folding met. */
type Folded = { readonly value: CelValue } | { readonly error: CelEvalError };

const folded = new WeakMap<Ev, Folded>();

/** A closure yielding v at no cost, known to the folding as a constant. */
export function constant(v: CelValue): Ev {
  const ev: Ev = () => v;
  folded.set(ev, { value: v });
  return ev;
}

/** A closure raising err at no cost: a constant whose value is an error. */
function constantError(err: CelEvalError): Ev {
  const ev: Ev = () => {
    throw err;
  };
  folded.set(ev, { error: err });
  return ev;
}

/** Whether ev is a constant (its value possibly an error). */
export function isConstant(ev: Ev): boolean {
  return folded.has(ev);
}

/** The value of a constant closure; undefined for any other, or a constant error. */
export function constantValue(ev: Ev): { readonly value: CelValue } | undefined {
  const f = folded.get(ev);
  return f && 'value' in f ? f : undefined;
}

/** The error of a constant closure whose value is an error. */
export function foldedError(ev: Ev): CelEvalError | undefined {
  const f = folded.get(ev);
  return f && 'error' in f ? f.error : undefined;
}

/** Evaluates a closure of constants once; its result (or error) replaces it. */
export function fold(ev: Ev): Ev {
  const s = new EvalState(Number.POSITIVE_INFINITY, {}, [], new Map());
  try {
    return constant(ev(s));
  } catch (e) {
    if (e instanceof CelEvalError) return constantError(e);
    // Nothing interrupts constants; should anything, the closure stays as it was.
    if (e instanceof CelInterrupt) return ev;
    throw e;
  }
}

/** The standard library's type conversions (overloads.IsTypeConversionFunction). */
export const TYPE_CONVERSIONS: ReadonlySet<string> = new Set(['bool', 'bytes', 'double', 'duration', 'dyn', 'int', 'string', 'timestamp', 'type', 'uint']);

// ---- set membership ----

const TWO_63 = 2 ** 63;
const TWO_64 = 2 ** 64;

/** The set key of a primitive value (bytes excepted); undefined for anything else. */
function setKey(v: CelValue): string | undefined {
  switch (typeof v) {
    case 'bigint':
      return `i${v}`;
    case 'number':
      // NaN is no key, as it equals nothing; -0 and 0 share one.
      return Number.isNaN(v) ? undefined : `d${v}`;
    case 'string':
      return `s${v}`;
    case 'boolean':
      return `b${v}`;
  }
  return v instanceof CelUint ? `u${v.value}` : undefined;
}

/**
 * The keys `x in list` looks up, as maybeOptimizeSetMembership builds them: each element, plus its
 * numeric twins of the other numeric types where the conversion is possible (for a double, only
 * where it is lossless); undefined when an element is not a primitive or is bytes.
 */
function membershipKeys(list: readonly CelValue[]): Set<string> | undefined {
  const keys = new Set<string>();
  for (const el of list) {
    if (el instanceof Uint8Array) return undefined;
    const key = setKey(el);
    if (key === undefined) {
      if (typeof el === 'number') continue; // NaN: a member no lookup finds
      return undefined;
    }
    keys.add(key);
    if (typeof el === 'bigint') {
      keys.add(`d${Number(el)}`);
      if (el >= 0n) keys.add(`u${el}`);
    } else if (el instanceof CelUint) {
      keys.add(`d${Number(el.value)}`);
      if (el.value <= INT64_MAX) keys.add(`i${el.value}`);
    } else if (typeof el === 'number' && Number.isInteger(el)) {
      if (el > -TWO_63 && el < TWO_63) keys.add(`i${BigInt(el)}`);
      if (el >= 0 && el < TWO_64) keys.add(`u${BigInt(el)}`);
    }
  }
  return keys;
}

/**
 * `x in list` for a constant list: false outright when it is empty (x is not evaluated); a lookup
 * that costs nothing when its elements allow one; undefined when they do not (the ordinary `in`).
 * Errors of x still propagate.
 */
export function setMembership(lhs: Ev, list: readonly CelValue[]): Ev | undefined {
  if (list.length === 0) return constant(false);
  const keys = membershipKeys(list);
  if (!keys) return undefined;
  return (s) => {
    const key = setKey(lhs(s));
    return key !== undefined && keys.has(key);
  };
}
