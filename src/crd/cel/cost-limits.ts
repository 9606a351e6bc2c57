/**
 * The estimated-cost limits a CRD write must respect (apiextensions validation.go): no rule (times
 * how often it can run) or message expression may be estimated above StaticEstimatedCostLimit, and
 * the rules of one schema together not above StaticEstimatedCRDCostLimit, in which case the four
 * dearest rules (of at least 1% of that limit) are named too.
 */
import { MAX_U64 } from '../../cel/index.ts';

/** The largest estimated cost of one expression. */
export const STATIC_ESTIMATED_COST_LIMIT = 10_000_000n;
/** The largest estimated cost of all the rules of a schema. */
export const STATIC_ESTIMATED_CRD_COST_LIMIT = 100_000_000n;

/** baseCost × cardinality, or the largest uint64 when that overflows (0 for an empty rule). */
export function multiplyWithOverflowGuard(baseCost: bigint, cardinality: bigint): bigint {
  if (baseCost === 0n) return 0n;
  const p = baseCost * cardinality;
  return p > MAX_U64 ? MAX_U64 : p;
}

/** Go's `%.<digits>f` of a positive double: its exact decimal value rounded half to even. */
function formatFixed(x: number, digits: number): string {
  const exact = x.toFixed(100);
  const dot = exact.indexOf('.');
  const whole = exact.slice(0, dot);
  const frac = exact.slice(dot + 1);
  let kept = BigInt(whole + frac.slice(0, digits));
  const rest = frac.slice(digits);
  const first = rest.charCodeAt(0) - 48;
  const tail = /[1-9]/.test(rest.slice(1));
  if (first > 5 || (first === 5 && (tail || kept % 2n === 1n))) kept += 1n;
  const text = kept.toString().padStart(digits + 1, '0');
  return digits === 0 ? text : `${text.slice(0, -digits)}.${text.slice(-digits)}`;
}

/** getCostErrorMessage: how far over the limit a cost is, and what to do about it. */
export function costErrorMessage(costName: string, cost: bigint, limit: bigint): string {
  const factor = Number(cost) / Number(limit);
  let text: string;
  // Two orders of magnitude over: likely quadratic, and the number says nothing more.
  if (factor > 100) text = 'more than 100x';
  else if (factor < 1.5) text = `${formatFixed(factor, 6)}x`;
  else text = `${formatFixed(factor, 1)}x`;
  return `${costName} exceeds budget by factor of ${text} (try simplifying the rule, or adding maxItems, maxProperties, and maxLength where arrays, maps, and strings are declared)`;
}

/** One expression's share of a schema's total. */
export interface RuleCost {
  readonly path: string;
  readonly cost: bigint;
}

/** TotalCost: the sum of a schema's rule costs and its (up to) four dearest rules. */
export class TotalCost {
  total = 0n;
  readonly mostExpensive: RuleCost[] = [];

  observe(path: string, cost: bigint): void {
    this.total = this.total + cost > MAX_U64 ? MAX_U64 : this.total + cost;
    // Rules under 1% of the limit are not worth naming.
    if (cost < STATIC_ESTIMATED_CRD_COST_LIMIT / 100n) return;
    this.mostExpensive.push({ path, cost });
    // A stable sort keeps equally dear rules in the order they were met.
    this.mostExpensive.sort((a, b) => (a.cost > b.cost ? -1 : a.cost < b.cost ? 1 : 0));
    if (this.mostExpensive.length > 4) this.mostExpensive.length = 4;
  }
}
