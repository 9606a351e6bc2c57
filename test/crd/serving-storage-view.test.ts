import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { after, before, test } from 'node:test';
import type { KubeObject, StoredKubeObject } from '../../src/api/types.ts';
import { configMaps } from '../../src/kinds/config-map.ts';
import type { KindDefinition } from '../../src/registry/kind.ts';
import { storageFor, type AsyncStorageMapping } from '../../src/registry/storage-view.ts';
import type { WatchDelivery } from '../../src/storage/storage.ts';
import { crdServable, crdTerminating } from '../../src/crd/serving/crd-serving.ts';
import { openTestRegistry, type TestRegistry } from '../helpers/registry.ts';

let reg: TestRegistry;
before(async () => {
  reg = await openTestRegistry();
});
after(async () => {
  await reg.close();
});

const configMap = (name: string, n: number): StoredKubeObject => ({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name, namespace: 'default', uid: randomUUID(), resourceVersion: '' }, data: { n: String(n) } });
const key = (name: string) => ({ group: '', resource: 'configmaps', namespace: 'default', name });

/** A view of ConfigMaps as `example.com/v9 Mapped`, its conversion delayed per object by `delayOf`. */
function mappedView(delayOf: (o: KubeObject) => number, calls: number[] = [], fail?: (o: KubeObject) => boolean, deterministic = false) {
  const mapping: AsyncStorageMapping = {
    deterministic,
    group: '',
    resource: 'configmaps',
    toStorage: (o) => ({ ...o, apiVersion: 'v1', kind: 'ConfigMap' }),
    fromStorage: (o) => ({ ...o, apiVersion: 'example.com/v9', kind: 'Mapped' }),
    toStorageAsync: async (o) => ({ ...o, apiVersion: 'v1', kind: 'ConfigMap' }),
    fromStorageAsync: async (objs) => {
      calls.push(objs.length);
      await new Promise((r) => setTimeout(r, Math.max(...objs.map(delayOf), 0)));
      if (fail && objs.some(fail)) throw new Error('conversion failed');
      return objs.map((o) => ({ ...o, apiVersion: 'example.com/v9', kind: 'Mapped' }));
    },
  };
  const kind: KindDefinition = { ...configMaps, group: 'example.com', version: 'v9', kind: 'Mapped', plural: 'mappeds', storage: mapping };
  return storageFor(kind, reg.storage);
}

test('upstream serves a CRD once NamesAccepted or Established is True; Terminating is its own condition', () => {
  const withConditions = (c: Record<string, string>) => ({ status: { conditions: Object.entries(c).map(([type, status]) => ({ type, status })) } });
  assert.equal(crdServable(withConditions({ NamesAccepted: 'True' })), true);
  assert.equal(crdServable(withConditions({ NamesAccepted: 'False', Established: 'True' })), true);
  assert.equal(crdServable(withConditions({ NamesAccepted: 'False', Established: 'False' })), false);
  assert.equal(crdServable({}), false);
  assert.equal(crdTerminating(withConditions({ Established: 'True', Terminating: 'True' })), true);
  assert.equal(crdTerminating(withConditions({ Established: 'True' })), false);
});

test('a list converts its items in one call, in order', async () => {
  for (let i = 0; i < 3; i++) await reg.storage.create(key(`list-${i}`), configMap(`list-${i}`, i));
  const calls: number[] = [];
  const view = mappedView(() => 0, calls);
  const page = await view.list({ group: '', resource: 'configmaps' }, { namespace: 'default' });
  const items = page.items.map((t) => JSON.parse(t)).filter((o) => o.metadata.name.startsWith('list-'));
  assert.deepEqual(items.map((o) => [o.metadata.name, o.apiVersion]), [0, 1, 2].map((i) => [`list-${i}`, 'example.com/v9']));
  assert.deepEqual(calls, [page.items.length]);
  const cursor = await view.openList({ group: '', resource: 'configmaps' }, { namespace: 'default' });
  const batch = await cursor.next();
  await cursor.close();
  assert.ok(batch.every((t) => JSON.parse(t).kind === 'Mapped'));
});

test('a deterministic mapping converts a stored text once: later lists serve the same texts again and convert only what changed', async () => {
  for (let i = 0; i < 3; i++) await reg.storage.create(key(`memo-${i}`), configMap(`memo-${i}`, i));
  const mine = (texts: readonly string[]) => texts.map((t) => JSON.parse(t)).filter((o) => o.metadata.name.startsWith('memo-'));
  for (const deterministic of [true, false]) {
    const calls: number[] = [];
    const view = mappedView(() => 0, calls, undefined, deterministic);
    const first = await view.list({ group: '', resource: 'configmaps' }, { namespace: 'default' });
    const again = await view.list({ group: '', resource: 'configmaps' }, { namespace: 'default' });
    assert.deepEqual(again.items, first.items, 'the same texts, in the same order');
    assert.deepEqual(calls, deterministic ? [first.items.length] : [first.items.length, first.items.length]);
    // A changed object is a new stored text: converted (alone), and served as it is now.
    const current = (await reg.storage.get(key('memo-1')))!;
    await reg.storage.update(key('memo-1'), { ...current.object, data: { n: `changed-${deterministic}` } }, current.resourceVersion);
    calls.length = 0;
    const cursor = await view.openList({ group: '', resource: 'configmaps' }, { namespace: 'default' });
    const batch = await cursor.next();
    await cursor.close();
    assert.deepEqual(calls, deterministic ? [1] : [batch.length]);
    assert.deepEqual(
      mine(batch).map((o) => [o.metadata.name, o.apiVersion, o.data.n]),
      [['memo-0', 'example.com/v9', '0'], ['memo-1', 'example.com/v9', `changed-${deterministic}`], ['memo-2', 'example.com/v9', '2']],
    );
  }
});

test('watch events come in the order of the changes even when later conversions finish first; bookmarks never pass them', async () => {
  const from = await reg.storage.currentVersion();
  // The first change converts slowest.
  const view = mappedView((o) => (o.metadata?.name === 'w-0' ? 300 : 10));
  const seen: WatchDelivery[] = [];
  let versionWhileWaiting = -1;
  const handle = await view.watch({ group: '', resource: 'configmaps' }, { namespace: 'default', fromVersion: from }, {
    onEvent: (ev) => void seen.push(ev),
    onClose: () => undefined,
  });
  try {
    const written: number[] = [];
    for (let i = 0; i < 4; i++) written.push((await reg.storage.create(key(`w-${i}`), configMap(`w-${i}`, i))).resourceVersion);
    await new Promise((r) => setTimeout(r, 100));
    // w-0 is still converting: nothing delivered, and the handle does not claim a version past it.
    versionWhileWaiting = handle.currentVersion();
    assert.equal(seen.length, 0);
    assert.ok(versionWhileWaiting < written[0]!, `bookmark version ${versionWhileWaiting} passes ${written[0]}`);
    const deadline = Date.now() + 3000;
    while (seen.length < 4 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 20));
    assert.deepEqual(seen.map((e) => [e.object.metadata.name, e.object.kind]), [0, 1, 2, 3].map((i) => [`w-${i}`, 'Mapped']));
    assert.deepEqual(seen.map((e) => e.resourceVersion), written);
    assert.equal(handle.currentVersion(), written[3]);
  } finally {
    handle.stop();
  }
});

test('a change that fails to convert ends the watch after the changes before it', async () => {
  const from = await reg.storage.currentVersion();
  const view = mappedView(() => 0, [], (o) => o.metadata?.name === 'bad-1');
  const seen: string[] = [];
  let closed: string | undefined;
  const handle = await view.watch({ group: '', resource: 'configmaps' }, { namespace: 'default', fromVersion: from }, {
    onEvent: (ev) => void seen.push(ev.object.metadata.name),
    onClose: (reason) => void (closed = reason),
  });
  try {
    for (let i = 0; i < 3; i++) await reg.storage.create(key(`bad-${i}`), configMap(`bad-${i}`, i));
    const deadline = Date.now() + 3000;
    while (!closed && Date.now() < deadline) await new Promise((r) => setTimeout(r, 20));
    assert.equal(closed, 'stopped');
    assert.deepEqual(seen, ['bad-0']);
  } finally {
    handle.stop();
  }
});

test('writes go through the async conversion both ways', async () => {
  const view = mappedView(() => 0);
  const stored = await view.create(key('rw'), { apiVersion: 'example.com/v9', kind: 'Mapped', metadata: { name: 'rw', namespace: 'default', uid: randomUUID() }, data: { a: 'b' } } as unknown as StoredKubeObject);
  assert.equal(stored.object.kind, 'Mapped');
  const raw = await reg.storage.get(key('rw'));
  assert.equal(raw?.object.kind, 'ConfigMap');
});

test("a view's ping gives the storage its time limit (the health checks' and ComponentStatus's timeout)", async () => {
  const asked: (number | undefined)[] = [];
  const recording = Object.create(reg.storage, {
    ping: { value: (timeoutMs?: number) => (asked.push(timeoutMs), reg.storage.ping(timeoutMs)) },
  }) as typeof reg.storage;
  const kind: KindDefinition = { ...configMaps, group: 'example.com', version: 'v9', kind: 'Mapped', plural: 'mappeds', storage: { group: '', resource: 'configmaps', toStorage: (o) => o, fromStorage: (o) => o } };
  await storageFor(kind, recording).ping(1500);
  assert.deepEqual(asked, [1500]);
});
