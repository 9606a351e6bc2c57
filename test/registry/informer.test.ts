import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import pino from 'pino';
import type { StoredKubeObject } from '../../src/api/types.ts';
import { Informer } from '../../src/registry/informer.ts';
import type { ResourceStore, WatchHandle } from '../../src/registry/resource-store.ts';
import { eventually } from '../helpers/fixtures.ts';
import { openTestRegistry, testContext, type TestRegistry } from '../helpers/registry.ts';

let registry: TestRegistry;
before(async () => {
  registry = await openTestRegistry();
});
after(async () => {
  await registry.close();
});

/** The store, with the informer's watch handles caught so that a test can end a watch as storage would. */
function spiedStore(handles: WatchHandle[]): ResourceStore {
  const store = registry.store('configmaps');
  const spy = Object.create(store) as ResourceStore;
  spy.watch = async (...args: Parameters<ResourceStore['watch']>) => {
    const started = await store.watch(...args);
    if (started) handles.push(started.handle);
    return started;
  };
  return spy;
}

const cm = (name: string, team: string) => ({ metadata: { name, labels: { team } }, data: { v: '1' } });

test('lists, watches, indexes, and lists again after its watch ends, reporting what changed meanwhile', async () => {
  const configmaps = registry.store('configmaps');
  await configmaps.create(testContext(), 'default', cm('one', 'a'));
  await configmaps.create(testContext(), 'default', cm('two', 'b'));

  const handles: WatchHandle[] = [];
  const informer = new Informer(spiedStore(handles), {
    logger: pino({ level: 'silent' }),
    namespace: 'default',
    index: (o) => [o.metadata.labels?.team ?? ''],
    restartDelayMs: 50,
  });
  const seen: string[] = [];
  informer.on({
    added: (o: StoredKubeObject) => seen.push(`added ${o.metadata.name}`),
    updated: (o: StoredKubeObject, old: StoredKubeObject) => seen.push(`updated ${o.metadata.name} ${(old.data as { v: string }).v}→${(o.data as { v: string }).v}`),
    deleted: (o: StoredKubeObject) => seen.push(`deleted ${o.metadata.name}`),
  });
  assert.equal(informer.hasSynced(), false);
  await informer.start();
  await informer.synced;
  assert.equal(informer.hasSynced(), true);
  assert.deepEqual(seen.sort(), ['added one', 'added two']);
  assert.deepEqual(informer.byIndex('a').map((o) => o.metadata.name), ['one']);

  // Live changes.
  seen.length = 0;
  await configmaps.create(testContext(), 'default', cm('three', 'a'));
  await configmaps.update(testContext(), 'default', 'one', { build: (c) => ({ ...c!, data: { v: '2' }, metadata: { ...c!.metadata, labels: { team: 'b' } } }) });
  await configmaps.delete(testContext(), 'default', 'two', { dryRun: false });
  await eventually(async () => seen.length === 3, 'three events');
  assert.deepEqual(seen, ['added three', 'updated one 1→2', 'deleted two']);
  assert.equal(informer.get('default', 'two'), undefined);
  assert.deepEqual(informer.byIndex('a').map((o) => o.metadata.name), ['three']);
  assert.deepEqual(informer.byIndex('b').map((o) => o.metadata.name), ['one']);

  // The watch ends (as on an expired version or a storage restart); changes made before the next list are reported by it.
  seen.length = 0;
  handles[0]!.stop();
  await configmaps.delete(testContext(), 'default', 'three', { dryRun: false });
  await configmaps.create(testContext(), 'default', cm('four', 'c'));
  await eventually(async () => handles.length === 2 && seen.length >= 2, 'a second watch and the differences');
  assert.deepEqual(seen.sort(), ['added four', 'deleted three']);
  assert.deepEqual(informer.list().map((o) => o.metadata.name).sort(), ['four', 'one']);
  assert.deepEqual(informer.byIndex('a'), []);

  // And it keeps watching.
  seen.length = 0;
  await configmaps.create(testContext(), 'default', cm('five', 'a'));
  await eventually(async () => seen.includes('added five'), 'an event on the new watch');
  informer.stop();
});
