import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { describe, it } from 'node:test';
import protobuf from 'protobufjs';
import {
  fieldsOf,
  getMessage,
  messageNames,
  schemaKindOf,
  schemaKinds,
  schemaRelease,
} from '../../src/schema/generated/index.ts';
import { messageSchema } from '../../src/schema/type-schema.ts';

const CORE = 'k8s.io.api.core.v1';
const META = 'k8s.io.apimachinery.pkg.apis.meta.v1';

function protoRoot(file: string): protobuf.Root {
  const json = JSON.parse(readFileSync(new URL(`../../proto/${file}`, import.meta.url), 'utf8'));
  return protobuf.Root.fromJSON(json);
}

describe('generated schema', () => {
  it('loads every message with proto numbers and JSON names', () => {
    assert.equal(schemaRelease(), 'kubernetes-1.34');
    assert.ok(messageNames().length > 900);
    const cm = getMessage(`${CORE}.ConfigMap`);
    assert.ok(cm?.typeMeta);
    assert.deepEqual(cm.fields.metadata, { type: `${META}.ObjectMeta`, id: 1, optional: true });
    assert.deepEqual(cm.fields.data, { type: 'string', id: 2, keyType: 'string', optional: true });
    assert.equal(cm.fields.binaryData.type, 'bytes');
  });

  it('carries the markers strategic merge patch and apply need', () => {
    const containers = getMessage(`${CORE}.PodSpec`)!.fields.containers;
    assert.equal(containers.repeated, true);
    assert.equal(containers.patchStrategy, 'merge');
    assert.equal(containers.patchMergeKey, 'name');
    assert.equal(containers.listType, 'map');
    assert.deepEqual(containers.listMapKey, ['name']);
    assert.equal(getMessage(`${META}.ObjectMeta`)!.fields.finalizers.listType, 'set');
    assert.equal(getMessage(`${CORE}.PodSpec`)!.fields.nodeSelector.mapType, 'atomic');
    assert.equal(getMessage(`${META}.LabelSelector`)!.structType, 'atomic');
  });

  it('flattens inline-embedded structs in the JSON view', () => {
    assert.equal(getMessage(`${CORE}.Volume`)!.fields.volumeSource.inline, true);
    const volume = fieldsOf(`${CORE}.Volume`);
    assert.equal(volume.volumeSource, undefined);
    assert.equal(volume.configMap.type, `${CORE}.ConfigMapVolumeSource`);
    assert.equal(fieldsOf(`${CORE}.ConfigMapVolumeSource`).name.type, 'string');
    assert.ok(fieldsOf(`${CORE}.Probe`).httpGet);
    assert.ok(fieldsOf(`${CORE}.EphemeralContainer`).image);
  });

  it('does not treat nested templates as TypeMeta carriers', () => {
    assert.equal(getMessage(`${CORE}.PodTemplateSpec`)!.typeMeta, undefined);
    assert.equal(getMessage(`${META}.DeleteOptions`)!.typeMeta, true);
    assert.equal(getMessage(`${CORE}.ConfigMapList`)!.typeMeta, true);
  });

  it('compiles well-known types to their JSON form in the type schema', () => {
    const lease = messageSchema('k8s.io.api.coordination.v1.LeaseSpec');
    assert.deepEqual(lease.fields.get('renewTime')!.schema, { kind: 'string', format: 'micro-time', message: `${META}.MicroTime` });
    assert.deepEqual(lease.fields.get('leaseDurationSeconds')!.schema, { kind: 'integer', format: 'int32' });
    const meta = messageSchema(`${META}.ObjectMeta`);
    assert.deepEqual(meta.fields.get('creationTimestamp')!.schema, { kind: 'string', format: 'date-time', message: `${META}.Time` });
    assert.deepEqual(meta.fields.get('managedFields')!.schema.kind, 'array');
    const cm = messageSchema(`${CORE}.ConfigMap`);
    assert.deepEqual(cm.fields.get('data')!.schema, { kind: 'map', values: { kind: 'string' } });
    assert.equal(cm.fields.get('data')!.collection, 'map');
    assert.deepEqual(cm.fields.get('binaryData')!.schema, { kind: 'map', values: { kind: 'string', format: 'byte' } });
    assert.equal(cm.fields.get('data')!.goType, 'map[string]string');
    const quota = messageSchema(`${CORE}.ResourceQuotaSpec`);
    assert.deepEqual(quota.fields.get('hard')!.schema, { kind: 'map', values: { kind: 'string', format: 'quantity', message: 'k8s.io.apimachinery.pkg.api.resource.Quantity' } });
    const deployment = messageSchema('k8s.io.api.apps.v1.RollingUpdateDeployment');
    assert.deepEqual(deployment.fields.get('maxSurge')!.schema, { kind: 'int-or-string', message: 'k8s.io.apimachinery.pkg.util.intstr.IntOrString' });
    const containers = messageSchema(`${CORE}.PodSpec`).fields.get('containers')!;
    assert.equal(containers.patchMergeKey, 'name');
    assert.deepEqual(containers.patchStrategies, ['merge']);
    assert.equal(containers.goType, '[]v1.Container');
  });

  it('lists kinds with corrected plurals and lifecycle defaults', () => {
    assert.ok(schemaKinds().length > 100);
    assert.equal(schemaKindOf('', 'v1', 'Endpoints')?.plural, 'endpoints');
    assert.deepEqual(schemaKindOf('coordination.k8s.io', 'v1', 'Lease'), {
      group: 'coordination.k8s.io', version: 'v1', kind: 'Lease', plural: 'leases', namespaced: true,
      message: 'k8s.io.api.coordination.v1.Lease', listMessage: 'k8s.io.api.coordination.v1.LeaseList',
      lifecycle: { introduced: '1.14' },
    });
    assert.equal(schemaKindOf('events.k8s.io', 'v1beta1', 'Event')?.lifecycle.removed, '1.25');
    assert.equal(schemaKinds().some((k) => k.group === 'apidiscovery.k8s.io'), false);
  });

  it('ships protobuf descriptors that protobufjs can load and use', () => {
    const k8s = protoRoot('k8s.json');
    const cm = k8s.lookupType(`${CORE}.ConfigMap`);
    const bytes = cm.encode(cm.fromObject({ metadata: { name: 'a' }, data: { k: 'v' } })).finish();
    assert.deepEqual(cm.toObject(cm.decode(bytes)), { metadata: { name: 'a' }, data: { k: 'v' } });
    const doc = protoRoot('openapiv2.json').lookupType('openapi.v2.Document');
    assert.equal(doc.fields.paths.type, 'Paths');
  });
});
