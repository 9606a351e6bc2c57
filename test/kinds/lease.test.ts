import assert from 'node:assert/strict';
import { leases } from '../../src/kinds/lease.ts';
import { runKindSuite } from './kind-suite.ts';

const spec = (s: Record<string, unknown>) => ({ spec: s });

// Expectations from upstream's ValidateLease / ValidateLeaseSpec and the lease strategy (1.34, CoordinatedLeaderElection on;
// lease-gated-fields.test.ts covers it off).
runKindSuite({
  kind: leases,
  featureGates: { CoordinatedLeaderElection: true },
  valid: [
    { name: 'a held lease', object: spec({ holderIdentity: 'a', leaseDurationSeconds: 15, acquireTime: '2025-01-01T00:00:00.000000Z', renewTime: '2025-01-01T00:00:10.000000Z', leaseTransitions: 0 }) },
    { name: 'a strategy and a preferred holder', object: spec({ strategy: 'OldestEmulationVersion', preferredHolder: 'b' }) },
    { name: 'a domain-qualified strategy', object: spec({ strategy: 'example.com/mine' }) },
    // Leases use apimachinery's generic metadata rules: a finalizer without a domain is not refused.
    { name: 'a finalizer without a domain', object: { metadata: { finalizers: ['cleanup'] } } },
  ],
  invalid: [
    { name: 'a lease duration of 0', object: spec({ leaseDurationSeconds: 0 }), errors: [{ field: 'spec.leaseDurationSeconds', message: 'Invalid value: 0: must be greater than 0' }] },
    { name: 'negative transitions', object: spec({ leaseTransitions: -1 }), errors: [{ field: 'spec.leaseTransitions', message: 'Invalid value: -1: must be greater than or equal to 0' }] },
    {
      name: 'a preferred holder without a strategy',
      object: spec({ preferredHolder: 'b' }),
      errors: [{ field: 'spec.preferredHolder', message: 'Forbidden: may only be specified if `strategy` is defined' }],
    },
    {
      name: 'a strategy Kubernetes does not define',
      object: spec({ strategy: 'Newest' }),
      errors: [{ field: 'spec.strategy.strategy', message: 'Unsupported value: "Newest": supported values: "OldestEmulationVersion"' }],
    },
  ],
  updates: [
    { name: 'a renewal', object: spec({ holderIdentity: 'a' }), change: (o) => ({ ...o, spec: { holderIdentity: 'a', renewTime: '2025-01-01T00:01:00.000000Z' } }), expect: (o) => assert.equal((o.spec as { renewTime: string }).renewTime, '2025-01-01T00:01:00.000000Z') },
    { name: 'the spec rules hold on update', object: spec({}), change: (o) => ({ ...o, spec: { leaseDurationSeconds: -5 } }), errors: [{ field: 'spec.leaseDurationSeconds', message: 'Invalid value: -5: must be greater than 0' }] },
  ],
  columns: [{ name: 'Holder', object: spec({ holderIdentity: 'node-1' }), cells: ['node-1'] }],
});
