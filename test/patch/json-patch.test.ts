import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { applyJsonPatch, MAX_COPY_BYTES } from '../../src/registry/patch/json-patch.ts';
import { PATCH_REJECTED_MESSAGE } from '../../src/registry/patch/patch-errors.ts';
import { configMap, expectApiError, frozen, pod, container, names } from './helpers.ts';

function rejected(current: object, patch: unknown): void {
  const err = expectApiError(() => applyJsonPatch(current, patch), 422, 'Invalid', PATCH_REJECTED_MESSAGE);
  assert.deepEqual(err.status.details, {}, 'the apiserver sends empty details');
}

describe('JSON patch operations', () => {
  test('add, replace and remove change ConfigMap data', () => {
    const out = applyJsonPatch(configMap({ a: '1', b: '2' }), [
      { op: 'add', path: '/data/c', value: '3' },
      { op: 'replace', path: '/data/a', value: 'one' },
      { op: 'remove', path: '/data/b' },
    ]);
    assert.deepEqual(out.data, { a: 'one', c: '3' });
  });

  test('add to a list inserts at an index or appends with -', () => {
    const out = applyJsonPatch(pod(), [
      { op: 'add', path: '/spec/containers/0', value: container('first') },
      { op: 'add', path: '/spec/containers/-', value: container('last') },
    ]);
    assert.deepEqual(names((out.spec as { containers: unknown }).containers), ['first', 'app', 'sidecar', 'last']);
  });

  test('move and copy take the value from another path', () => {
    const out = applyJsonPatch(configMap({ a: '1', b: '2' }), [
      { op: 'move', from: '/data/a', path: '/data/moved' },
      { op: 'copy', from: '/data/b', path: '/metadata/labels' },
    ]);
    assert.deepEqual(out.data, { b: '2', moved: '1' });
    assert.equal((out.metadata as Record<string, unknown>).labels, '2');
  });

  test('a passing test operation lets the rest apply', () => {
    const out = applyJsonPatch(configMap(), [
      { op: 'test', path: '/metadata/name', value: 'cm' },
      { op: 'add', path: '/data/b', value: '2' },
    ]);
    assert.deepEqual(out.data, { a: '1', b: '2' });
  });

  test('pointer escapes ~0 and ~1 address keys with ~ and /', () => {
    const out = applyJsonPatch(configMap({}, { annotations: {} }), [
      { op: 'add', path: '/metadata/annotations/example.com~1owner', value: 'me' },
      { op: 'add', path: '/metadata/annotations/a~0b', value: 'x' },
    ]);
    assert.deepEqual((out.metadata as Record<string, unknown>).annotations, { 'example.com/owner': 'me', 'a~b': 'x' });
  });

  test('negative indices count from the end, as the apiserver library allows', () => {
    const out = applyJsonPatch(pod(), [{ op: 'remove', path: '/spec/containers/-1' }]);
    assert.deepEqual(names((out.spec as { containers: unknown }).containers), ['app']);
  });

  test('replace of a missing object key adds it, as upstream does', () => {
    const out = applyJsonPatch(configMap({ a: '1' }), [{ op: 'replace', path: '/data/new', value: 'v' }]);
    assert.deepEqual(out.data, { a: '1', new: 'v' });
  });

  test('test of a missing key passes only against null', () => {
    applyJsonPatch(configMap(), [{ op: 'test', path: '/data/missing', value: null }]);
    rejected(configMap(), [{ op: 'test', path: '/data/missing', value: 'x' }]);
  });

  test('a null body is an empty list of operations', () => {
    assert.deepEqual(applyJsonPatch(configMap(), null), configMap());
  });

  test('the current object is not changed', () => {
    const current = frozen(pod());
    const out = applyJsonPatch(current, [{ op: 'replace', path: '/spec/containers/0/image', value: 'x' }]);
    assert.notEqual(out, current);
    assert.equal((current.spec as { containers: { image: string }[] }).containers[0].image, 'app:1');
  });
});

describe('JSON patch failures', () => {
  test('a failing test operation is 422 Invalid with the generic message', () => {
    rejected(configMap(), [{ op: 'test', path: '/data/a', value: 'other' }, { op: 'add', path: '/data/b', value: '2' }]);
  });

  test('removing a path that does not exist is 422', () => {
    rejected(configMap(), [{ op: 'remove', path: '/data/x' }]);
    rejected(configMap(), [{ op: 'remove', path: '/spec/nothing/here' }]);
  });

  test('adding below a missing parent is 422', () => {
    rejected(configMap(), [{ op: 'add', path: '/metadata/labels/a', value: 'b' }]);
  });

  test('indices out of range are 422', () => {
    rejected(pod(), [{ op: 'add', path: '/spec/containers/5', value: container('x') }]);
    rejected(pod(), [{ op: 'replace', path: '/spec/containers/2', value: container('x') }]);
    rejected(pod(), [{ op: 'remove', path: '/spec/containers/-3' }]);
  });

  test('an unknown op, a missing path or from, and null operations are 422', () => {
    rejected(configMap(), [{ op: 'frobnicate', path: '/data' }]);
    rejected(configMap(), [{ op: 'add', value: 1 }]);
    rejected(configMap(), [{ op: 'move', path: '/data/z' }]);
    rejected(configMap(), [null]);
  });

  test('operations on the root other than replace and test are 422', () => {
    rejected(configMap(), [{ op: 'add', path: '', value: {} }]);
    rejected(configMap(), [{ op: 'remove', path: '' }]);
    rejected(configMap(), [{ op: 'replace', path: '', value: 'scalar' }]);
  });

  test('copies may not add more than 3 MiB', () => {
    const big = 'x'.repeat(MAX_COPY_BYTES / 2);
    const patch = [
      { op: 'copy', from: '/data/big', path: '/data/c1' },
      { op: 'copy', from: '/data/big', path: '/data/c2' },
    ];
    rejected(configMap({ big }), patch);
  });

  test('a body that is not a list is 400 with the decoder message', () => {
    expectApiError(
      () => applyJsonPatch(configMap(), { op: 'add', path: '/data/x', value: '1' }),
      400,
      'BadRequest',
      'json: cannot unmarshal object into Go value of type jsonpatch.Patch',
    );
    expectApiError(() => applyJsonPatch(configMap(), 'x'), 400, 'BadRequest', 'json: cannot unmarshal string into Go value of type jsonpatch.Patch');
    expectApiError(() => applyJsonPatch(configMap(), [1]), 400, 'BadRequest', 'json: cannot unmarshal number into Go value of type jsonpatch.Operation');
  });

  test('more than 10000 operations is 413 RequestEntityTooLarge', () => {
    const ops = Array.from({ length: 10001 }, () => ({ op: 'test', path: '/kind', value: 'ConfigMap' }));
    expectApiError(
      () => applyJsonPatch(configMap(), ops),
      413,
      'RequestEntityTooLarge',
      'Request entity too large: The allowed maximum operations in a JSON patch is 10000, got 10001',
    );
    applyJsonPatch(configMap(), ops.slice(0, 10000));
  });

  test('replacing the whole object with a list is 422 Invalid on patch', () => {
    const err = expectApiError(
      () => applyJsonPatch(configMap(), [{ op: 'replace', path: '', value: ['a'] }]),
      422,
      'Invalid',
      /^ "" is invalid: patch: Invalid value: "\[\\"a\\"\]": couldn't get version\/kind; json parse error: json: cannot unmarshal array/,
    );
    assert.equal(err.status.details?.causes?.[0]?.field, 'patch');
    assert.equal(err.status.details?.causes?.[0]?.reason, 'FieldValueInvalid');
  });

  test('a failed patch leaves the current object as it was', () => {
    const current = frozen(configMap());
    rejected(current, [{ op: 'add', path: '/data/b', value: '2' }, { op: 'remove', path: '/data/zzz' }]);
    assert.deepEqual(current.data, { a: '1' });
  });
});
