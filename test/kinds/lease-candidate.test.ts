import assert from 'node:assert/strict';
import { leaseCandidates } from '../../src/kinds/lease-candidate.ts';
import { builtinKinds } from '../../src/kinds/index.ts';
import { enabledKinds } from '../../src/registry/runtime-config.ts';
import { test } from 'node:test';
import { runKindSuite } from './kind-suite.ts';

const candidate = (spec: Record<string, unknown>, name?: string) => ({ apiVersion: 'coordination.k8s.io/v1beta1', kind: 'LeaseCandidate', ...(name ? { metadata: { name } } : {}), spec });
const good = { leaseName: 'kube-scheduler', binaryVersion: '1.34.0', emulationVersion: '1.33.0', strategy: 'OldestEmulationVersion' };

// Expectations from upstream's ValidateLeaseCandidate / ValidateLeaseCandidateUpdate (1.34).
runKindSuite({
  kind: leaseCandidates,
  valid: [
    { name: 'a complete candidate', object: candidate(good) },
    { name: 'a name with dots and underscores', object: candidate(good, 'kube-scheduler.node_1') },
    { name: 'a domain-qualified strategy without emulation version', object: candidate({ leaseName: 'l', binaryVersion: '1.34.0-rc.1', strategy: 'example.com/mine' }) },
  ],
  invalid: [
    {
      name: 'nothing set',
      object: candidate({}),
      errors: [
        { field: 'spec.leaseName', message: 'Required value' },
        { field: 'spec.binaryVersion', message: 'Required value' },
        { field: 'spec.strategy', message: 'Required value' },
      ],
    },
    {
      name: 'versions that are not semantic, with a v',
      object: candidate({ ...good, binaryVersion: 'v1.34.0', emulationVersion: '1.33' }),
      errors: [
        { field: 'spec.emulationVersion', message: 'Invalid value: "1.33": must be a valid semantic version' },
        { field: 'spec.binaryVersion', message: 'Invalid value: "v1.34.0": must be a valid semantic version' },
        { field: 'spec.emulationVersion', message: "Required value: must be specified when `strategy` is 'OldestEmulationVersion'" },
      ],
    },
    { name: 'a binary older than its emulation', object: candidate({ ...good, binaryVersion: '1.32.0' }), errors: [{ field: 'spec.binaryVersion', message: 'Invalid value: "1.32.0": must be greater than or equal to `emulationVersion`' }] },
    { name: 'an unknown strategy', object: candidate({ ...good, strategy: 'Newest' }), errors: [{ field: 'spec.strategy.strategy', message: 'Unsupported value: "Newest": supported values: "OldestEmulationVersion"' }] },
  ],
  updates: [
    { name: 'the lease name is immutable', object: candidate(good), change: (o) => ({ ...o, spec: { ...(o.spec as object), leaseName: 'other' } }), errors: [{ field: 'spec.leaseName', message: 'Invalid value: "other": field is immutable' }] },
    { name: 'a renewal', object: candidate(good), change: (o) => ({ ...o, spec: { ...(o.spec as object), renewTime: '2025-01-01T00:00:00.000000Z' } }), expect: (o) => assert.ok((o.spec as { renewTime: string }).renewTime) },
  ],
  columns: [{ name: 'LeaseName and versions', object: candidate(good), cells: ['kube-scheduler', '1.34.0', '1.33.0', '<unknown>'] }],
});

test('LeaseCandidate v1beta1 is served only when --runtime-config turns it on', () => {
  assert.equal(enabledKinds(builtinKinds, []).includes(leaseCandidates), false);
  assert.equal(enabledKinds(builtinKinds, ['coordination.k8s.io/v1beta1=true']).includes(leaseCandidates), true);
});
