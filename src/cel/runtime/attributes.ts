/**
 * Attribute resolution as cel-go's interpreter does it: a base value (a variable, or any other
 * expression) qualified step by step by fields and indexes. The base read is charged once, after
 * the resolution whether or not it failed, and each qualifier once as it is applied; once an
 * optional qualifier (`.?f`, `[?k]`) or an optional base is met, every later step tests presence
 * instead of failing and the result is an optional. has() tests the last step only and is not
 * charged for it.
 */
import { evalError } from '../errors.ts';
import { CelOptional, CelUint, isMap, type CelValue } from '../values.ts';
import { SELECT_COST } from './cost.ts';
import { listIndex, mapGet } from './ops.ts';
import type { EvalState } from './state.ts';
import { LazyVariables } from './variables.ts';

type Ev = (s: EvalState) => CelValue;

export interface Qualifier {
  readonly optional: boolean;
  /** A constant key, or the expression computing it. */
  readonly key: CelValue | undefined;
  readonly keyEv?: Ev;
}

/** `%v` of a key in "no such key" (strings bare, numbers as Go prints them). */
function keyText(k: CelValue): string {
  if (k instanceof CelUint) return String(k.value);
  return String(k);
}

/** Qualifier.Qualify: the member or element, else cel-go's error. */
export function qualify(obj: CelValue, key: CelValue): CelValue {
  if (isMap(obj)) {
    const v = mapGet(obj, key);
    if (v === undefined) throw evalError(`no such key: ${keyText(key)}`);
    return v;
  }
  if (Array.isArray(obj)) {
    const i = listIndex(key);
    if (i < 0 || i >= obj.length) throw evalError(`index out of bounds: ${keyText(key)}`);
    return obj[i]!;
  }
  if (obj instanceof LazyVariables && typeof key === 'string') {
    const v = obj.get(key);
    if (v !== undefined) return v;
  }
  throw evalError(`no such key: ${keyText(key)}`);
}

/** Qualifier.QualifyIfPresent: the member or element, or undefined when absent. */
export function qualifyIfPresent(obj: CelValue, key: CelValue): CelValue | undefined {
  if (isMap(obj)) return mapGet(obj, key);
  if (Array.isArray(obj)) {
    const i = listIndex(key);
    return i >= 0 && i < obj.length ? obj[i] : undefined;
  }
  if (obj instanceof LazyVariables && typeof key === 'string') return obj.has(key) ? obj.get(key) : undefined;
  return undefined;
}

/** The closure resolving a base value through its qualifiers. */
export function resolveChain(root: Ev, quals: readonly Qualifier[], rootCost: number, testOnly: boolean): Ev {
  const qualCost = testOnly ? quals.length - 1 : quals.length;
  const last = quals.length - 1;
  const resolve = (s: EvalState): CelValue => {
    let obj = root(s);
    let opt = false;
    if (obj instanceof CelOptional) {
      if (obj.value === undefined) return CelOptional.NONE;
      obj = obj.value;
      opt = true;
    }
    for (let i = 0; i <= last; i++) {
      const q = quals[i]!;
      const key = q.keyEv ? q.keyEv(s) : q.key!;
      if (i < qualCost) s.charge(SELECT_COST);
      opt ||= q.optional;
      if (testOnly && i === last) return qualifyIfPresent(obj, key) !== undefined;
      if (opt) {
        const v = qualifyIfPresent(obj, key);
        if (v === undefined) return CelOptional.NONE;
        obj = v;
      } else obj = qualify(obj, key);
    }
    return opt ? CelOptional.of(obj) : obj;
  };
  if (rootCost === 0) return resolve;
  // cel-go observes the attribute after resolving it, whether that failed or not.
  return (s) => {
    try {
      return resolve(s);
    } finally {
      s.charge(rootCost);
    }
  };
}
