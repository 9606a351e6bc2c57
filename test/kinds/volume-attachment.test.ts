import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { KubeObject } from '../../src/api/types.ts';
import { featureGateSet } from '../../src/api/request-context.ts';
import { volumeAttachments } from '../../src/kinds/volume-attachment.ts';
import { columnDefinitions } from '../../src/registry/table.ts';
import { openTestRegistry, testContext, type TestRegistry } from '../helpers/registry.ts';
import { runKindSuite } from './kind-suite.ts';

const va = (spec: Record<string, unknown>, meta: Record<string, unknown> = {}) => ({ apiVersion: 'storage.k8s.io/v1', kind: 'VolumeAttachment', metadata: meta, spec: { attacher: 'csi.example.com', nodeName: 'node-1', ...spec } });
const pv = (name = 'pv-1') => ({ source: { persistentVolumeName: name } });
const SUBDOMAIN = `a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character (e.g. 'example.com', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')`;
const statusOf = (o: KubeObject) => o.status as Record<string, any>;

// Expectations from upstream's ValidateVolumeAttachment(V1, Update), strategies, v1 defaults and printer (1.34).
runKindSuite({
  kind: volumeAttachments,
  valid: [
    { name: 'a persistent volume', object: va(pv()) },
    { name: 'an inline CSI spec', object: va({ source: { inlineVolumeSpec: { accessModes: ['ReadWriteOnce'], csi: { driver: 'csi.example.com', volumeHandle: 'h' } } } }) },
  ],
  invalid: [
    {
      name: 'no attacher, no source, a bad node name',
      object: { apiVersion: 'storage.k8s.io/v1', kind: 'VolumeAttachment', spec: { nodeName: 'Node_1' } },
      errors: [
        { field: 'spec.attacher', message: 'Required value' },
        { field: 'spec.source', message: 'Required value: must specify exactly one of inlineVolumeSpec and persistentVolumeName' },
        { field: 'spec.nodeName', message: `Invalid value: "Node_1": ${SUBDOMAIN}` },
        { field: 'spec.attacher', message: 'Required value' },
        { field: 'spec.attacher', message: `Invalid value: "": ${SUBDOMAIN}` },
      ],
    },
    { name: 'no node name', object: va({ ...pv(), nodeName: '' }), errors: [{ field: 'spec.nodeName', message: `Invalid value: "": ${SUBDOMAIN}` }] },
    {
      name: 'an attacher that is no CSI driver name (judged in lower case, too long)',
      object: va({ ...pv(), attacher: `Csi.${'d'.repeat(60)}` }),
      errors: [{ field: 'spec.attacher', message: 'Too long: may not be more than 63 bytes' }],
    },
    { name: 'an attacher with a bad character', object: va({ ...pv(), attacher: 'csi_driver' }), errors: [{ field: 'spec.attacher', message: `Invalid value: "csi_driver": ${SUBDOMAIN}` }] },
    { name: 'both sources', object: va({ source: { persistentVolumeName: 'pv', inlineVolumeSpec: { csi: { driver: 'd', volumeHandle: 'h' } } } }), errors: [{ field: 'spec.source', message: 'Forbidden: must specify exactly one of inlineVolumeSpec and persistentVolumeName' }] },
    {
      name: 'an empty volume name',
      object: va(pv('')),
      errors: [
        { field: 'spec.source.persistentVolumeName', message: 'Required value: must specify non empty persistentVolumeName' },
        { field: 'spec.source.persistentVolumeName', message: `Invalid value: "": ${SUBDOMAIN}` },
      ],
    },
    { name: 'a volume name that is no object name', object: va(pv('PV_1')), errors: [{ field: 'spec.source.persistentVolumeName', message: `Invalid value: "PV_1": ${SUBDOMAIN}` }] },
    { name: 'an inline spec without CSI', object: va({ source: { inlineVolumeSpec: { accessModes: ['ReadWriteOnce'], hostPath: { path: '/a' } } } }), errors: [{ field: 'spec.source.inlineVolumeSpec.csi', message: 'Required value: has to be specified in the context of inline volumes' }] },
  ],
  updates: [
    {
      name: 'the spec is immutable',
      object: va(pv()),
      change: (o) => ({ ...o, spec: { ...(o.spec as object), nodeName: 'node-2' } }),
      errors: [{ field: 'spec', message: 'Invalid value: {"Attacher":"csi.example.com","Source":{"PersistentVolumeName":"pv-1","InlineVolumeSpec":null},"NodeName":"node-2"}: field is immutable' }],
    },
    {
      name: 'an update runs the common rules twice, and not the v1 ones',
      object: va(pv()),
      change: (o) => ({ ...o, spec: { ...(o.spec as object), nodeName: 'Node_2', source: { persistentVolumeName: 'PV_2' } } }),
      errors: [
        { field: 'spec.nodeName', message: `Invalid value: "Node_2": ${SUBDOMAIN}` },
        { field: 'spec.nodeName', message: `Invalid value: "Node_2": ${SUBDOMAIN}` },
        { field: 'spec', message: 'Invalid value: {"Attacher":"csi.example.com","Source":{"PersistentVolumeName":"PV_2","InlineVolumeSpec":null},"NodeName":"Node_2"}: field is immutable' },
      ],
    },
    { name: 'status is kept on a main-resource update', object: va(pv()), change: (o) => ({ ...o, metadata: { ...o.metadata, labels: { a: 'b' } }, status: { attached: true } }), expect: (o) => assert.deepEqual(o.status, { attached: false }) },
  ],
  statusUpdates: [
    {
      name: 'the attacher reports',
      object: va(pv()),
      change: (o) => ({ ...o, status: { attached: true, attachmentMetadata: { devicePath: '/dev/sdb' } } }),
      expect: (o) => assert.deepEqual(statusOf(o), { attached: true, attachmentMetadata: { devicePath: '/dev/sdb' } }),
    },
    {
      name: 'metadata over 256 KiB, error messages over 1 KiB (reported with the metadata limit)',
      object: va(pv()),
      change: (o) => ({ ...o, status: { attached: false, attachmentMetadata: { k: 'v'.repeat(256 * 1024) }, attachError: { message: 'é'.repeat(513) }, detachError: { message: 'x'.repeat(1025) } } }),
      // The status strategy judges as an update does, which runs the common rules twice.
      errors: [
        { field: 'status.attachmentMetadata', message: 'Too long: may not be more than 262144 bytes' },
        { field: 'status.attachError.message', message: 'Too long: may not be more than 262144 bytes' },
        { field: 'status.detachError.message', message: 'Too long: may not be more than 262144 bytes' },
        { field: 'status.attachmentMetadata', message: 'Too long: may not be more than 262144 bytes' },
        { field: 'status.attachError.message', message: 'Too long: may not be more than 262144 bytes' },
        { field: 'status.detachError.message', message: 'Too long: may not be more than 262144 bytes' },
      ],
    },
    {
      name: 'a status write keeps spec, labels and annotations as stored',
      object: va(pv(), { labels: { a: '1' } }),
      change: (o) => ({ ...o, metadata: { ...o.metadata, labels: { a: '2' } }, spec: { ...(o.spec as object), nodeName: 'node-9' }, status: { attached: true } }),
      expect: (o) => {
        assert.deepEqual(o.metadata?.labels, { a: '1' });
        assert.equal((o.spec as { nodeName: string }).nodeName, 'node-1');
        assert.equal(statusOf(o).attached, true);
      },
    },
    {
      name: 'without the MutableCSINodeAllocatableCount gate, new error codes are dropped',
      object: va(pv()),
      change: (o) => ({ ...o, status: { attached: false, attachError: { message: 'boom', errorCode: 5 }, detachError: { message: 'bang', errorCode: -1 } } }),
      expect: (o) => assert.deepEqual(statusOf(o), { attached: false, attachError: { message: 'boom' }, detachError: { message: 'bang' } }),
    },
  ],
  defaults: [
    { name: 'status starts as not attached', object: { ...va(pv()), status: { attached: true, attachmentMetadata: { a: 'b' } } }, expect: (o) => assert.deepEqual(o.status, { attached: false }) },
  ],
  columns: [
    { name: 'as kubectl get volumeattachments prints it', object: va(pv()), cells: ['csi.example.com', 'pv-1', 'node-1', false] },
    { name: 'an inline volume has no PV', object: va({ source: { inlineVolumeSpec: { accessModes: ['ReadWriteOnce'], csi: { driver: 'csi.example.com', volumeHandle: 'h' } } } }), cells: ['csi.example.com', '', 'node-1', false] },
  ],
});

describe('VolumeAttachment: the rest of upstream strategy', () => {
  let registry: TestRegistry;
  const store = () => registry.store('volumeattachments', 'storage.k8s.io');
  const gated = () => ({ ...testContext({ subresource: 'status' }), featureGates: featureGateSet(new Map([['MutableCSINodeAllocatableCount', true]])) });
  before(async () => {
    registry = await openTestRegistry({ kinds: [volumeAttachments] });
  });
  after(async () => {
    await registry.close();
  });

  test('a PUT must name the resourceVersion it replaces', async () => {
    await store().create(testContext(), '', va(pv(), { name: 'put' }));
    await assert.rejects(store().replace(testContext(), '', 'put', va(pv(), { name: 'put' })), (err: { code?: number; message?: string }) => {
      assert.equal(err.code, 422);
      assert.match(String(err.message), /metadata\.resourceVersion: Invalid value: 0x0: must be specified for an update/);
      return true;
    });
  });

  test('with the gate, error codes are kept and must not be negative', async () => {
    await store().create(testContext(), '', va(pv(), { name: 'codes' }));
    const { stored } = await store().update(gated(), '', 'codes', { build: (o) => ({ ...o!, status: { attached: false, attachError: { message: 'boom', errorCode: 5 } } }) });
    assert.equal(statusOf(stored.object).attachError.errorCode, 5);
    await assert.rejects(store().update(gated(), '', 'codes', { build: (o) => ({ ...o!, status: { attached: false, detachError: { errorCode: -1 } } }) }), (err: { status?: { details?: { causes?: { field?: string; message?: string }[] } } }) => {
      const cause = ['status.detachError.errorCode', 'Invalid value: -1: must be between 0 and 2147483647, inclusive'];
      assert.deepEqual(err.status?.details?.causes?.map((c) => [c.field, c.message]), [cause, cause]);
      return true;
    });
  });

  test('without the gate, an error code already stored may stay', async () => {
    await store().create(testContext(), '', va(pv(), { name: 'kept-code' }));
    await store().update(gated(), '', 'kept-code', { build: (o) => ({ ...o!, status: { attached: false, attachError: { message: 'boom', errorCode: 5 } } }) });
    const { stored } = await store().update(testContext({ subresource: 'status' }), '', 'kept-code', { build: (o) => ({ ...o!, status: { attached: false, attachError: { message: 'again', errorCode: 6 } } }) });
    assert.deepEqual(statusOf(stored.object).attachError, { message: 'again', errorCode: 6 });
  });

  test('the Attacher column has the name format, as upstream declares it', () => {
    assert.deepEqual(
      columnDefinitions(volumeAttachments).map((c) => [c.name, c.type, c.format]),
      [
        ['Name', 'string', 'name'],
        ['Attacher', 'string', 'name'],
        ['PV', 'string', ''],
        ['Node', 'string', ''],
        ['Attached', 'boolean', ''],
        ['Age', 'string', ''],
      ],
    );
  });
});
