/**
 * The CSIDriver strategy's gated fields (Kubernetes 1.34): seLinuxMount (SELinuxMountReadWriteOncePod)
 * and nodeAllocatableUpdatePeriodSeconds (MutableCSINodeAllocatableCount). While a gate is off, a
 * create drops its field and an update drops it unless the stored driver already set it.
 */
import type { RequestContext } from '../api/request-context.ts';

type Obj = Record<string, any>;

export const SELINUX_MOUNT_GATE = 'SELinuxMountReadWriteOncePod';
const ALLOCATABLE_GATE = 'MutableCSINodeAllocatableCount';
const GATED_FIELDS: readonly (readonly [field: string, gate: string])[] = [
  ['seLinuxMount', SELINUX_MOUNT_GATE],
  ['nodeAllocatableUpdatePeriodSeconds', ALLOCATABLE_GATE],
];

const isSet = (v: unknown) => v !== undefined && v !== null;

/** Drops from `spec` (in place) each gated field whose gate is off and which `oldSpec` (an update's stored spec) lacks. */
export function dropDisabledDriverSpecFields(ctx: RequestContext, spec: Obj, oldSpec?: Obj): void {
  for (const [field, gate] of GATED_FIELDS) {
    if (!ctx.featureGates.enabled(gate) && !isSet(oldSpec?.[field])) delete spec[field];
  }
}
