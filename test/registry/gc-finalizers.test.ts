/**
 * The finalizers a delete leaves for the garbage collector, as upstream's generic store (and
 * namespace storage) decide them: the rules alone, then the store's delete path on real storage
 * (no collector runs here, so what a delete leaves stays to be looked at).
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { KubeObject } from '../../src/api/types.ts';
import { parseDeleteOptions, type DeleteOptions } from '../../src/registry/delete-options.ts';
import { deletionFinalizersForGarbageCollection, namespaceDeletionFinalizers } from '../../src/registry/gc-finalizers.ts';
import { ApiError } from '../../src/api/errors.ts';
import { openTestRegistry, testContext, type TestRegistry } from '../helpers/registry.ts';

const obj = (finalizers?: string[], deletionTimestamp?: string): KubeObject => ({ metadata: { name: 'x', ...(finalizers ? { finalizers } : {}), ...(deletionTimestamp ? { deletionTimestamp } : {}) } });
const opts = (o: Partial<DeleteOptions> = {}): DeleteOptions => ({ dryRun: false, ...o });

describe('the generic rule', () => {
  test('Background with no collector finalizer changes nothing; Foreground and Orphan add theirs, after the others', () => {
    assert.equal(deletionFinalizersForGarbageCollection(obj(), opts()), undefined);
    assert.equal(deletionFinalizersForGarbageCollection(obj(['a']), opts({ propagationPolicy: 'Background' })), undefined);
    assert.deepEqual(deletionFinalizersForGarbageCollection(obj(['a']), opts({ propagationPolicy: 'Foreground' })), ['a', 'foregroundDeletion']);
    assert.deepEqual(deletionFinalizersForGarbageCollection(obj(['a']), opts({ propagationPolicy: 'Orphan' })), ['a', 'orphan']);
  });

  test('an explicit policy replaces the collector finalizer already there; none named keeps it', () => {
    assert.deepEqual(deletionFinalizersForGarbageCollection(obj(['orphan', 'a']), opts({ propagationPolicy: 'Foreground' })), ['a', 'foregroundDeletion']);
    assert.deepEqual(deletionFinalizersForGarbageCollection(obj(['foregroundDeletion']), opts({ propagationPolicy: 'Background' })), []);
    assert.equal(deletionFinalizersForGarbageCollection(obj(['foregroundDeletion']), opts()), undefined);
    assert.equal(deletionFinalizersForGarbageCollection(obj(['orphan']), opts()), undefined);
  });

  test('orphanDependents: true orphans, false is background (neither finalizer)', () => {
    assert.deepEqual(deletionFinalizersForGarbageCollection(obj(), opts({ orphanDependents: true })), ['orphan']);
    assert.equal(deletionFinalizersForGarbageCollection(obj(), opts({ orphanDependents: false })), undefined);
    assert.deepEqual(deletionFinalizersForGarbageCollection(obj(['foregroundDeletion']), opts({ orphanDependents: false })), []);
  });

  test('the same finalizers in another order are no change', () => {
    assert.equal(deletionFinalizersForGarbageCollection(obj(['orphan', 'a']), opts({ propagationPolicy: 'Orphan' })), undefined);
  });
});

describe('orphanDependents as a query parameter', () => {
  test('read as upstream\'s parameter codec: absent unset, false or 0 false, anything else true; the body wins', () => {
    const read = (q: string, body?: unknown) => parseDeleteOptions(new URLSearchParams(q), body).orphanDependents;
    assert.equal(read(''), undefined);
    assert.equal(read('orphanDependents=true'), true);
    assert.equal(read('orphanDependents'), true);
    assert.equal(read('orphanDependents=1'), true);
    assert.equal(read('orphanDependents=FALSE'), false);
    assert.equal(read('orphanDependents=0'), false);
    assert.equal(read('orphanDependents=true', { orphanDependents: false }), false);
  });
});

describe('the namespace rule (its first delete)', () => {
  test('orphanDependents=false means foreground there; a policy names its finalizer; nothing named keeps them', () => {
    assert.deepEqual(namespaceDeletionFinalizers(obj(), opts({ orphanDependents: false })), ['foregroundDeletion']);
    assert.deepEqual(namespaceDeletionFinalizers(obj(), opts({ orphanDependents: true })), ['orphan']);
    assert.deepEqual(namespaceDeletionFinalizers(obj(['orphan']), opts({ propagationPolicy: 'Foreground' })), ['foregroundDeletion']);
    assert.equal(namespaceDeletionFinalizers(obj(['orphan']), opts()), undefined);
    assert.equal(namespaceDeletionFinalizers(obj(), opts({ propagationPolicy: 'Background' })), undefined);
  });
});

describe('the store delete path', () => {
  let reg: TestRegistry;
  before(async () => {
    reg = await openTestRegistry();
  });
  after(async () => {
    await reg?.close();
  });
  const ctx = () => testContext();
  const configMaps = () => reg.store('configmaps');
  const make = (name: string, metadata: Record<string, unknown> = {}) => configMaps().create(ctx(), 'default', { metadata: { name, ...metadata } });
  const get = async (name: string) => (await configMaps().get(ctx(), 'default', name)).object;
  const absent = async (name: string) => assert.rejects(configMaps().get(ctx(), 'default', name), (err) => err instanceof ApiError && err.code === 404);

  test('Background without finalizers removes the object at once', async () => {
    await make('bg');
    const outcome = await configMaps().delete(ctx(), 'default', 'bg', opts({ propagationPolicy: 'Background' }));
    assert.equal(outcome.gone, true);
    await absent('bg');
  });

  test('Foreground marks the object (deletionTimestamp, grace 0, foregroundDeletion) and keeps it', async () => {
    await make('fg');
    const outcome = await configMaps().delete(ctx(), 'default', 'fg', opts({ propagationPolicy: 'Foreground' }));
    assert.equal(outcome.gone, false);
    const stored = await get('fg');
    assert.deepEqual(stored.metadata.finalizers, ['foregroundDeletion']);
    assert.ok(stored.metadata.deletionTimestamp);
    assert.equal(stored.metadata.deletionGracePeriodSeconds, 0);
  });

  test('a later delete swaps the collector finalizer; Background on an object held only by one removes it', async () => {
    await make('swap');
    await configMaps().delete(ctx(), 'default', 'swap', opts({ propagationPolicy: 'Foreground' }));
    const first = await get('swap');
    await configMaps().delete(ctx(), 'default', 'swap', opts({ propagationPolicy: 'Orphan' }));
    const second = await get('swap');
    assert.deepEqual(second.metadata.finalizers, ['orphan']);
    assert.equal(second.metadata.deletionTimestamp, first.metadata.deletionTimestamp, 'the deletion keeps its start');
    // A delete that names no policy changes nothing and writes nothing.
    await configMaps().delete(ctx(), 'default', 'swap', opts());
    assert.equal((await get('swap')).metadata.resourceVersion, second.metadata.resourceVersion);
    const outcome = await configMaps().delete(ctx(), 'default', 'swap', opts({ propagationPolicy: 'Background' }));
    assert.equal(outcome.gone, true);
    await absent('swap');
  });

  test('other finalizers stay beside the collector\'s; dry run changes nothing', async () => {
    await make('dry', { finalizers: ['example.com/x'] });
    const outcome = await configMaps().delete(testContext({ dryRun: true }), 'default', 'dry', opts({ dryRun: true, propagationPolicy: 'Orphan' }));
    assert.deepEqual(outcome.object.object.metadata.finalizers, ['example.com/x', 'orphan']);
    assert.equal((await get('dry')).metadata.finalizers?.length, 1);
    await configMaps().delete(ctx(), 'default', 'dry', opts({ orphanDependents: true }));
    assert.deepEqual((await get('dry')).metadata.finalizers, ['example.com/x', 'orphan']);
  });

  test('marking a generation-tracking object for deletion bumps its generation, as upstream\'s markAsDeleting', async () => {
    const policies = reg.store('networkpolicies', 'networking.k8s.io');
    await policies.create(ctx(), 'default', { metadata: { name: 'np' }, spec: { podSelector: {} } });
    assert.equal((await policies.get(ctx(), 'default', 'np')).object.metadata.generation, 1);
    await policies.delete(ctx(), 'default', 'np', opts({ propagationPolicy: 'Foreground' }));
    const marked = (await policies.get(ctx(), 'default', 'np')).object;
    assert.equal(marked.metadata.generation, 2);
    assert.deepEqual(marked.metadata.finalizers, ['foregroundDeletion']);
  });

  test('a pod on a node gets its grace period and the collector finalizer in one write', async () => {
    const pods = reg.store('pods');
    await pods.create(ctx(), 'default', { metadata: { name: 'p' }, spec: { nodeName: 'n1', containers: [{ name: 'c', image: 'nginx' }] } });
    const outcome = await pods.delete(ctx(), 'default', 'p', opts({ propagationPolicy: 'Orphan' }));
    assert.equal(outcome.gone, false);
    const marked = (await pods.get(ctx(), 'default', 'p')).object;
    assert.equal(marked.metadata.deletionGracePeriodSeconds, 30);
    assert.deepEqual(marked.metadata.finalizers, ['orphan']);
  });

  test('a namespace: orphanDependents=false on its first delete means foreground; while spec.finalizers hold it, later deletes change nothing', async () => {
    const namespaces = reg.store('namespaces');
    await namespaces.create(ctx(), '', { metadata: { name: 'gc-ns' } });
    await namespaces.delete(ctx(), '', 'gc-ns', opts({ orphanDependents: false }));
    const first = (await namespaces.get(ctx(), '', 'gc-ns')).object;
    assert.deepEqual(first.metadata.finalizers, ['foregroundDeletion']);
    await namespaces.delete(ctx(), '', 'gc-ns', opts({ propagationPolicy: 'Orphan' }));
    assert.deepEqual((await namespaces.get(ctx(), '', 'gc-ns')).object.metadata.finalizers, ['foregroundDeletion']);
  });
});
