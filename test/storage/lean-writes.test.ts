import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { after, before, test } from 'node:test';
import pino from 'pino';
import type { StoredKubeObject } from '../../src/api/types.ts';
import { migrateDown, migrateUp, type Database } from '../../src/storage/postgres/database.ts';
import { PostgresStorage } from '../../src/storage/postgres/postgres-storage.ts';
import { StorageError, type ObjectKey } from '../../src/storage/storage.ts';
import type { TestDatabase } from '../helpers/database.ts';
import { openTestStorage, type OpenedStorage } from '../helpers/storage.ts';

/**
 * The leaner write path (migrations/0005, PostgresStorage's answer text): the write function answers
 * a create or update with its version alone, reads a namespace once per batch, and the server
 * answers with the text it sent, the version put in.
 */
const logger = pino({ level: 'silent' });
let testDb: TestDatabase;
let database: Database;
let storage: PostgresStorage;

let opened: OpenedStorage;

before(async () => {
  opened = await openTestStorage('pgkube_lean_writes');
  ({ testDb, database, storage } = opened);
});

after(() => opened.close());

interface Row {
  idx: number;
  outcome: string;
  resource_version: string | null;
  object: string | null;
}

/** One kube_write_batch call: the ops are one batch, one transaction, whatever the batcher would do. */
async function batch(ops: object[]): Promise<Row[]> {
  return (await database.pool.query<Row>('select idx, outcome, resource_version, object from kube_write_batch($1::jsonb)', [JSON.stringify(ops)])).rows;
}

function cm(ns: string, name: string, extra: Record<string, unknown> = {}): Record<string, unknown> {
  return { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name, namespace: ns, uid: randomUUID(), ...extra }, data: { k: 'v' } };
}

function nsObject(name: string, meta: Record<string, unknown> = {}): Record<string, unknown> {
  return { apiVersion: 'v1', kind: 'Namespace', metadata: { name, uid: randomUUID(), ...meta } };
}

const create = (ns: string, name: string, nsgate = true) => ({ op: 'create', g: '', r: 'configmaps', ns, n: name, nsgate, object: cm(ns, name) });

async function row(table: 'objects' | 'history', where: string, values: unknown[]): Promise<Record<string, unknown>[]> {
  return (await database.pool.query(`select * from ${table} where ${where}`, values)).rows;
}

test('a successful create or update answers with its version alone; a delete and every refusal still carry their object', async () => {
  const [created] = await batch([create('lean-a', 'one', false)]);
  assert.equal(created.outcome, 'ok');
  assert.equal(created.object, null);
  const rv = Number(created.resource_version);
  // What is stored (and what watchers read from history) carries the version, as before.
  const [obj] = await row('objects', `namespace = 'lean-a' and name = 'one'`, []);
  assert.equal((obj.object as StoredKubeObject).metadata.resourceVersion, String(rv));
  const [added] = await row('history', 'resource_version = $1', [rv]);
  assert.equal(added.event_type, 'ADDED');
  assert.deepEqual(added.object, obj.object);
  assert.equal(added.previous, null);

  const [exists] = await batch([create('lean-a', 'one', false)]);
  assert.equal(exists.outcome, 'exists');
  assert.equal(Number(exists.resource_version), rv);
  assert.deepEqual(JSON.parse(exists.object!), obj.object);

  const updatedObject = { ...cm('lean-a', 'one'), data: { k: 'w' } };
  const [updated] = await batch([{ op: 'update', g: '', r: 'configmaps', ns: 'lean-a', n: 'one', rv: String(rv), object: updatedObject }]);
  assert.equal(updated.outcome, 'ok');
  assert.equal(updated.object, null);
  const [modified] = await row('history', 'resource_version = $1', [updated.resource_version]);
  assert.equal(modified.event_type, 'MODIFIED');
  assert.deepEqual(modified.previous, obj.object);

  const [conflict] = await batch([{ op: 'update', g: '', r: 'configmaps', ns: 'lean-a', n: 'one', rv: String(rv), object: updatedObject }]);
  assert.equal(conflict.outcome, 'conflict');
  assert.deepEqual((JSON.parse(conflict.object!) as { data: unknown }).data, { k: 'w' });

  const [deleted] = await batch([{ op: 'delete', g: '', r: 'configmaps', ns: 'lean-a', n: 'one' }]);
  assert.equal(deleted.outcome, 'ok');
  assert.equal((JSON.parse(deleted.object!) as StoredKubeObject).metadata.resourceVersion, deleted.resource_version);
});

test('the namespace gate is read once per batch, and again after the batch writes that namespace', async () => {
  await batch([{ op: 'create', g: '', r: 'namespaces', ns: '', n: 'lean-b', object: nsObject('lean-b') }]);
  const [ns] = await row('objects', `resource = 'namespaces' and name = 'lean-b'`, []);
  const terminating = nsObject('lean-b', { ...(ns.object as StoredKubeObject).metadata, deletionTimestamp: '2026-01-01T00:00:00Z' });
  // lean-b's gate is read by the second op and holds for the third; the namespace's own update must
  // make the fifth read it again.
  const rows = await batch([
    create('lean-missing', 'x'),
    create('lean-b', 'before'),
    create('lean-b', 'before-2'),
    { op: 'update', g: '', r: 'namespaces', ns: '', n: 'lean-b', object: terminating },
    create('lean-b', 'after'),
    create('lean-b', 'before'),
  ]);
  assert.deepEqual(
    rows.map((r) => r.outcome),
    ['namespace_missing', 'ok', 'ok', 'ok', 'namespace_terminating', 'exists'],
  );
  assert.equal((JSON.parse(rows[4].object!) as StoredKubeObject).metadata.deletionTimestamp, '2026-01-01T00:00:00Z');
  // An existing object is `exists` even in a terminating namespace, as before.
  assert.equal(Number(rows[5].resource_version), Number(rows[1].resource_version));
  assert.equal((await row('objects', `namespace = 'lean-b' and name = 'after'`, [])).length, 0);
  // Versions still rise in op order, and one history row per write that happened.
  const okVersions = rows.filter((r) => r.outcome === 'ok').map((r) => Number(r.resource_version));
  assert.deepEqual(okVersions, [...okVersions].sort((a, b) => a - b));
  for (const v of okVersions) assert.equal((await row('history', 'resource_version = $1', [v])).length, 1);
});

const key = (namespace: string, name: string): ObjectKey => ({ group: '', resource: 'configmaps', namespace, name });

function given(ns: string, name: string, data: Record<string, string>): StoredKubeObject {
  return { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name, namespace: ns, uid: randomUUID(), creationTimestamp: '2026-01-01T00:00:00Z' }, data } as unknown as StoredKubeObject;
}

test('the storage answers a create and an update with the text it sent, carrying the new version; no stand-in leaks', async () => {
  const object = given('lean-c', 'a', { k: 'v', tricky: '"resourceVersion":"x" \u00e9 \ud83d\ude00' });
  const created = await storage.create(key('lean-c', 'a'), object);
  const text = JSON.parse(created.text) as StoredKubeObject;
  assert.equal(text.metadata.resourceVersion, String(created.resourceVersion));
  assert.equal(created.object.metadata.resourceVersion, String(created.resourceVersion));
  const stored = await storage.get(key('lean-c', 'a'));
  assert.deepEqual(text, stored!.object, 'the answer is what a read returns');

  const next = { ...stored!.object, data: { k: 'w' } };
  const updated = await storage.update(key('lean-c', 'a'), next, stored!.resourceVersion);
  assert.ok(updated.resourceVersion > created.resourceVersion);
  assert.deepEqual(JSON.parse(updated.text), (await storage.get(key('lean-c', 'a')))!.object);

  // A refused write leaves the caller's object as it was (a retry starts from it).
  const again = given('lean-c', 'a', { k: 'z' });
  const before = structuredClone(again);
  await assert.rejects(storage.create(key('lean-c', 'a'), again), (e: unknown) => e instanceof StorageError && e.code === 'Exists');
  assert.deepEqual(again, before);
  const stale = { ...next, metadata: { ...next.metadata, resourceVersion: '1' } };
  const staleBefore = structuredClone(stale);
  await assert.rejects(storage.update(key('lean-c', 'a'), stale, 1), (e: unknown) => e instanceof StorageError && e.code === 'Conflict');
  assert.deepEqual(stale, staleBefore);

  const all = await database.pool.query(`select count(*)::int as n from history where object::text like '%pending-%' or previous::text like '%pending-%'`);
  assert.equal(all.rows[0].n, 0);
});

test('down to 0004 restores its write function (echoing objects), and up again applies 0005', async () => {
  const res = await migrateDown(database.db);
  assert.equal(res.error, undefined);
  assert.deepEqual(res.results?.map((r) => r.migrationName), ['0005-lean-write-function']);
  const [old] = await batch([create('lean-d', 'one', false)]);
  assert.equal(old.outcome, 'ok');
  assert.equal((JSON.parse(old.object!) as StoredKubeObject).metadata.resourceVersion, old.resource_version);
  const fns = await database.pool.query(`select proname from pg_proc where proname like 'kube_write_batch%' order by proname`);
  assert.deepEqual(fns.rows.map((r) => r.proname), ['kube_write_batch']);
  // The storage of this build still answers correctly on the older function (it uses the echoed text).
  const created = await storage.create(key('lean-d', 'two'), given('lean-d', 'two', { k: 'v' }));
  assert.equal(JSON.parse(created.text).metadata.resourceVersion, String(created.resourceVersion));

  const up = await migrateUp(database.db);
  assert.equal(up.error, undefined);
  const [neu] = await batch([create('lean-d', 'three', false)]);
  assert.equal(neu.object, null);
});
