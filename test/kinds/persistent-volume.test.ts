import assert from 'node:assert/strict';
import { persistentVolumes } from '../../src/kinds/persistent-volume.ts';
import { runKindSuite } from './kind-suite.ts';

const pv = (spec: Record<string, unknown>) => ({ apiVersion: 'v1', kind: 'PersistentVolume', spec: { capacity: { storage: '10Gi' }, accessModes: ['ReadWriteOnce'], ...spec } });
const affinity = { required: { nodeSelectorTerms: [{ matchExpressions: [{ key: 'kubernetes.io/hostname', operator: 'In', values: ['node-1'] }] }] } };

// Expectations from upstream's ValidatePersistentVolume(Update) and the v1 defaults (1.34).
runKindSuite({
  kind: persistentVolumes,
  valid: [
    { name: 'hostPath', object: pv({ hostPath: { path: '/data', type: 'DirectoryOrCreate' } }) },
    { name: 'nfs, many readers', object: pv({ accessModes: ['ReadOnlyMany', 'ReadWriteMany'], nfs: { server: 'nfs.example.com', path: '/exports' } }) },
    { name: 'csi with a class', object: pv({ csi: { driver: 'csi.example.com', volumeHandle: 'vol-1' }, storageClassName: 'fast', volumeAttributesClassName: 'gold' }) },
    { name: 'local with node affinity', object: pv({ local: { path: '/mnt/disks/ssd1' }, nodeAffinity: affinity }) },
  ],
  invalid: [
    { name: 'no volume type, no capacity, no access modes', object: { apiVersion: 'v1', kind: 'PersistentVolume', spec: {} }, errors: [
      { field: 'spec.accessModes', message: 'Required value' },
      { field: 'spec.capacity', message: 'Required value' },
      { field: 'spec.capacity', message: 'Unsupported value: {}: supported values: "storage"' },
      { field: 'spec', message: 'Required value: must specify a volume type' },
    ] },
    {
      name: 'two volume types; access modes; capacity',
      object: pv({ capacity: { storage: '0' }, accessModes: ['ReadWriteOncePod', 'ReadWriteOnce', 'WriteSometimes'], hostPath: { path: '/a' }, nfs: { server: 's', path: '/p' } }),
      errors: [
        { field: 'spec.accessModes', message: 'Unsupported value: "WriteSometimes": supported values: "ReadOnlyMany", "ReadWriteMany", "ReadWriteOnce", "ReadWriteOncePod"' },
        { field: 'spec.accessModes', message: 'Forbidden: may not use ReadWriteOncePod with other access modes' },
        { field: 'spec.capacity[storage]', message: 'Invalid value: "0": must be greater than zero' },
        { field: 'spec.nfs', message: 'Forbidden: may not specify more than 1 volume type' },
      ],
    },
    {
      name: 'source rules: relative nfs path, csi without handle, bad reclaim policy and mode',
      object: pv({ nfs: { server: 's', path: 'exports' }, persistentVolumeReclaimPolicy: 'Keep', volumeMode: 'Raw' }),
      errors: [
        { field: 'spec.persistentVolumeReclaimPolicy', message: 'Unsupported value: "Keep": supported values: "Delete", "Recycle", "Retain"' },
        { field: 'spec.nfs.path', message: 'Invalid value: "exports": must be an absolute path' },
        { field: 'spec.volumeMode', message: 'Unsupported value: "Raw": supported values: "Block", "Filesystem"' },
      ],
    },
    { name: 'csi needs a driver and a handle', object: pv({ csi: { driver: '' } }), errors: [
      { field: 'spec.csi.driver', message: 'Required value' },
      { field: 'spec.csi.driver', message: `Invalid value: "": a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character (e.g. 'example.com', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')` },
      { field: 'spec.csi.volumeHandle', message: 'Required value' },
    ] },
    { name: 'local volumes need node affinity', object: pv({ local: { path: '/mnt' } }), errors: [{ field: 'spec.nodeAffinity', message: 'Required value: Local volume requires node affinity' }] },
    { name: 'node affinity needs terms', object: pv({ hostPath: { path: '/a' }, nodeAffinity: { required: { nodeSelectorTerms: [] } } }), errors: [{ field: 'spec.nodeAffinity.required.nodeSelectorTerms', message: 'Required value: must have at least one node selector term' }] },
  ],
  updates: [
    { name: 'the source is immutable', object: pv({ hostPath: { path: '/a' } }), change: (o) => ({ ...o, spec: { ...(o.spec as object), hostPath: { path: '/b' } } }), errors: [{ field: 'spec.persistentvolumesource', message: 'Forbidden: spec.persistentvolumesource is immutable after creation\n-\thostPath: {"path":"/a"}\n+\thostPath: {"path":"/b"}' }] },
    { name: 'the volume mode is immutable', object: pv({ hostPath: { path: '/a' } }), change: (o) => ({ ...o, spec: { ...(o.spec as object), volumeMode: 'Block' } }), errors: [{ field: 'volumeMode', message: 'Invalid value: "Block": field is immutable' }] },
    { name: 'capacity, class and reclaim policy may change', object: pv({ hostPath: { path: '/a' } }), change: (o) => ({ ...o, spec: { ...(o.spec as object), capacity: { storage: '20Gi' }, persistentVolumeReclaimPolicy: 'Delete' } }), expect: (o) => assert.equal((o.spec as { persistentVolumeReclaimPolicy: string }).persistentVolumeReclaimPolicy, 'Delete') },
  ],
  defaults: [
    {
      name: 'Retain, Filesystem, and a Pending status',
      object: pv({ hostPath: { path: '/a' } }),
      expect: (o) => {
        const spec = o.spec as { persistentVolumeReclaimPolicy: string; volumeMode: string };
        assert.equal(spec.persistentVolumeReclaimPolicy, 'Retain');
        assert.equal(spec.volumeMode, 'Filesystem');
        assert.equal((o.status as { phase: string }).phase, 'Pending');
      },
    },
  ],
  columns: [{ name: 'as kubectl get pv prints it', object: pv({ hostPath: { path: '/a' }, accessModes: ['ReadWriteMany', 'ReadWriteOnce'], storageClassName: 'fast', capacity: { storage: '10240Mi' } }), cells: ['10Gi', 'RWO,RWX', 'Retain', 'Pending', '', 'fast', '<unset>', '', 'Filesystem'] }],
});
