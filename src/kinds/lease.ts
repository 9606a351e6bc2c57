import type { FieldError } from '../api/errors.ts';
import type { KubeObject } from '../api/types.ts';
import { defineKind } from '../registry/kind.ts';
import * as field from '../registry/validation/field.ts';

type LeaseSpec = { holderIdentity?: string; leaseDurationSeconds?: number; leaseTransitions?: number; strategy?: string; preferredHolder?: string };

function validateLease(obj: KubeObject): FieldError[] {
  const spec = (obj.spec ?? {}) as LeaseSpec;
  const errs: FieldError[] = [];
  if (spec.leaseDurationSeconds !== undefined && spec.leaseDurationSeconds !== null && !(spec.leaseDurationSeconds > 0)) {
    errs.push(field.invalid(field.path('spec', 'leaseDurationSeconds'), spec.leaseDurationSeconds, 'must be greater than 0'));
  }
  if (spec.leaseTransitions !== undefined && spec.leaseTransitions !== null && spec.leaseTransitions < 0) {
    errs.push(field.invalid(field.path('spec', 'leaseTransitions'), spec.leaseTransitions, 'must be greater than or equal to 0'));
  }
  if (spec.preferredHolder && !spec.strategy) {
    errs.push(field.forbidden(field.path('spec', 'preferredHolder'), 'preferredHolder is only allowed if strategy is set'));
  }
  return errs;
}

export const leases = defineKind({
  group: 'coordination.k8s.io',
  version: 'v1',
  kind: 'Lease',
  plural: 'leases',
  namespaced: true,
  schemaMessage: 'k8s.io.api.coordination.v1.Lease',
  // As upstream's lease strategy: PUT may create, and every update must name the version it read.
  allowCreateOnUpdate: true,
  allowUnconditionalUpdate: false,
  tableColumns: [
    { name: 'Holder', type: 'string', description: 'The holder of the lease', cell: (o) => ((o.spec ?? {}) as LeaseSpec).holderIdentity ?? '' },
  ],
  strategy: { validate: (_ctx, obj) => validateLease(obj), validateUpdate: (_ctx, obj) => validateLease(obj) },
});
