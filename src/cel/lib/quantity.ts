/**
 * Kubernetes' quantity library over apimachinery's resource.Quantity semantics. A quantity is held
 * as exactly `unscaled × 10^scale`, together with what decides upstream's answers beyond the value:
 * whether Go holds it as an int64Amount or (for too many digits, sub-nano scales, fractional binary
 * values, overflowing arithmetic) as an inf.Dec — isInteger() and asInteger() succeed only for an
 * int64Amount with a scale of zero or more; and whether it came from add/sub, which return a
 * pointer whose Equal upstream's `==` cannot accept on its right-hand side.
 */
import { parseQuantity, quantityParseError } from '../../api/go/quantity.ts';
import { evalError } from '../errors.ts';
import { INT64_MAX, INT64_MIN, actualSize, CelObject, type CelValue } from '../values.ts';
import { ceilCost, global, member, STRING_TRAVERSAL, type Overload } from './overload.ts';

export class CelQuantity extends CelObject {
  readonly typeName = 'kubernetes.Quantity';
  constructor(
    readonly unscaled: bigint,
    readonly scale: number,
    /** Held as inf.Dec upstream. */
    readonly dec: boolean,
    /** Returned by add/sub (a *Quantity upstream). */
    readonly pointer = false,
  ) {
    super();
  }
  equals(other: CelValue): boolean | undefined {
    if (!(other instanceof CelQuantity) || other.pointer) return undefined;
    return compareQuantity(this, other) === 0;
  }
}

const fitsInt64 = (v: bigint) => v >= INT64_MIN && v <= INT64_MAX;

function align(a: CelQuantity, b: CelQuantity): [bigint, bigint, number] {
  const s = Math.min(a.scale, b.scale);
  return [a.unscaled * 10n ** BigInt(a.scale - s), b.unscaled * 10n ** BigInt(b.scale - s), s];
}

export function compareQuantity(a: CelQuantity, b: CelQuantity): number {
  const [x, y] = align(a, b);
  return x < y ? -1 : x > y ? 1 : 0;
}

const DECIMAL: Record<string, number> = { n: -9, u: -6, m: -3, '': 0, k: 3, M: 6, G: 9, T: 12, P: 15, E: 18 };
const BINARY: Record<string, number> = { Ki: 10, Mi: 20, Gi: 30, Ti: 40, Pi: 50, Ei: 60 };

/** resource.ParseQuantity; throws its error text. */
export function toQuantity(str: string): CelQuantity {
  const err = quantityParseError(str);
  if (err !== undefined) throw evalError(err);
  const m = /^([+-]?)0*(\d*)(?:\.(\d*))?(.*)$/.exec(str)!;
  const negative = m[1] === '-';
  const num = m[2] || '0';
  const denom = m[3] ?? '';
  const suffix = m[4]!;
  if (str === '0') return new CelQuantity(0n, 0, false);
  // The int64 fast path of ParseQuantity, where it applies.
  if (suffix in BINARY) {
    const exponent = BINARY[suffix]!;
    const precision = 15 - num.length - Math.trunc((exponent * 3) / 10) - 1;
    if (denom === '' && precision >= 0) {
      const value = BigInt(num) * 2n ** BigInt(exponent);
      if (fitsInt64(value)) return new CelQuantity(negative ? -value : value, 0, false);
    }
  } else {
    const exponent = suffix in DECIMAL ? DECIMAL[suffix]! : Number(suffix.slice(1));
    const precision = 18 - (num.length + denom.length);
    const scale = exponent - denom.length;
    if (precision >= 0 && scale >= -9) {
      const value = BigInt(num + denom);
      return new CelQuantity(negative ? -value : value, scale, false);
    }
  }
  // The inf.Dec path: the exact value (rounded up to nanos, binary capped), as apimachinery parses it.
  const q = parseQuantity(str)!;
  return new CelQuantity(q.unscaled, q.scale, true);
}

function isQuantity(str: string): boolean {
  return quantityParseError(str) === undefined;
}

/** int64Amount.AsInt64: only a non-negative scale converts, without overflow. */
function asInt64(q: CelQuantity): bigint | undefined {
  if (q.dec || q.scale < 0) return undefined;
  const v = q.unscaled * 10n ** BigInt(q.scale);
  return fitsInt64(v) ? v : undefined;
}

/** math.Pow10 as Go computes it (two table entries multiplied or divided), so floats round alike. */
function pow10(n: number): number {
  if (n >= 0) return n > 308 ? Infinity : Number(`1e${Math.floor(n / 32) * 32}`) * Number(`1e${n % 32}`);
  const k = -n;
  return k > 323 ? 0 : Number(`1e-${Math.floor(k / 32) * 32}`) / Number(`1e${k % 32}`);
}

function asApproximateFloat(q: CelQuantity): number {
  const base = Number(q.unscaled);
  return q.scale === 0 ? base : base * pow10(q.scale);
}

/**
 * Quantity.Add/Sub: exact, kept as an int64Amount while both operands are and the result fits (zero
 * operands keep the other's scale), else as an inf.Dec.
 */
function addQuantities(a: CelQuantity, b: CelQuantity, negateB: boolean): CelQuantity {
  const bv = negateB ? -b.unscaled : b.unscaled;
  if (!a.dec && !b.dec) {
    if (bv === 0n) return new CelQuantity(a.unscaled, a.scale, false, true);
    if (a.unscaled === 0n) return new CelQuantity(bv, b.scale, false, true);
    const [x, y, s] = align(a, new CelQuantity(bv, b.scale, false));
    const big = a.scale > b.scale ? x : y;
    if (fitsInt64(big) && fitsInt64(x + y)) return new CelQuantity(x + y, s, false, true);
  }
  const [x, y, s] = align(a, new CelQuantity(bv, b.scale, true));
  return new CelQuantity(x + y, s, true, true);
}

const Q = 'kubernetes.Quantity';
const q = (v: CelValue | undefined) => v as CelQuantity;
const fromInt = (v: CelValue | undefined) => new CelQuantity(v as bigint, 0, false);
const stringCost = { cost: (args: readonly CelValue[]) => ceilCost(actualSize(args[0]!), STRING_TRAVERSAL) };

export const quantityOverloads: readonly Overload[] = [
  global('string_to_quantity', 'quantity', ['string'], Q, ([s]) => toQuantity(s as string), stringCost),
  global('is_quantity_string', 'isQuantity', ['string'], 'bool', ([s]) => isQuantity(s as string), stringCost),
  global('quantity_sign', 'sign', [Q], 'int', ([a]) => BigInt(Math.sign(Number(q(a).unscaled)))),
  member('quantity_is_greater_than', 'isGreaterThan', [Q, Q], 'bool', ([a, b]) => compareQuantity(q(a), q(b)) === 1),
  member('quantity_is_less_than', 'isLessThan', [Q, Q], 'bool', ([a, b]) => compareQuantity(q(a), q(b)) === -1),
  member('quantity_compare_to', 'compareTo', [Q, Q], 'int', ([a, b]) => BigInt(compareQuantity(q(a), q(b)))),
  member('quantity_get_float', 'asApproximateFloat', [Q], 'double', ([a]) => asApproximateFloat(q(a))),
  member('quantity_get_int', 'asInteger', [Q], 'int', ([a]) => {
    const v = asInt64(q(a));
    if (v === undefined) throw evalError('cannot convert value to integer');
    return v;
  }),
  member('quantity_is_integer', 'isInteger', [Q], 'bool', ([a]) => asInt64(q(a)) !== undefined),
  member('quantity_add', 'add', [Q, Q], Q, ([a, b]) => addQuantities(q(a), q(b), false)),
  member('quantity_add_int', 'add', [Q, 'int'], Q, ([a, b]) => addQuantities(q(a), fromInt(b), false)),
  member('quantity_sub', 'sub', [Q, Q], Q, ([a, b]) => addQuantities(q(a), q(b), true)),
  member('quantity_sub_int', 'sub', [Q, 'int'], Q, ([a, b]) => addQuantities(q(a), fromInt(b), true)),
];
