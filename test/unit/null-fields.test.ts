import assert from 'node:assert/strict';
import { test } from 'node:test';
import { dropNullFields } from '../../src/registry/null-fields.ts';
import { messageSchema, type ObjectSchema } from '../../src/schema/type-schema.ts';

test('null fields are unset, nulls inside maps and lists become zero values, unknown fields stay', () => {
  const cm: Record<string, unknown> = {
    apiVersion: 'v1',
    kind: null,
    metadata: { name: 'x', labels: null, annotations: { a: null, b: 'kept' }, finalizers: ['f', null], deletionGracePeriodSeconds: null },
    data: null,
    binaryData: { k: null },
    immutable: null,
    notInSchema: null,
  };
  dropNullFields(messageSchema('k8s.io.api.core.v1.ConfigMap'), cm);
  assert.deepEqual(cm, {
    apiVersion: 'v1',
    metadata: { name: 'x', annotations: { a: '', b: 'kept' }, finalizers: ['f', ''] },
    binaryData: { k: '' },
    notInSchema: null,
  });
});

test('nested messages and lists of messages are walked; free-form JSON is not', () => {
  const cm: Record<string, unknown> = {
    metadata: {
      ownerReferences: [{ apiVersion: 'v1', kind: 'X', name: 'n', uid: 'u', controller: null }],
      managedFields: [{ manager: 'm', fieldsV1: { 'f:data': null }, time: null }],
    },
  };
  dropNullFields(messageSchema('k8s.io.api.core.v1.ConfigMap'), cm);
  assert.deepEqual(cm, {
    metadata: {
      ownerReferences: [{ apiVersion: 'v1', kind: 'X', name: 'n', uid: 'u' }],
      managedFields: [{ manager: 'm', fieldsV1: { 'f:data': null } }],
    },
  });
});

test('quantities are re-printed canonically, as decoding into resource.Quantity leaves them', () => {
  const capacity: Record<string, unknown> = { capacity: '1024Mi', maximumVolumeSize: 0.5 };
  dropNullFields(messageSchema('k8s.io.api.storage.v1.CSIStorageCapacity'), capacity);
  assert.deepEqual(capacity, { capacity: '1Gi', maximumVolumeSize: '500m' });
});
