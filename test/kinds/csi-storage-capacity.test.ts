import { csiStorageCapacities } from '../../src/kinds/csi-storage-capacity.ts';
import { runKindSuite } from './kind-suite.ts';

const capacity = (extra: Record<string, unknown> = {}) => ({ apiVersion: 'storage.k8s.io/v1', kind: 'CSIStorageCapacity', storageClassName: 'fast', ...extra });
const SUBDOMAIN =
  "a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character (e.g. 'example.com', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')";

// Expectations from upstream's ValidateCSIStorageCapacity / ValidateCSIStorageCapacityUpdate (1.34).
runKindSuite({
  kind: csiStorageCapacities,
  valid: [
    { name: 'a class and capacities', object: capacity({ capacity: '10Gi', maximumVolumeSize: '1Gi', nodeTopology: { matchLabels: { 'topology.example.com/zone': 'a' } } }) },
    { name: 'a topology with expressions', object: capacity({ nodeTopology: { matchExpressions: [{ key: 'zone', operator: 'In', values: ['a', 'b'] }, { key: 'rack', operator: 'Exists' }] } }) },
  ],
  invalid: [
    { name: 'no storage class', object: capacity({ storageClassName: '' }), errors: [{ field: 'storageClassName', message: `Invalid value: "": ${SUBDOMAIN}` }] },
    { name: 'a negative capacity', object: capacity({ capacity: '-1Gi' }), errors: [{ field: 'capacity', message: 'Invalid value: "-1Gi": must be greater than or equal to 0' }] },
    {
      name: 'a topology selector with bad expressions',
      object: capacity({ nodeTopology: { matchExpressions: [{ key: 'zone', operator: 'In' }, { key: 'rack', operator: 'Exists', values: ['x'] }, { key: 'a', operator: 'Near' }] } }),
      errors: [
        { field: 'nodeTopology.matchExpressions[0].values', message: "Required value: must be specified when `operator` is 'In' or 'NotIn'" },
        { field: 'nodeTopology.matchExpressions[1].values', message: "Forbidden: may not be specified when `operator` is 'Exists' or 'DoesNotExist'" },
        { field: 'nodeTopology.matchExpressions[2].operator', message: 'Invalid value: "Near": not a valid selector operator' },
      ],
    },
  ],
  updates: [
    { name: 'the storage class is immutable', object: capacity(), change: (o) => ({ ...o, storageClassName: 'slow' }), errors: [{ field: 'storageClassName', message: 'Invalid value: "slow": field is immutable' }] },
    {
      name: 'the node topology is immutable',
      object: capacity({ nodeTopology: { matchLabels: { zone: 'a' } } }),
      change: (o) => ({ ...o, nodeTopology: { matchLabels: { zone: 'b' } } }),
      errors: [{ field: 'nodeTopology', message: 'Invalid value: {"matchLabels":{"zone":"b"}}: field is immutable' }],
    },
    { name: 'the capacity may change', object: capacity({ capacity: '1Gi' }), change: (o) => ({ ...o, capacity: '2Gi' }) },
  ],
  columns: [
    { name: 'StorageClassName and Capacity', object: capacity({ capacity: '10Gi' }), cells: ['fast', '10Gi'] },
    { name: 'an unset capacity', object: capacity(), cells: ['fast', '<unset>'] },
  ],
});
