import assert from 'node:assert/strict';
import { csiDrivers } from '../../src/kinds/csi-driver.ts';
import { runKindSuite } from './kind-suite.ts';

const driver = (spec: Record<string, unknown> = {}) => ({ apiVersion: 'storage.k8s.io/v1', kind: 'CSIDriver', spec });

// Expectations from upstream's ValidateCSIDriver / ValidateCSIDriverUpdate and the v1 defaults (1.34, with the gates of its fields on;
// csi-driver-gated-fields.test.ts covers them off).
runKindSuite({
  kind: csiDrivers,
  featureGates: { SELinuxMountReadWriteOncePod: true, MutableCSINodeAllocatableCount: true },
  valid: [
    { name: 'defaults only', object: driver() },
    { name: 'every field set', object: driver({ attachRequired: false, podInfoOnMount: true, storageCapacity: true, fsGroupPolicy: 'File', volumeLifecycleModes: ['Persistent', 'Ephemeral'], tokenRequests: [{ audience: 'a', expirationSeconds: 600 }, { audience: '' }], requiresRepublish: true, seLinuxMount: true, nodeAllocatableUpdatePeriodSeconds: 10 }) },
  ],
  invalid: [
    {
      name: 'an fsGroupPolicy Kubernetes does not define',
      object: driver({ fsGroupPolicy: 'Sometimes' }),
      errors: [{ field: 'spec.fsGroupPolicy', message: 'Unsupported value: "Sometimes": supported values: "File", "None", "ReadWriteOnceWithFSType"' }],
    },
    {
      name: 'an unknown lifecycle mode',
      object: driver({ volumeLifecycleModes: ['Forever'] }),
      errors: [{ field: 'spec.volumeLifecycleModes', message: 'Unsupported value: "Forever": supported values: "Persistent", "Ephemeral"' }],
    },
    {
      name: 'two token requests for one audience, and expirations out of range',
      object: driver({ tokenRequests: [{ audience: 'a', expirationSeconds: 599 }, { audience: 'a' }, { audience: 'b', expirationSeconds: 2 ** 32 + 1 }] }),
      errors: [
        { field: 'spec.tokenRequests[0].expirationSeconds', message: 'Invalid value: 599: may not specify a duration less than 10 minutes' },
        { field: 'spec.tokenRequests[1].audience', message: 'Duplicate value: "a"' },
        { field: 'spec.tokenRequests[2].expirationSeconds', message: 'Invalid value: 4294967297: may not specify a duration larger than 2^32 seconds' },
      ],
    },
    {
      name: 'an allocatable update period under 10 s',
      object: driver({ nodeAllocatableUpdatePeriodSeconds: 5 }),
      errors: [{ field: 'spec.nodeAllocatableUpdatePeriodSeconds', message: 'Invalid value: 5: must be greater than or equal to 10 seconds' }],
    },
  ],
  updates: [
    { name: 'attachRequired is immutable (upstream spells the path attachedRequired)', object: driver(), change: (o) => ({ ...o, spec: { ...(o.spec as object), attachRequired: false } }), errors: [{ field: 'spec.attachedRequired', message: 'Invalid value: false: field is immutable' }] },
    { name: 'volumeLifecycleModes are immutable', object: driver(), change: (o) => ({ ...o, spec: { ...(o.spec as object), volumeLifecycleModes: ['Ephemeral'] } }), errors: [{ field: 'spec.volumeLifecycleModes', message: 'Invalid value: ["Ephemeral"]: field is immutable' }] },
    { name: 'storageCapacity and fsGroupPolicy may change', object: driver(), change: (o) => ({ ...o, spec: { ...(o.spec as object), storageCapacity: true, fsGroupPolicy: 'None' } }), expect: (o) => assert.equal((o.spec as { fsGroupPolicy: string }).fsGroupPolicy, 'None') },
  ],
  defaults: [
    {
      name: 'upstream defaults',
      object: driver(),
      expect: (o) =>
        assert.deepEqual(o.spec, { attachRequired: true, podInfoOnMount: false, storageCapacity: false, fsGroupPolicy: 'ReadWriteOnceWithFSType', volumeLifecycleModes: ['Persistent'], requiresRepublish: false, seLinuxMount: false }),
    },
  ],
  columns: [
    { name: 'as kubectl get csidrivers prints them', object: driver({ tokenRequests: [{ audience: 'a' }, { audience: 'b' }] }), cells: [true, false, false, 'a,b', false, 'Persistent'] },
    { name: 'no token requests', object: driver(), cells: [true, false, false, '<unset>', false, 'Persistent'] },
  ],
});
