/**
 * Kubernetes' traversalCost: what one pass over a value costs (its cost estimator charges it for
 * isSorted, sum, min, max, indexOf and lastIndexOf): a tenth per byte of strings and bytes, rounded
 * down, 1 per other scalar, and the sum over the elements of lists and the entries of maps.
 */
import { isMap, type CelValue } from '../values.ts';
import { STRING_TRAVERSAL } from './overload.ts';

export function traversalCost(v: CelValue): number {
  if (typeof v === 'string') return Math.floor(Buffer.byteLength(v) * STRING_TRAVERSAL);
  if (v instanceof Uint8Array) return Math.floor(v.length * STRING_TRAVERSAL);
  if (Array.isArray(v)) {
    let n = 0;
    for (const el of v) n += traversalCost(el);
    return n;
  }
  if (isMap(v)) {
    let n = 0;
    for (const [k, el] of v) n += traversalCost(k) + traversalCost(el);
    return n;
  }
  return 1;
}
