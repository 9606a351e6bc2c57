/**
 * Custom resource kinds served while the controllers run (added to the API surface after they
 * started) are collected like built-in ones: the garbage collector deletes a custom resource whose
 * ConfigMap owner goes, and the namespace controller empties a namespace of its custom resources.
 */
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { GarbageCollector } from '../../src/controllers/garbage-collector/garbage-collector.ts';
import { NamespaceController } from '../../src/controllers/namespace-controller.ts';
import { Informer } from '../../src/registry/informer.ts';
import type { ApiError } from '../../src/api/errors.ts';
import { openTestRegistry, testContext, type TestRegistry } from '../helpers/registry.ts';
import { logger, standInKind, until } from './crd-helpers.ts';
import { ownerRef } from './gc-helpers.ts';

let reg: TestRegistry;
let gc: GarbageCollector;
let namespaces: Informer;
let nsController: NamespaceController;

before(async () => {
  reg = await openTestRegistry();
  gc = new GarbageCollector(reg.surface, logger, { surfaceCheckMs: 50 });
  await gc.start();
  namespaces = new Informer(reg.store('namespaces'), { logger });
  await namespaces.start();
  nsController = new NamespaceController(reg.surface, namespaces, logger);
  nsController.start();
});

after(async () => {
  gc.stop();
  nsController.stop();
  namespaces.stop();
  await reg.close();
});

async function isGone(probe: () => Promise<unknown>): Promise<boolean> {
  try {
    await probe();
    return false;
  } catch (err) {
    return (err as ApiError).code === 404;
  }
}

test('a custom resource owned by a ConfigMap is garbage collected when the ConfigMap goes, its kind served after the collector started', async () => {
  const crs = reg.surface.add(standInKind('gc.example.com', 'crontabs', 'CronTab'));
  const configMaps = reg.store('configmaps');
  const owner = (await configMaps.create(testContext(), 'default', { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'owner' } })).object;
  const dependent = { apiVersion: 'gc.example.com/v1', kind: 'CronTab', metadata: { name: 'owned', ownerReferences: [ownerRef({ ...owner, apiVersion: 'v1', kind: 'ConfigMap' })] } };
  await crs.create(testContext(), 'default', dependent);
  // Let the collector's monitor of the new kind see the dependent before its owner goes.
  await new Promise((r) => setTimeout(r, 300));
  await configMaps.delete(testContext(), 'default', 'owner', { dryRun: false });
  await until(async () => isGone(() => crs.get(testContext(), 'default', 'owned')), 'the custom resource to be collected');
});

test('a ConfigMap owned by a custom resource goes when the custom resource goes', async () => {
  const crs = reg.surface.add(standInKind('owners.example.com', 'parents', 'Parent'));
  const parent = (await crs.create(testContext(), 'default', { apiVersion: 'owners.example.com/v1', kind: 'Parent', metadata: { name: 'parent' } })).object;
  const configMaps = reg.store('configmaps');
  await configMaps.create(testContext(), 'default', {
    apiVersion: 'v1',
    kind: 'ConfigMap',
    metadata: { name: 'child', ownerReferences: [ownerRef({ ...parent, apiVersion: 'owners.example.com/v1', kind: 'Parent' })] },
  });
  await new Promise((r) => setTimeout(r, 300));
  await crs.delete(testContext(), 'default', 'parent', { dryRun: false });
  await until(async () => isGone(() => configMaps.get(testContext(), 'default', 'child')), 'the ConfigMap to be collected');
});

test('a namespace holding custom resources (one with a finalizer) is deleted completely', async () => {
  const crs = reg.surface.add(standInKind('ns.example.com', 'widgets', 'Widget'));
  const nsStore = reg.store('namespaces');
  await nsStore.create(testContext(), '', { apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'with-crs' } });
  await crs.create(testContext(), 'with-crs', { apiVersion: 'ns.example.com/v1', kind: 'Widget', metadata: { name: 'a' } });
  await crs.create(testContext(), 'with-crs', { apiVersion: 'ns.example.com/v1', kind: 'Widget', metadata: { name: 'held', finalizers: ['example.com/hold'] } });
  await nsStore.delete(testContext(), '', 'with-crs', { dryRun: false });

  await until(async () => isGone(() => crs.get(testContext(), 'with-crs', 'a')), 'the free custom resource to go');
  const held = await until(async () => {
    const obj = (await crs.get(testContext(), 'with-crs', 'held')).object;
    return obj.metadata.deletionTimestamp ? obj : undefined;
  }, 'the held custom resource to be marked');
  assert.ok(held);
  // The namespace reports what holds it, then goes once the finalizer is removed.
  await until(async () => {
    const ns = (await nsStore.get(testContext(), '', 'with-crs')).object as { status?: { conditions?: { type: string; status: string; message?: string }[] } };
    const c = ns.status?.conditions?.find((x) => x.type === 'NamespaceContentRemaining');
    return c?.status === 'True' && c.message?.includes('widgets.ns.example.com has 1 resource instances');
  }, 'NamespaceContentRemaining to name the custom resource');
  await crs.update(testContext(), 'with-crs', 'held', { build: (cur) => ({ ...cur!, metadata: { ...cur!.metadata, finalizers: [] } }) });
  await until(async () => isGone(() => nsStore.get(testContext(), '', 'with-crs')), 'the namespace to be gone', 15_000);
});
