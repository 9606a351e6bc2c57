/**
 * The collector's writes on real storage: every one is bound to the uid it judged, so that an object
 * re-created under the same name is never deleted or changed by a decision about its predecessor.
 */
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { ApiError } from '../../src/api/errors.ts';
import type { StoredKubeObject } from '../../src/api/types.ts';
import type { ObjectReference } from '../../src/controllers/garbage-collector/graph.ts';
import { ClusterOperations, NAMESPACED_OWNER_OF_CLUSTER_SCOPED_OBJECT } from '../../src/controllers/garbage-collector/operations.ts';
import { RestMappingError } from '../../src/controllers/garbage-collector/rest-mapping.ts';
import { openTestRegistry, testContext, type TestRegistry } from '../helpers/registry.ts';

let reg: TestRegistry;
let ops: ClusterOperations;
before(async () => {
  reg = await openTestRegistry();
  ops = new ClusterOperations(reg.surface);
});
after(async () => {
  await reg?.close();
});

const configMaps = () => reg.store('configmaps');
const make = async (name: string, metadata: Record<string, unknown> = {}) => (await configMaps().create(testContext(), 'default', { metadata: { name, ...metadata } })).object;
const get = async (name: string) => (await configMaps().get(testContext(), 'default', name)).object;
const identity = (o: StoredKubeObject): ObjectReference => ({ apiVersion: 'v1', kind: 'ConfigMap', name: o.metadata.name, uid: o.metadata.uid, namespace: 'default' });
const isCode = (code: number) => (err: unknown) => err instanceof ApiError && err.code === code;
const owner = { apiVersion: 'v1', kind: 'ConfigMap', name: 'o', uid: 'owner-uid' };

test('deleteObject never deletes an object re-created under the same name', async () => {
  const old = await make('recreated');
  await configMaps().delete(testContext(), 'default', 'recreated', { dryRun: false });
  const now = await make('recreated');
  await assert.rejects(ops.deleteObject(identity(old), old.metadata.resourceVersion, [], 'Background'), isCode(409));
  assert.equal((await get('recreated')).metadata.uid, now.metadata.uid);
});

test('deleteObject: a version that moved with the owners unchanged is retried on the uid alone; moved owners are a conflict', async () => {
  const seen = await make('moved', { ownerReferences: [owner] });
  await configMaps().update(testContext(), 'default', 'moved', { build: (c) => ({ ...c!, data: { k: 'v' } }) });
  await ops.deleteObject(identity(seen), seen.metadata.resourceVersion, [owner], 'Background');
  await assert.rejects(get('moved'), isCode(404));

  const seen2 = await make('moved2', { ownerReferences: [owner] });
  await configMaps().update(testContext(), 'default', 'moved2', { build: (c) => ({ ...c!, metadata: { ...c!.metadata, ownerReferences: [{ ...owner, uid: 'other' }] } }) });
  await assert.rejects(ops.deleteObject(identity(seen2), seen2.metadata.resourceVersion, [owner], 'Background'), isCode(409));
  assert.equal((await get('moved2')).metadata.uid, seen2.metadata.uid);
});

test('deleteObject passes the propagation policy on (the collector finalizers follow it)', async () => {
  const o = await make('fg-by-gc');
  await ops.deleteObject(identity(o), o.metadata.resourceVersion, [], 'Foreground');
  assert.deepEqual((await get('fg-by-gc')).metadata.finalizers, ['foregroundDeletion']);
});

test('removeOwnerReferences and removeFinalizer leave a re-created object alone', async () => {
  const old = await make('again', { ownerReferences: [owner], finalizers: ['foregroundDeletion'] });
  await configMaps().update(testContext(), 'default', 'again', { build: (c) => ({ ...c!, metadata: { ...c!.metadata, finalizers: [] } }) });
  await configMaps().delete(testContext(), 'default', 'again', { dryRun: false });
  await make('again', { ownerReferences: [owner], finalizers: ['foregroundDeletion'] });
  await assert.rejects(ops.removeOwnerReferences(identity(old), [owner.uid]), isCode(409));
  await ops.removeFinalizer(identity(old), 'foregroundDeletion');
  const now = await get('again');
  assert.deepEqual(now.metadata.ownerReferences, [owner]);
  assert.deepEqual(now.metadata.finalizers, ['foregroundDeletion']);
  // Its own uid: both apply; the field goes with its last reference.
  await ops.removeOwnerReferences(identity(now), [owner.uid]);
  await ops.removeFinalizer(identity(now), 'foregroundDeletion');
  const stripped = await get('again');
  assert.equal(stripped.metadata.ownerReferences, undefined);
  assert.equal(stripped.metadata.finalizers, undefined);
});

test('the last finalizer of a deleted object removed: the object leaves storage', async () => {
  const o = await make('last', { finalizers: ['orphan'] });
  await configMaps().delete(testContext(), 'default', 'last', { dryRun: false });
  await ops.removeFinalizer(identity(o), 'orphan');
  await assert.rejects(get('last'), isCode(404));
});

test('a kind that is not served, or a namespaced owner without a namespace, cannot be looked up', async () => {
  await assert.rejects(ops.getObject({ apiVersion: 'apps/v1', kind: 'Deployment', name: 'd', uid: 'u', namespace: 'default' }), RestMappingError);
  await assert.rejects(ops.getObject({ apiVersion: 'v1', kind: 'ConfigMap', name: 'c', uid: 'u', namespace: '' }), (err) => err === NAMESPACED_OWNER_OF_CLUSTER_SCOPED_OBJECT);
});
