import assert from 'node:assert/strict';
import { test } from 'node:test';
import { quantityParseError, QUANTITY_FORMAT_ERROR, QUANTITY_NUMERIC_ERROR, QUANTITY_SUFFIX_ERROR } from '../../src/api/go/quantity.ts';
import { findTypeError } from '../../src/registry/type-check.ts';
import { messageSchema, type ObjectSchema } from '../../src/schema/type-schema.ts';

test('quantities parse as resource.ParseQuantity does', () => {
  for (const ok of ['0', '1', '100m', '1.5Gi', '2e3', '2E-3', '+5k', '-1', '0.5', '.5', '5.', '1Ei', '12n', '000m', '1e+21']) {
    assert.equal(quantityParseError(ok), undefined, ok);
  }
  assert.equal(quantityParseError(''), QUANTITY_FORMAT_ERROR);
  assert.equal(quantityParseError('lots'), QUANTITY_FORMAT_ERROR);
  assert.equal(quantityParseError('1 Gi'), QUANTITY_FORMAT_ERROR);
  assert.equal(quantityParseError('1Gi5x'), QUANTITY_FORMAT_ERROR);
  assert.equal(quantityParseError('1Qi'), QUANTITY_FORMAT_ERROR);
  assert.equal(quantityParseError('1Ki5'), QUANTITY_SUFFIX_ERROR);
  assert.equal(quantityParseError('1mm'), QUANTITY_SUFFIX_ERROR);
  assert.equal(quantityParseError('.'), QUANTITY_NUMERIC_ERROR);
});

test('every wire format is checked when a body is decoded', () => {
  // Quantity (ResourceQuota.spec.hard values).
  assert.equal(findTypeError(messageSchema('k8s.io.api.core.v1.ResourceQuota'), { spec: { hard: { cpu: 'lots' } } }), QUANTITY_FORMAT_ERROR);
  assert.equal(findTypeError(messageSchema('k8s.io.api.core.v1.ResourceQuota'), { spec: { hard: { cpu: '500m', memory: 1024 } } }), undefined);
  // (No built-in kind of 1.34 has a metav1.Duration field; its Go parser is tested in request-deadline.test.ts.)
  // int-or-string: a string, or a number that fits an int32.
  const maxSurge = (v: unknown) => findTypeError(messageSchema('k8s.io.api.apps.v1.Deployment'), { spec: { strategy: { rollingUpdate: { maxSurge: v } } } });
  assert.equal(maxSurge('25%'), undefined);
  assert.equal(maxSurge(3), undefined);
  assert.equal(maxSurge(1.5), 'json: cannot unmarshal number 1.5 into Go value of type int32');
  assert.equal(maxSurge(3e9), 'json: cannot unmarshal number 3000000000 into Go value of type int32');
  assert.equal(maxSurge(true), 'json: cannot unmarshal bool into Go value of type int32');
  // Time and MicroTime.
  assert.match(String(findTypeError(messageSchema('k8s.io.api.coordination.v1.Lease'), { spec: { renewTime: '2025-01-01T00:00:00Z' } })), /^parsing time/);
  assert.equal(findTypeError(messageSchema('k8s.io.api.coordination.v1.Lease'), { spec: { renewTime: '2025-01-01T00:00:00.000000Z' } }), undefined);
  // Bytes.
  assert.equal(findTypeError(messageSchema('k8s.io.api.core.v1.Secret'), { data: { a: 'not base64!' } }), 'illegal base64 data at input byte 3');
});
