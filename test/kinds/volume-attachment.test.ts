import assert from 'node:assert/strict';
import { volumeAttachments } from '../../src/kinds/volume-attachment.ts';
import { runKindSuite } from './kind-suite.ts';

const va = (spec: Record<string, unknown>) => ({ apiVersion: 'storage.k8s.io/v1', kind: 'VolumeAttachment', spec: { attacher: 'csi.example.com', nodeName: 'node-1', ...spec } });

// Expectations from upstream's ValidateVolumeAttachment(V1, Update) (1.34).
runKindSuite({
  kind: volumeAttachments,
  valid: [
    { name: 'a persistent volume', object: va({ source: { persistentVolumeName: 'pv-1' } }) },
    { name: 'an inline CSI spec', object: va({ source: { inlineVolumeSpec: { accessModes: ['ReadWriteOnce'], csi: { driver: 'csi.example.com', volumeHandle: 'h' } } } }) },
  ],
  invalid: [
    {
      name: 'no attacher, no source, a bad node name',
      object: { apiVersion: 'storage.k8s.io/v1', kind: 'VolumeAttachment', spec: { nodeName: 'Node_1' } },
      errors: [
        { field: 'spec.attacher', message: 'Required value' },
        { field: 'spec.source', message: 'Required value: must specify exactly one of inlineVolumeSpec and persistentVolumeName' },
        { field: 'spec.nodeName', message: `Invalid value: "Node_1": a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character (e.g. 'example.com', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')` },
        { field: 'spec.attacher', message: 'Required value' },
        { field: 'spec.attacher', message: `Invalid value: "": a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character (e.g. 'example.com', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')` },
      ],
    },
    { name: 'both sources', object: va({ source: { persistentVolumeName: 'pv', inlineVolumeSpec: { csi: { driver: 'd', volumeHandle: 'h' } } } }), errors: [{ field: 'spec.source', message: 'Forbidden: must specify exactly one of inlineVolumeSpec and persistentVolumeName' }] },
    { name: 'an inline spec without CSI', object: va({ source: { inlineVolumeSpec: { accessModes: ['ReadWriteOnce'], hostPath: { path: '/a' } } } }), errors: [{ field: 'spec.source.inlineVolumeSpec.csi', message: 'Required value: has to be specified in the context of inline volumes' }] },
  ],
  updates: [{ name: 'the spec is immutable', object: va({ source: { persistentVolumeName: 'pv-1' } }), change: (o) => ({ ...o, spec: { ...(o.spec as object), nodeName: 'node-2' } }), errors: [{ field: 'spec', message: 'Invalid value: {"Attacher":"csi.example.com","Source":{"PersistentVolumeName":"pv-1","InlineVolumeSpec":null},"NodeName":"node-2"}: field is immutable' }] }],
  statusUpdates: [{ name: 'the attacher reports', object: va({ source: { persistentVolumeName: 'pv-1' } }), change: (o) => ({ ...o, status: { attached: true, attachmentMetadata: { devicePath: '/dev/sdb' } } }), expect: (o) => assert.equal((o.status as { attached: boolean }).attached, true) }],
  columns: [{ name: 'as kubectl get volumeattachments prints it', object: va({ source: { persistentVolumeName: 'pv-1' } }), cells: ['csi.example.com', 'pv-1', 'node-1', false] }],
});
