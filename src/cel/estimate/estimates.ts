/**
 * cel-go's SizeEstimate and CostEstimate: ranges of unsigned 64-bit integers whose arithmetic
 * saturates at 2^64-1 instead of wrapping. Held as bigints so that the estimates are exact where
 * cel-go's are (the CRD cost limits compare them against fixed limits, so a rounding difference
 * could refuse a schema upstream accepts); cost factors go through float64 as cel-go's do.
 */

export const MAX_U64 = 2n ** 64n - 1n;
const TWO_TO_64 = 2 ** 64;

/** A range of values or costs (both of cel-go's estimate types have this shape). */
export interface Range {
  readonly min: bigint;
  readonly max: bigint;
}
export type SizeEstimate = Range;
export type CostEstimate = Range;

/** x + y, or MAX_U64 if that overflows. */
export function addU64(x: bigint, y: bigint): bigint {
  const s = x + y;
  return s > MAX_U64 ? MAX_U64 : s;
}

/** x × y, or MAX_U64 if that overflows. */
export function mulU64(x: bigint, y: bigint): bigint {
  const p = x * y;
  return p > MAX_U64 ? MAX_U64 : p;
}

/** cel-go's multiplyByCostFactor: ceil(float64(x) × factor), saturating. */
export function mulFactorU64(x: bigint, factor: number): bigint {
  const xf = Number(x);
  if (xf > 0 && factor > 0 && xf > Number(MAX_U64) / factor) return MAX_U64;
  const c = Math.ceil(xf * factor);
  if (c >= TWO_TO_64) return MAX_U64;
  return BigInt(c);
}

export function fixed(n: bigint | number): Range {
  const v = BigInt(n);
  return { min: v, max: v };
}

export const UNKNOWN_SIZE: Range = { min: 0n, max: MAX_U64 };
export const ZERO: Range = { min: 0n, max: 0n };

export function add(a: Range, b: Range): Range {
  return { min: addU64(a.min, b.min), max: addU64(a.max, b.max) };
}

export function multiply(a: Range, b: Range): Range {
  return { min: mulU64(a.min, b.min), max: mulU64(a.max, b.max) };
}

export function multiplyByFactor(a: Range, factor: number): Range {
  return { min: mulFactorU64(a.min, factor), max: mulFactorU64(a.max, factor) };
}

/** The smallest range covering both. */
export function union(a: Range, b: Range): Range {
  return { min: b.min < a.min ? b.min : a.min, max: b.max > a.max ? b.max : a.max };
}

/** common.StringTraversalCostFactor, RegexStringLengthCostFactor and the base costs of cel-go. */
export const STRING_TRAVERSAL_FACTOR = 0.1;
export const REGEX_LENGTH_FACTOR = 0.25;
export const LIST_CREATE_COST = 10n;
export const MAP_CREATE_COST = 30n;
export const STRUCT_CREATE_COST = 40n;
export const SELECT_AND_IDENT_COST = 1n;
export const CONST_COST = 0n;
