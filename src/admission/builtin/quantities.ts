/** Quantity arithmetic and resource lists (name → quantity text) as upstream's resource.Quantity and quota helpers compute them. */
import { compareQuantities, parseQuantity, quantityMilliValue, quantityString, quantityValue, type Quantity } from '../../api/go/quantity.ts';

export type ResourceList = Record<string, string>;

export const ZERO: Quantity = { unscaled: 0n, scale: 0, format: 'DecimalSI' };
/** resource.MaxMilliValue: the largest value whose thousandths fit an int64. */
export const MAX_MILLI_VALUE = (2n ** 63n - 1n) / 1000n;

/** A quantity's text parsed; anything that does not parse counts as zero (the kind's validation refused it already). */
export function quantity(text: string | undefined): Quantity {
  if (text === undefined) return ZERO;
  return parseQuantity(String(text).trim()) ?? ZERO;
}

/** Quantity.String(). */
export function show(q: Quantity): string {
  return quantityString(q);
}

/** A list's value as the API prints it. */
export function showText(text: string): string {
  return show(quantity(text));
}

function aligned(a: Quantity, b: Quantity): { x: bigint; y: bigint; scale: number } {
  const scale = Math.min(a.scale, b.scale);
  return { x: a.unscaled * 10n ** BigInt(a.scale - scale), y: b.unscaled * 10n ** BigInt(b.scale - scale), scale };
}

/** Quantity.Add: the sum, in the receiver's format unless the receiver is zero (then the other's). */
export function add(a: Quantity, b: Quantity): Quantity {
  const { x, y, scale } = aligned(a, b);
  const format = a.unscaled === 0n ? b.format : a.format;
  return normalize({ unscaled: x + y, scale, format });
}

/** Quantity.Sub: the difference, in the receiver's format unless the receiver is zero. */
export function sub(a: Quantity, b: Quantity): Quantity {
  const { x, y, scale } = aligned(a, b);
  const format = a.unscaled === 0n ? b.format : a.format;
  return normalize({ unscaled: x - y, scale, format });
}

/** Keeps the exact value with as few trailing zeros as the scale allows (no text: printed from the value). */
function normalize(q: Quantity): Quantity {
  let { unscaled, scale } = q;
  if (unscaled === 0n) return { unscaled: 0n, scale: 0, format: q.format };
  while (unscaled % 10n === 0n) {
    unscaled /= 10n;
    scale++;
  }
  return { unscaled, scale, format: q.format };
}

export function cmp(a: Quantity, b: Quantity): number {
  return compareQuantities(a, b);
}

export const value = quantityValue;
export const milliValue = quantityMilliValue;

/** Adds every quantity of `other` into `list` (quota.Add / addResourceList). */
export function addInto(list: ResourceList, other: ResourceList | undefined): ResourceList {
  for (const [k, v] of Object.entries(other ?? {})) list[k] = k in list ? show(add(quantity(list[k]), quantity(v))) : showText(v);
  return list;
}

/** quota.Add: a new list with the sum of both for every name in either. */
export function addLists(a: ResourceList, b: ResourceList): ResourceList {
  return addInto({ ...Object.fromEntries(Object.entries(a).map(([k, v]) => [k, showText(v)])) }, b);
}

/** quota.Subtract: a - b for every name of a; names only in b are subtracted from zero. */
export function subtractLists(a: ResourceList, b: ResourceList): ResourceList {
  const out: ResourceList = {};
  for (const [k, v] of Object.entries(a)) out[k] = k in b ? show(sub(quantity(v), quantity(b[k]))) : showText(v);
  for (const [k, v] of Object.entries(b)) if (!(k in a)) out[k] = show(sub(ZERO, quantity(v)));
  return out;
}

/** Sets each of `other`'s names in `list` to the larger of the two (maxResourceList). */
export function maxInto(list: ResourceList, other: ResourceList | undefined): ResourceList {
  for (const [k, v] of Object.entries(other ?? {})) if (!(k in list) || cmp(quantity(v), quantity(list[k])) > 0) list[k] = showText(v);
  return list;
}

/** quota.Max: the larger of each name in either list. */
export function maxLists(a: ResourceList, b: ResourceList): ResourceList {
  return maxInto({ ...a }, b);
}

/** Whether two lists hold the same names with equal quantities (quota.Equals). */
export function equalLists(a: ResourceList, b: ResourceList): boolean {
  const ka = Object.keys(a);
  if (ka.length !== Object.keys(b).length) return false;
  return ka.every((k) => k in b && cmp(quantity(a[k]), quantity(b[k])) === 0);
}

/** Go's %f of a float64. */
export function goFloat(n: number): string {
  if (Number.isNaN(n)) return 'NaN';
  if (!Number.isFinite(n)) return n > 0 ? '+Inf' : '-Inf';
  return Math.abs(n) < 1e21 ? n.toFixed(6) : `${BigInt(Math.trunc(n))}.000000`;
}

/** utilerrors.NewAggregate(...).Error(): distinct messages, bracketed when more than one. */
export function aggregateMessage(messages: readonly string[]): string {
  const distinct = [...new Set(messages)];
  return distinct.length === 1 ? distinct[0]! : `[${distinct.join(', ')}]`;
}
