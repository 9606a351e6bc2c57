import assert from 'node:assert/strict';
import { persistentVolumeClaims } from '../../src/kinds/persistent-volume-claim.ts';
import { runKindSuite } from './kind-suite.ts';

const pvc = (spec: Record<string, unknown>) => ({ apiVersion: 'v1', kind: 'PersistentVolumeClaim', spec: { accessModes: ['ReadWriteOnce'], resources: { requests: { storage: '1Gi' } }, ...spec } });

// Expectations from upstream's ValidatePersistentVolumeClaim(Update) and the v1 defaults (1.34).
runKindSuite({
  kind: persistentVolumeClaims,
  valid: [
    { name: 'a plain claim', object: pvc({ storageClassName: 'fast' }) },
    { name: 'from a snapshot', object: pvc({ dataSource: { apiGroup: 'snapshot.storage.k8s.io', kind: 'VolumeSnapshot', name: 'snap' }, dataSourceRef: { apiGroup: 'snapshot.storage.k8s.io', kind: 'VolumeSnapshot', name: 'snap' } }) },
    { name: 'block, selecting volumes', object: pvc({ volumeMode: 'Block', selector: { matchLabels: { tier: 'gold' } } }) },
  ],
  invalid: [
    {
      name: 'no access modes, no storage request',
      object: { apiVersion: 'v1', kind: 'PersistentVolumeClaim', spec: { resources: {} } },
      errors: [
        { field: 'spec.accessModes', message: 'Required value: at least 1 access mode is required' },
        { field: 'spec.resources[storage]', message: 'Required value' },
      ],
    },
    { name: 'a zero request', object: pvc({ resources: { requests: { storage: '0' } } }), errors: [{ field: 'spec.resources[storage]', message: 'Invalid value: "0": must be greater than zero' }] },
    {
      name: 'data sources: a core kind other than a claim, a mismatching ref',
      object: pvc({ dataSource: { kind: 'Pod', name: 'p' }, dataSourceRef: { kind: 'PersistentVolumeClaim', name: 'other' } }),
      errors: [
        { field: 'spec.dataSource', message: 'Unsupported value: "Pod": supported values: "PersistentVolumeClaim"' },
        { field: 'spec', message: 'Invalid value: "spec.dataSource": must match dataSourceRef' },
      ],
    },
    { name: 'an unknown volume mode', object: pvc({ volumeMode: 'Raw' }), errors: [{ field: 'spec.volumeMode', message: 'Unsupported value: "Raw": supported values: "Block", "Filesystem"' }] },
  ],
  updates: [
    {
      name: 'an unbound claim cannot change its request',
      object: pvc({}),
      change: (o) => ({ ...o, spec: { ...(o.spec as object), resources: { requests: { storage: '2Gi' } } } }),
      errors: [{ field: 'spec', message: 'Forbidden: spec is immutable after creation except resources.requests and volumeAttributesClassName for bound claims\n-\tresources: {"requests":{"storage":"1Gi"}}\n+\tresources: {"requests":{"storage":"2Gi"}}' }],
    },
    { name: 'the volume name may be set once', object: pvc({}), change: (o) => ({ ...o, spec: { ...(o.spec as object), volumeName: 'pv-1' } }), expect: (o) => assert.equal((o.spec as { volumeName: string }).volumeName, 'pv-1') },
    { name: 'the volume mode is immutable', object: pvc({}), change: (o) => ({ ...o, spec: { ...(o.spec as object), volumeMode: 'Block' } }), errors: [{ field: 'spec', message: 'Forbidden: spec is immutable after creation except resources.requests and volumeAttributesClassName for bound claims\n-\tvolumeMode: "Filesystem"\n+\tvolumeMode: "Block"' }, { field: 'volumeMode', message: 'Invalid value: "Block": field is immutable' }] },
  ],
  statusUpdates: [{ name: 'the binder records the phase and capacity', object: pvc({}), change: (o) => ({ ...o, status: { phase: 'Bound', capacity: { storage: '1Gi' }, accessModes: ['ReadWriteOnce'] } }), expect: (o) => assert.equal((o.status as { phase: string }).phase, 'Bound') }],
  defaults: [{ name: 'Filesystem, and an empty status', object: pvc({}), expect: (o) => { assert.equal((o.spec as { volumeMode: string }).volumeMode, 'Filesystem'); assert.deepEqual(o.status, {}); } }],
  columns: [
    { name: 'unbound', object: pvc({ storageClassName: 'fast' }), cells: ['', '', '', '', 'fast', '<unset>', 'Filesystem'] },
    { name: 'bound (volume named)', object: pvc({ volumeName: 'pv-1' }), cells: ['', 'pv-1', '0', '', '', '<unset>', 'Filesystem'] },
  ],
});
