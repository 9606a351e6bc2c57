/** A pod's QoS class (upstream's qos.GetPodQOS), from its containers' cpu and memory requests and limits. */
import { compareQuantities, parseQuantity } from '../api/go/quantity.ts';

type Obj = Record<string, any>;
const COMPUTE = ['cpu', 'memory'];

export function podQosClass(spec: Obj): string {
  const containers: Obj[] = [...(spec.containers ?? []), ...(spec.initContainers ?? [])];
  let anySet = false;
  let guaranteed = true;
  for (const c of containers) {
    const req = (c.resources?.requests ?? {}) as Record<string, string>;
    const lim = (c.resources?.limits ?? {}) as Record<string, string>;
    for (const r of COMPUTE) {
      const q = req[r] !== undefined ? parseQuantity(req[r]!) : undefined;
      const l = lim[r] !== undefined ? parseQuantity(lim[r]!) : undefined;
      if ((q && q.unscaled !== 0n) || (l && l.unscaled !== 0n)) anySet = true;
      if (!l || !q || compareQuantities(q, l) !== 0) guaranteed = false;
    }
  }
  if (!anySet) return 'BestEffort';
  return guaranteed ? 'Guaranteed' : 'Burstable';
}
