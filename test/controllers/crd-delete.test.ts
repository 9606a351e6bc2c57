/**
 * Deleting a CustomResourceDefinition: the first DELETE only marks it (cleanup finalizer,
 * Terminating InstanceDeletionPending, whatever the propagation policy), then the CRD finalizer
 * deletes its custom resources in every namespace, waits for those held by finalizers, and lets
 * the CRD go; a CRD that was never established has nothing to delete.
 */
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import type { CrdControllers } from '../../src/controllers/crd/crd-controllers.ts';
import type { KubeObject } from '../../src/api/types.ts';
import { openTestRegistry, testContext, type TestRegistry } from '../helpers/registry.ts';
import { conditionOf, crdStore, createCrd, getCrd, standInKind, startCrdControllers, until, untilCondition } from './crd-helpers.ts';

const FINALIZER = 'customresourcecleanup.apiextensions.k8s.io';

let reg: TestRegistry;

before(async () => {
  reg = await openTestRegistry();
});

after(async () => {
  await reg.close();
});

async function namespace(name: string) {
  await reg.store('namespaces').create(testContext(), '', { apiVersion: 'v1', kind: 'Namespace', metadata: { name } });
}

function instance(kind: string, group: string, name: string, extra: Record<string, unknown> = {}): KubeObject {
  return { apiVersion: `${group}/v1`, kind, metadata: { name, ...extra }, data: { size: 'small' } };
}

test('the first DELETE marks the CRD: deletionTimestamp, the cleanup finalizer, Terminating InstanceDeletionPending, no collector finalizer', async () => {
  const crd = await createCrd(reg, { group: 'marked.example.com', plural: 'marks', kind: 'Mark' });
  const store = crdStore(reg);
  const dry = await store.delete(testContext({ dryRun: true }), '', crd.metadata.name, { dryRun: true });
  assert.equal(dry.gone, false);
  assert.equal((await getCrd(reg, crd.metadata.name))?.metadata.deletionTimestamp, undefined, 'a dry run changes nothing');

  const outcome = await store.delete(testContext(), '', crd.metadata.name, { dryRun: false, propagationPolicy: 'Foreground' });
  assert.equal(outcome.gone, false);
  const marked = outcome.object.object;
  assert.ok(marked.metadata.deletionTimestamp);
  assert.deepEqual(marked.metadata.finalizers, [FINALIZER]);
  assert.equal(marked.metadata.generation, crd.metadata.generation, 'the mark is no new generation');
  const terminating = conditionOf(marked, 'Terminating')!;
  assert.equal(terminating.status, 'True');
  assert.equal(terminating.reason, 'InstanceDeletionPending');
  assert.equal(terminating.message, 'CustomResourceDefinition marked for deletion; CustomResource deletion will begin soon');

  // A wrong uid precondition is refused with upstream's words; a second delete takes the usual path.
  await assert.rejects(store.delete(testContext(), '', crd.metadata.name, { dryRun: false, preconditions: { uid: 'nope' } }), (err: Error & { code?: number }) => {
    assert.equal(err.code, 409);
    assert.match(err.message, /Precondition failed: UID in precondition: nope, UID in object meta: /);
    return true;
  });
  const again = await store.delete(testContext(), '', crd.metadata.name, { dryRun: false });
  assert.equal(again.gone, false);
  assert.deepEqual(again.object.object.metadata.finalizers, [FINALIZER]);
});

test('the finalizer deletes the custom resources of every namespace, waits for those held, then the CRD goes', async () => {
  const group = 'cleanup.example.com';
  const controllers: CrdControllers = await startCrdControllers(reg, 400);
  try {
    const crd = await createCrd(reg, { group, plural: 'crontabs', kind: 'CronTab' });
    await untilCondition(reg, crd.metadata.name, 'Established', 'True');
    // What the serving loop does once the names are accepted.
    const crs = reg.surface.add(standInKind(group, 'crontabs', 'CronTab', crd));
    await namespace('crd-a');
    await namespace('crd-b');
    await crs.create(testContext(), 'crd-a', instance('CronTab', group, 'one'));
    await crs.create(testContext(), 'crd-a', instance('CronTab', group, 'two'));
    await crs.create(testContext(), 'crd-b', instance('CronTab', group, 'held', { finalizers: ['example.com/hold'] }));

    await crdStore(reg).delete(testContext(), '', crd.metadata.name, { dryRun: false });
    // The free ones go; the held one is marked, and the CRD waits for it past the wait's end.
    const checked = await untilCondition(reg, crd.metadata.name, 'Terminating', 'True', 'InstanceDeletionCheck');
    assert.equal(conditionOf(checked, 'Terminating')!.message, 'could not confirm zero CustomResources remaining: context deadline exceeded');
    assert.deepEqual(checked.metadata.finalizers, [FINALIZER]);
    await assert.rejects(crs.get(testContext(), 'crd-a', 'one'), { code: 404 });
    await assert.rejects(crs.get(testContext(), 'crd-a', 'two'), { code: 404 });
    const held = (await crs.get(testContext(), 'crd-b', 'held')).object;
    assert.ok(held.metadata.deletionTimestamp);

    // Once the last one is released, the CRD loses its finalizer and leaves storage.
    await crs.update(testContext(), 'crd-b', 'held', { build: (cur) => ({ ...cur!, metadata: { ...cur!.metadata, finalizers: [] } }) });
    await until(async () => (await getCrd(reg, crd.metadata.name)) === undefined, 'the CRD to be gone');
  } finally {
    controllers.stop();
  }
});

test('a CRD whose names were never accepted is let go at once (NeverEstablished): it can have no instances', async () => {
  const group = 'never.example.com';
  const controllers = await startCrdControllers(reg);
  try {
    const holder = await createCrd(reg, { group, plural: 'holders', kind: 'Holder' });
    await untilCondition(reg, holder.metadata.name, 'Established', 'True');
    const refused = await createCrd(reg, { group, plural: 'others', kind: 'Holder', listKind: 'OtherList' });
    await untilCondition(reg, refused.metadata.name, 'NamesAccepted', 'False', 'KindConflict');
    await crdStore(reg).delete(testContext(), '', refused.metadata.name, { dryRun: false });
    await until(async () => (await getCrd(reg, refused.metadata.name)) === undefined, 'the CRD to be gone');
  } finally {
    controllers.stop();
  }
});

test('an established CRD whose resource is not served cannot be cleaned up: InstanceDeletionFailed, and it stays', async () => {
  const controllers = await startCrdControllers(reg);
  try {
    const crd = await createCrd(reg, { group: 'unserved.example.com', plural: 'ghosts', kind: 'Ghost' });
    await untilCondition(reg, crd.metadata.name, 'Established', 'True');
    await crdStore(reg).delete(testContext(), '', crd.metadata.name, { dryRun: false });
    const failed = await untilCondition(reg, crd.metadata.name, 'Terminating', 'True', 'InstanceDeletionFailed');
    assert.match(conditionOf(failed, 'Terminating')!.message!, /^could not list instances: unable to find a custom resource client for ghosts\.unserved\.example\.com: /);
    assert.deepEqual(failed.metadata.finalizers, [FINALIZER]);
  } finally {
    controllers.stop();
  }
});

test('a CRD named like a built-in resource never deletes the built-in objects stored under those names', async () => {
  const controllers = await startCrdControllers(reg);
  try {
    const roles = reg.store('roles', 'rbac.authorization.k8s.io');
    await roles.create(testContext(), 'default', { apiVersion: 'rbac.authorization.k8s.io/v1', kind: 'Role', metadata: { name: 'keep-me' }, rules: [] });
    const crd = await createCrd(reg, {
      group: 'rbac.authorization.k8s.io',
      plural: 'roles',
      kind: 'Role',
      annotations: { 'api-approved.kubernetes.io': 'unapproved, testing overlap' },
    });
    await untilCondition(reg, crd.metadata.name, 'Established', 'True');
    await crdStore(reg).delete(testContext(), '', crd.metadata.name, { dryRun: false });
    await until(async () => (await getCrd(reg, crd.metadata.name)) === undefined, 'the CRD to be gone');
    assert.equal((await roles.get(testContext(), 'default', 'keep-me')).object.metadata.name, 'keep-me');
  } finally {
    controllers.stop();
  }
});
