import type { FieldError } from '../api/errors.ts';
import type { KubeObject } from '../api/types.ts';
import { defineKind } from '../registry/kind.ts';
import * as field from '../registry/validation/field.ts';
import { qualifiedNameErrors } from '../api/validation/names.ts';
import { dropDisabledLeaseSpecFields } from './lease-gated-fields.ts';

type LeaseSpec = { holderIdentity?: string; leaseDurationSeconds?: number; leaseTransitions?: number; strategy?: string; preferredHolder?: string };

const specOf = (obj: KubeObject) => (obj.spec ?? {}) as LeaseSpec;

/** Strategies Kubernetes defines; others must be domain-qualified names. */
const LEASE_STRATEGIES = ['OldestEmulationVersion'];

/** The strategy rule shared with LeaseCandidate (its path repeats `strategy`, as upstream's does). */
export function leaseStrategyErrors(strategy: string): FieldError[] {
  const at = field.path('spec', 'strategy', 'strategy');
  if (!strategy.includes('/')) return LEASE_STRATEGIES.includes(strategy) ? [] : [field.notSupported(at, strategy, LEASE_STRATEGIES)];
  return qualifiedNameErrors(strategy).map((detail) => field.invalid(at, strategy, detail));
}

function validateLease(obj: KubeObject): FieldError[] {
  const spec = (obj.spec ?? {}) as LeaseSpec;
  const errs: FieldError[] = [];
  if (spec.leaseDurationSeconds !== undefined && spec.leaseDurationSeconds !== null && !(spec.leaseDurationSeconds > 0)) {
    errs.push(field.invalid(field.path('spec', 'leaseDurationSeconds'), spec.leaseDurationSeconds, 'must be greater than 0'));
  }
  if (spec.leaseTransitions !== undefined && spec.leaseTransitions !== null && spec.leaseTransitions < 0) {
    errs.push(field.invalid(field.path('spec', 'leaseTransitions'), spec.leaseTransitions, 'must be greater than or equal to 0'));
  }
  if (spec.strategy) errs.push(...leaseStrategyErrors(spec.strategy));
  if (spec.preferredHolder && !spec.strategy) {
    errs.push(field.forbidden(field.path('spec', 'preferredHolder'), 'may only be specified if `strategy` is defined'));
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
  // Leases are validated with apimachinery's generic metadata rules.
  coreObjectMeta: false,
  tableColumns: [
    { name: 'Holder', type: 'string', description: 'The holder of the lease', cell: (o) => ((o.spec ?? {}) as LeaseSpec).holderIdentity ?? '' },
  ],
  strategy: {
    prepareForCreate: (ctx, obj) => dropDisabledLeaseSpecFields(ctx, specOf(obj)),
    prepareForUpdate: (ctx, obj, old) => dropDisabledLeaseSpecFields(ctx, specOf(obj), specOf(old)),
    validate: (_ctx, obj) => validateLease(obj),
    validateUpdate: (_ctx, obj) => validateLease(obj),
  },
});
