import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { after, before, describe, test } from 'node:test';
import type { StoredKubeObject } from '../../src/api/types.ts';
import { parseSelectors } from '../../src/registry/filter.ts';
import { configMaps } from '../../src/kinds/config-map.ts';
import { StorageError, type ObjectKey, type ResourceRef, type Storage, type WatchDelivery } from '../../src/storage/storage.ts';

/** A storage implementation under test, and the resource its objects are kept as. */
export interface StorageUnderTest {
  readonly storage: Storage;
  readonly ref: ResourceRef;
  close(): Promise<void>;
}

/** A ConfigMap as storage takes it (uid set, version left to storage). */
export function storedConfigMap(namespace: string, name: string, data: Record<string, string> = {}, labels?: Record<string, string>): StoredKubeObject {
  return {
    apiVersion: 'v1',
    kind: 'ConfigMap',
    metadata: { name, namespace, uid: randomUUID(), resourceVersion: '', ...(labels ? { labels } : {}) },
    data,
  };
}

/** Watches from a version and collects deliveries until `count` arrived (or 3 s pass). */
export async function collectWatch(storage: Storage, ref: ResourceRef, namespace: string, fromVersion: number, count: number, labelSelector?: string) {
  const events: WatchDelivery[] = [];
  let resolve!: () => void;
  const enough = new Promise<void>((r) => (resolve = r));
  const filter = labelSelector ? parseSelectors(configMaps, labelSelector).filter : undefined;
  const handle = await storage.watch(ref, { namespace, fromVersion, filter }, {
    onEvent: (ev) => {
      events.push(ev);
      if (events.length >= count) resolve();
    },
    onClose: () => resolve(),
  });
  return {
    events,
    done: Promise.race([enough, new Promise<void>((r) => setTimeout(r, 3000))]).then(() => handle.stop()),
  };
}

/**
 * The contract of `Storage` (src/storage/storage.ts), written once and run against every
 * implementation: writes with versions and preconditions, batching, lists at a version and in pages,
 * reads ahead of the store, watches from a version and through selectors.
 */
export function storageConformance(name: string, open: () => Promise<StorageUnderTest>): void {
  describe(`Storage contract: ${name}`, () => {
    let under: StorageUnderTest;
    let storage: Storage;
    let CM: ResourceRef;
    before(async () => {
      under = await open();
      storage = under.storage;
      CM = under.ref;
    });
    after(async () => {
      await under.close();
    });

    const key = (namespace: string, name: string): ObjectKey => ({ ...CM, namespace, name });

    const configMap = storedConfigMap;
    const collect = (namespace: string, fromVersion: number, count: number, labelSelector?: string) =>
      collectWatch(storage, CM, namespace, fromVersion, count, labelSelector);

    test('writes get increasing versions and conflicts are detected on the stored version', async () => {
      const a = await storage.create(key('s1', 'a'), configMap('s1', 'a', { v: '1' }));
      const b = await storage.create(key('s1', 'b'), configMap('s1', 'b'));
      assert.ok(b.resourceVersion > a.resourceVersion);
      assert.equal(a.object.metadata.resourceVersion, String(a.resourceVersion));

      await assert.rejects(storage.create(key('s1', 'a'), configMap('s1', 'a')), (e: unknown) => e instanceof StorageError && e.code === 'Exists');
      const updated = await storage.update(key('s1', 'a'), { ...a.object, data: { v: '2' } }, a.resourceVersion);
      await assert.rejects(
        storage.update(key('s1', 'a'), { ...a.object, data: { v: '3' } }, a.resourceVersion),
        (e: unknown) => e instanceof StorageError && e.code === 'Conflict' && e.current?.resourceVersion === updated.resourceVersion,
      );
      await assert.rejects(storage.delete(key('s1', 'missing')), (e: unknown) => e instanceof StorageError && e.code === 'NotFound');
      const deleted = await storage.delete(key('s1', 'a'), updated.resourceVersion);
      assert.ok(deleted.resourceVersion > updated.resourceVersion, 'a deletion has a version of its own');
      assert.equal(await storage.get(key('s1', 'a')), null);
    });

    test('concurrent writes are batched and still each get a distinct, ordered version', async () => {
      const results = await Promise.all(Array.from({ length: 50 }, (_, i) => storage.create(key('s2', `c${i}`), configMap('s2', `c${i}`))));
      const versions = results.map((r) => r.resourceVersion);
      assert.equal(new Set(versions).size, 50);
      const list = await storage.list(CM, { namespace: 's2' });
      assert.equal(list.items.length, 50);
      assert.equal(list.resourceVersion, Math.max(...versions));
    });

    test('a list at an exact version shows the state as it was then', async () => {
      await storage.create(key('s3', 'x'), configMap('s3', 'x', { v: 'old' }));
      const y = await storage.create(key('s3', 'y'), configMap('s3', 'y'));
      const snapshot = await storage.currentVersion();
      const x = await storage.get(key('s3', 'x'));
      await storage.update(key('s3', 'x'), { ...x!.object, data: { v: 'new' } });
      await storage.delete(key('s3', 'y'), y.resourceVersion);
      await storage.create(key('s3', 'z'), configMap('s3', 'z'));

      const then = await storage.list(CM, { namespace: 's3', exactVersion: snapshot });
      assert.equal(then.resourceVersion, snapshot);
      assert.deepEqual(then.items.map((t) => JSON.parse(t).metadata.name), ['x', 'y']);
      assert.equal(JSON.parse(then.items[0]).data.v, 'old');

      const now = await storage.list(CM, { namespace: 's3' });
      assert.deepEqual(now.items.map((t) => JSON.parse(t).metadata.name), ['x', 'z']);
    });

    test('pages of one list share a snapshot and count what remains', async () => {
      for (let i = 0; i < 7; i++) await storage.create(key('s4', `p${i}`), configMap('s4', `p${i}`));
      const first = await storage.list(CM, { namespace: 's4', limit: 3, countRemaining: true });
      assert.equal(first.items.length, 3);
      assert.equal(first.remaining, 4);
      await storage.create(key('s4', 'p9'), configMap('s4', 'p9'));
      const second = await storage.list(CM, { namespace: 's4', limit: 3, after: first.next, exactVersion: first.resourceVersion, countRemaining: true });
      assert.deepEqual(second.items.map((t) => JSON.parse(t).metadata.name), ['p3', 'p4', 'p5']);
      assert.equal(second.remaining, 1, 'the object created after the snapshot is not counted');
      const last = await storage.list(CM, { namespace: 's4', limit: 3, after: second.next, exactVersion: first.resourceVersion, countRemaining: true });
      assert.deepEqual(last.items.map((t) => JSON.parse(t).metadata.name), ['p6']);
      assert.equal(last.next, undefined);
    });

    test('a read at a version the store has not reached fails after a short wait', async () => {
      const current = await storage.currentVersion();
      await assert.rejects(storage.list(CM, { minVersion: current + 1000 }), (e: unknown) => e instanceof StorageError && e.code === 'TooLargeVersion');
    });

    test('a watch replays history from a version, then continues live, without gaps or duplicates', async () => {
      const start = await storage.currentVersion();
      const a = await storage.create(key('s5', 'a'), configMap('s5', 'a'));
      const w = await collect('s5', start, 3);
      const b = await storage.update(key('s5', 'a'), { ...a.object, data: { k: 'v' } }, a.resourceVersion);
      await storage.delete(key('s5', 'a'), b.resourceVersion);
      await w.done;
      assert.deepEqual(w.events.map((e) => e.type), ['ADDED', 'MODIFIED', 'DELETED']);
      const versions = w.events.map((e) => e.resourceVersion);
      assert.deepEqual(versions, [...versions].sort((x, y) => x - y));
      assert.equal(w.events[2].object.metadata.resourceVersion, String(w.events[2].resourceVersion));
    });

    test('a selector turns objects entering it into ADDED and leaving it into DELETED', async () => {
      const start = await storage.currentVersion();
      const w = await collect('s6', start, 3, 'app=web');
      const o = await storage.create(key('s6', 'o'), configMap('s6', 'o', {}, { app: 'db' }));
      const o2 = await storage.update(key('s6', 'o'), { ...o.object, metadata: { ...o.object.metadata, labels: { app: 'web' } } });
      const o3 = await storage.update(key('s6', 'o'), { ...o2.object, data: { x: '1' } });
      await storage.update(key('s6', 'o'), { ...o3.object, metadata: { ...o3.object.metadata, labels: { app: 'db' } } });
      await w.done;
      assert.deepEqual(w.events.map((e) => e.type), ['ADDED', 'MODIFIED', 'DELETED']);
      assert.equal(w.events[2].object.metadata.labels?.app, 'web', 'the leaving event carries the last matching content');
    });

    test('ping answers while the store is up', async () => {
      await storage.ping();
    });
  });
}
