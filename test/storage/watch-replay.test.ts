import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { after, before, test } from 'node:test';
import pino from 'pino';
import type { StoredKubeObject } from '../../src/api/types.ts';
import type { Database } from '../../src/storage/postgres/database.ts';
import { PostgresStorage } from '../../src/storage/postgres/postgres-storage.ts';
import type { ObjectKey, WatchCloseReason } from '../../src/storage/storage.ts';
import { openTestDatabase, until, type OpenedDatabase } from '../helpers/storage.ts';

const logger = pino({ level: 'silent' });
const CM = { group: '', resource: 'configmaps' };
const MAX_BUFFERED_BYTES = 64 * 1024;
let opened: OpenedDatabase;
let database: Database;
let storage: PostgresStorage;

before(async () => {
  opened = await openTestDatabase('pgkube_replay');
  database = opened.database;
  storage = new PostgresStorage({ database, logger, pollIntervalMs: 200, maxBufferedBytes: MAX_BUFFERED_BYTES });
  await storage.start();
});

after(async () => {
  await storage.close();
  await opened.close();
});

const key = (namespace: string, name: string): ObjectKey => ({ ...CM, namespace, name });
const configMap = (namespace: string, name: string, value = ''): StoredKubeObject => ({
  apiVersion: 'v1',
  kind: 'ConfigMap',
  metadata: { name, namespace, uid: randomUUID(), resourceVersion: '' },
  data: { k: value },
});

/** A gate the test opens by hand: the listener's room() while it is shut. */
function gate() {
  let open = false;
  let waiters: (() => void)[] = [];
  return {
    room: () => (open ? undefined : new Promise<void>((r) => waiters.push(r))),
    open: () => {
      open = true;
      for (const w of waiters.splice(0)) w();
    },
    waiting: () => waiters.length > 0,
  };
}

test('a replay waits for a consumer that asks for room, then continues live without gaps or repeats', async () => {
  const ns = 'replay-waits';
  const from = await storage.currentVersion();
  for (let i = 0; i < 5; i++) await storage.create(key(ns, `old-${i}`), configMap(ns, `old-${i}`));
  const g = gate();
  const names: string[] = [];
  const watching = storage.watch(CM, { namespace: ns, fromVersion: from }, {
    onEvent: (ev) => {
      names.push(ev.object.metadata.name);
    },
    onClose: () => undefined,
    room: g.room,
  });
  await until(() => g.waiting(), 'the replay to wait for room', 200);
  assert.deepEqual(names, ['old-0'], 'one change, then the replay waits');
  await storage.create(key(ns, 'live-0'), configMap(ns, 'live-0'));
  g.open();
  const handle = await watching;
  await storage.create(key(ns, 'live-1'), configMap(ns, 'live-1'));
  await until(() => names.length === 7, `all events (${names.join(', ')})`, 200);
  assert.deepEqual(names, ['old-0', 'old-1', 'old-2', 'old-3', 'old-4', 'live-0', 'live-1']);
  handle.stop();
});

test('live changes held while a replay waits are bounded by bytes: past the bound the watch is closed as too slow', async () => {
  const ns = 'replay-bounded';
  const from = await storage.currentVersion();
  await storage.create(key(ns, 'old-0'), configMap(ns, 'old-0'));
  await storage.create(key(ns, 'old-1'), configMap(ns, 'old-1'));
  const g = gate();
  let closedWith: WatchCloseReason | undefined;
  const watching = storage.watch(CM, { namespace: ns, fromVersion: from }, {
    onEvent: () => undefined,
    onClose: (reason) => (closedWith = reason),
    room: g.room,
  });
  await until(() => g.waiting(), 'the replay to wait for room', 200);
  // Few changes (far below the count bound), but more object text than the byte bound.
  const big = 'x'.repeat(MAX_BUFFERED_BYTES / 4);
  for (let i = 0; i < 6; i++) await storage.create(key(ns, `live-${i}`), configMap(ns, `live-${i}`, big));
  await until(() => closedWith !== undefined, 'the watch to be closed', 200);
  assert.equal(closedWith, 'slow');
  g.open();
  (await watching).stop();
});
