/**
 * The scale subresource of custom resources: apiextensions-apiserver customresource etcd.go
 * (scaleFromCustomResource, scaleUpdatedObjectInfo) and the TestScale* cases of etcd_test.go,
 * with the unstructured accessor error texts.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { ApiError } from '../../src/api/errors.ts';
import type { KubeObject } from '../../src/api/types.ts';
import { applyScale, getScale, oldScaleForUpdate, scaleFromCustomResource, ScalePathError, UNSET_SPEC_REPLICAS } from '../../src/crd/scale.ts';

const paths = { specReplicasPath: '.spec.replicas', statusReplicasPath: '.status.replicas', labelSelectorPath: '.status.labelSelector' };

function noxu(spec: Record<string, unknown> = { replicas: 7 }, status?: Record<string, unknown>): KubeObject {
  return {
    apiVersion: 'mygroup.example.com/v1beta1',
    kind: 'Noxu',
    metadata: { namespace: 'default', name: 'foo', uid: 'u-1', resourceVersion: '12', creationTimestamp: '2026-01-01T00:00:00Z', labels: { a: 'b' } },
    spec,
    ...(status ? { status } : {}),
  };
}

function apiError(fn: () => unknown): ApiError {
  try {
    fn();
  } catch (e) {
    assert.ok(e instanceof ApiError, `not an ApiError: ${String(e)}`);
    return e;
  }
  assert.fail('no error thrown');
}

describe('reading a Scale', () => {
  it('TestScaleGet: metadata from the object, spec replicas, no status selector when absent', () => {
    assert.deepEqual(getScale(noxu(), paths), {
      apiVersion: 'autoscaling/v1',
      kind: 'Scale',
      metadata: { name: 'foo', namespace: 'default', uid: 'u-1', resourceVersion: '12', creationTimestamp: '2026-01-01T00:00:00Z' },
      spec: { replicas: 7 },
      status: { replicas: 0 },
    });
  });

  it('status replicas and the selector string', () => {
    const scale = getScale(noxu({ replicas: 3 }, { replicas: 2, labelSelector: 'app=x' }), paths);
    assert.deepEqual(scale.status, { replicas: 2, selector: 'app=x' });
  });

  it('without labelSelectorPath there is no selector', () => {
    const scale = getScale(noxu({ replicas: 3 }, { replicas: 2, labelSelector: 'app=x' }), { specReplicasPath: '.spec.replicas', statusReplicasPath: '.status.replicas' });
    assert.deepEqual(scale.status, { replicas: 2 });
  });

  it('zero spec replicas are omitted from the Scale (omitempty)', () => {
    assert.deepEqual(getScale(noxu({ replicas: 0 }), paths).spec, {});
  });

  it('nested paths are followed', () => {
    const obj = noxu({ deep: { count: 4 } }, { deep: { count: 1 } });
    assert.equal(getScale(obj, { specReplicasPath: '.spec.deep.count', statusReplicasPath: '.status.deep.count' }).spec.replicas, 4);
  });

  it('replicas are an int32, wrapping as Go converts', () => {
    assert.equal(getScale(noxu({ replicas: 2 ** 32 + 5 }), paths).spec.replicas, 5);
  });

  it('TestScaleGetWithoutSpecReplicas: 500 InternalError naming the field', () => {
    const err = apiError(() => getScale(noxu({}), paths));
    assert.equal(err.code, 500);
    assert.equal(err.reason, 'InternalError');
    assert.equal(err.message, 'Internal error occurred: the spec replicas field ".spec.replicas" does not exist');
  });

  it('an absent or null parent reads as absent', () => {
    const obj = noxu();
    delete obj['spec'];
    assert.equal(scaleFromCustomResource(obj, paths).specReplicasFound, false);
    assert.equal(scaleFromCustomResource({ ...noxu(), spec: null }, paths).specReplicasFound, false);
  });

  const accessorErrors: Array<[string, KubeObject, string]> = [
    ['a string spec replicas', noxu({ replicas: 'seven' }), '.spec.replicas accessor error: seven is of the type string, expected int64'],
    ['a float spec replicas', noxu({ replicas: 1.5 }), '.spec.replicas accessor error: 1.5 is of the type float64, expected int64'],
    ['a null spec replicas', noxu({ replicas: null }), '.spec.replicas accessor error: <nil> is of the type <nil>, expected int64'],
    ['a non-object spec', { ...noxu(), spec: 'x' }, '.spec.replicas accessor error: x is of the type string, expected map[string]interface{}'],
    ['a bad status replicas', noxu({ replicas: 1 }, { replicas: true }), '.status.replicas accessor error: true is of the type bool, expected int64'],
    ['a selector that is not a string', noxu({ replicas: 1 }, { labelSelector: { app: 'x' } }), '.status.labelSelector accessor error: map[app:x] is of the type map[string]interface {}, expected string'],
  ];
  for (const [name, obj, message] of accessorErrors) {
    it(`${name}: the accessor error, as a 500 without a reason`, () => {
      assert.throws(() => scaleFromCustomResource(obj, paths), new ScalePathError(message));
      const err = apiError(() => getScale(obj, paths));
      assert.equal(err.code, 500);
      assert.equal(err.reason, '');
      assert.equal(err.message, message);
    });
  }
});

describe('updating through a Scale', () => {
  it('TestScaleUpdate: the new spec replicas land at the path; the original is untouched', () => {
    const obj = noxu();
    const updated = applyScale(obj, { spec: { replicas: 12 }, metadata: { creationTimestamp: null } }, paths);
    assert.equal((updated['spec'] as { replicas: number }).replicas, 12);
    assert.equal((obj['spec'] as { replicas: number }).replicas, 7);
    assert.equal(updated.metadata?.resourceVersion, '12');
    assert.deepEqual(updated.metadata?.labels, { a: 'b' });
  });

  it('a Scale resourceVersion becomes the precondition', () => {
    const updated = applyScale(noxu(), { spec: { replicas: 15 }, metadata: { resourceVersion: '3', creationTimestamp: null } }, paths);
    assert.equal(updated.metadata?.resourceVersion, '3');
  });

  it('TestScaleUpdateWithoutSpecReplicas: missing levels are created', () => {
    const obj = noxu({});
    delete obj['spec'];
    const updated = applyScale(obj, { spec: { replicas: 12 } }, { ...paths, specReplicasPath: '.spec.deep.replicas' });
    assert.deepEqual(updated['spec'], { deep: { replicas: 12 } });
  });

  it('an absent replicas field in the Scale writes 0', () => {
    assert.equal((applyScale(noxu(), { spec: {} }, paths)['spec'] as { replicas: number }).replicas, 0);
  });

  it('a patch that leaves unset spec replicas unset is refused with 400', () => {
    const old = oldScaleForUpdate(noxu({}), paths);
    assert.equal(old.spec.replicas, UNSET_SPEC_REPLICAS);
    const err = apiError(() => applyScale(noxu({}), old, paths));
    assert.equal(err.code, 400);
    assert.equal(err.reason, 'BadRequest');
    assert.equal(err.message, 'the spec replicas field ".spec.replicas" cannot be empty');
  });

  it('the old Scale of an object with replicas carries them', () => {
    assert.equal(oldScaleForUpdate(noxu({ replicas: 4 }), paths).spec.replicas, 4);
  });

  it('a non-object level on the way is an error', () => {
    const err = apiError(() => applyScale({ ...noxu(), spec: 'x' }, { spec: { replicas: 1 } }, paths));
    assert.equal(err.code, 500);
    assert.equal(err.message, 'value cannot be set because .spec is not a map[string]interface{}');
  });

  it('a nil update is a 400', () => {
    assert.equal(apiError(() => applyScale(noxu(), null, paths)).message, 'nil update passed to Scale');
  });
});
