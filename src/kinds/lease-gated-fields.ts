/**
 * The lease strategy's gated fields (Kubernetes 1.34): spec.strategy and spec.preferredHolder belong
 * to CoordinatedLeaderElection (beta, off by default). While it is off a create drops both, and an
 * update drops each one the stored lease did not already set.
 */
import type { RequestContext } from '../api/request-context.ts';

type Obj = Record<string, any>;

const GATE = 'CoordinatedLeaderElection';
const FIELDS = ['strategy', 'preferredHolder'] as const;

export function dropDisabledLeaseSpecFields(ctx: RequestContext, spec: Obj, oldSpec?: Obj): void {
  if (ctx.featureGates.enabled(GATE)) return;
  for (const key of FIELDS) if (oldSpec?.[key] === undefined || oldSpec[key] === null) delete spec[key];
}
