import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { applyPatch, PATCH_CONTENT_TYPES, type PatchFormat } from '../../src/registry/patch/apply-patch.ts';
import { POD, container, expectApiError, frozen, names, pod } from './helpers.ts';

const ADD_CONTAINER: Record<PatchFormat, unknown> = {
  'json-patch': [{ op: 'add', path: '/spec/containers/-', value: { name: 'new', image: 'new:1' } }],
  'merge-patch': { spec: { containers: [{ name: 'new', image: 'new:1' }] } },
  'strategic-merge-patch': { spec: { containers: [{ name: 'new', image: 'new:1' }] } },
};

describe('applyPatch', () => {
  test('each format treats a container list its own way', () => {
    const run = (format: PatchFormat): string[] =>
      names((applyPatch(format, pod(), ADD_CONTAINER[format], POD) as { spec: { containers: unknown } }).spec.containers);
    assert.deepEqual(run('json-patch'), ['app', 'sidecar', 'new']);
    assert.deepEqual(run('merge-patch'), ['new']);
    assert.deepEqual(run('strategic-merge-patch'), ['new', 'app', 'sidecar']);
  });

  test('no format changes the current object or the patch, and each returns a new object', () => {
    for (const format of Object.keys(ADD_CONTAINER) as PatchFormat[]) {
      const current = frozen(pod([container('app', { env: [{ name: 'A', value: '1' }] })]));
      const patch = frozen(ADD_CONTAINER[format]);
      const before = structuredClone(current);
      const out = applyPatch(format, current, patch, POD);
      assert.notEqual(out, current, format);
      assert.deepEqual(current, before, format);
      (out as { spec: { containers: { image: string }[] } }).spec.containers[0].image = 'changed';
      assert.deepEqual(current, before, `${format}: the result shares nothing with the input`);
    }
  });

  test('errors come through as ApiErrors with the real status', () => {
    expectApiError(() => applyPatch('json-patch', pod(), { op: 'add' }, POD), 400, 'BadRequest');
    expectApiError(() => applyPatch('merge-patch', pod(), 'x', POD), 400, 'BadRequest', 'Invalid JSON Patch');
    expectApiError(() => applyPatch('strategic-merge-patch', pod(), [], POD), 400, 'BadRequest');
  });

  test('the PATCH content types name the three formats', () => {
    assert.deepEqual(PATCH_CONTENT_TYPES, {
      'application/json-patch+json': 'json-patch',
      'application/merge-patch+json': 'merge-patch',
      'application/strategic-merge-patch+json': 'strategic-merge-patch',
    });
  });
});
