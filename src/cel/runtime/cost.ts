/**
 * The costs cel-go's runtime cost tracker charges for what is not a library function: operators
 * (whose cost grows with string and list sizes), literals that build lists and maps, attribute
 * reads, and the calls macros expand into.
 */
import { ceilCost, LIST_CREATE, MAP_CREATE, STRING_TRAVERSAL } from '../lib/overload.ts';
import { actualSize, CelObject, type CelValue } from '../values.ts';

export { LIST_CREATE, MAP_CREATE };

/** A variable, a comprehension variable or one select/index step. */
export const SELECT_COST = 1;
/** A call that no cost function prices (cel-go's default). */
export const CALL_COST = 1;

const sized = (v: CelValue) => typeof v === 'string' || v instanceof Uint8Array;

/** `==` and `!=`: a Kubernetes library value costs 1; otherwise the smaller side's size, a tenth per unit. */
export function equalityCost(a: CelValue, b: CelValue): number {
  if (a instanceof CelObject) return 1;
  return ceilCost(Math.min(actualSize(a), actualSize(b)), STRING_TRAVERSAL);
}

/** `<`, `<=`, `>`, `>=`: strings and bytes by the smaller size, everything else 1. */
export function orderingCost(a: CelValue, b: CelValue): number {
  if (sized(a) && sized(b)) return ceilCost(Math.min(actualSize(a), actualSize(b)), STRING_TRAVERSAL);
  return CALL_COST;
}

/** `+`: joining strings or bytes costs a tenth per unit of both; everything else 1. */
export function addCost(a: CelValue, b: CelValue): number {
  if (sized(a) && sized(b)) return ceilCost(actualSize(a) + actualSize(b), STRING_TRAVERSAL);
  return CALL_COST;
}

/** `in`: the size of a list searched; a map lookup 1. */
export function inCost(container: CelValue): number {
  return Array.isArray(container) ? container.length : CALL_COST;
}

/**
 * What an operand that failed counts as when its operator is charged: cel-go evaluates both
 * operands of an operator and charges the call even when one is an error, sizing the error 1 and
 * pricing by the overload the checker chose. A string or bytes of size 1 where the checker saw
 * (or, for a dyn operand, could only have seen) a string or bytes; otherwise a value of size 1.
 */
export function failedOperand(type: string | undefined, otherType: string | undefined): CelValue {
  const t = type === undefined || type === 'dyn' ? otherType : type;
  if (t === 'string') return ' ';
  if (t === 'bytes') return ONE_BYTE;
  return null;
}

const ONE_BYTE = new Uint8Array(1);
