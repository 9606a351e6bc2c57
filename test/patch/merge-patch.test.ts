import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { applyMergePatch } from '../../src/registry/patch/merge-patch.ts';
import { configMap, container, expectApiError, frozen, names, pod } from './helpers.ts';

describe('JSON merge patch', () => {
  test('keys merge into ConfigMap data and null deletes one', () => {
    const out = applyMergePatch(configMap({ a: '1', b: '2' }), { data: { b: null, c: '3' } });
    assert.deepEqual(out.data, { a: '1', c: '3' });
  });

  test('nested objects merge recursively', () => {
    const out = applyMergePatch(configMap({}, { labels: { app: 'x' } }), { metadata: { labels: { tier: 'web' } } });
    assert.deepEqual((out.metadata as Record<string, unknown>).labels, { app: 'x', tier: 'web' });
    assert.equal((out.metadata as Record<string, unknown>).name, 'cm');
  });

  test('lists are replaced as a whole', () => {
    const out = applyMergePatch(pod(), { spec: { containers: [container('only')] } });
    assert.deepEqual(names((out.spec as { containers: unknown }).containers), ['only']);
  });

  test('scalars replace objects and objects replace scalars', () => {
    const out = applyMergePatch(configMap(), { data: 'x', metadata: { name: { nested: true } } });
    assert.equal(out.data, 'x');
    assert.deepEqual((out.metadata as Record<string, unknown>).name, { nested: true });
  });

  test('nulls inside a value with nothing to merge with are pruned', () => {
    const out = applyMergePatch(configMap(), { metadata: { annotations: { a: '1', b: null } } });
    assert.deepEqual((out.metadata as Record<string, unknown>).annotations, { a: '1' });
  });

  test('deleting a missing key changes nothing', () => {
    assert.deepEqual(applyMergePatch(configMap(), { data: { missing: null } }), configMap());
  });

  test('the current object and the patch are not changed', () => {
    const current = frozen(configMap());
    const patch = frozen({ data: { a: null, b: '2' } });
    const out = applyMergePatch(current, patch);
    assert.deepEqual(out.data, { b: '2' });
    assert.deepEqual(current.data, { a: '1' });
  });

  test('a patch that is not an object or list is 400 Invalid JSON Patch', () => {
    for (const body of [null, 'x', 1, true]) {
      expectApiError(() => applyMergePatch(configMap(), body), 400, 'BadRequest', 'Invalid JSON Patch');
    }
  });

  test('a list patch replaces the document and fails to decode: 422 on patch', () => {
    const err = expectApiError(() => applyMergePatch(configMap(), [1, null]), 422, 'Invalid', /^ "" is invalid: patch: Invalid value: "\[1\]": /);
    assert.equal(err.status.details?.causes?.[0]?.field, 'patch');
  });
});
