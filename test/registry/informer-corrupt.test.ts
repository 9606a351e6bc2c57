/**
 * The server's informers and rows that cannot be read (changed through SQL behind the server's
 * back): they leave such objects out, warn of each once, and keep running, so that the object can be
 * removed with the unsafe delete; a client's list of the same resource still fails. Registry and
 * storage on a real database, rows corrupted with SQL.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import pg from 'pg';
import pino from 'pino';
import { NO_ADMISSION } from '../../src/admission/chain.ts';
import type { StoredKubeObject } from '../../src/api/types.ts';
import { builtinKinds } from '../../src/kinds/index.ts';
import { ApiSurface } from '../../src/registry/api-surface.ts';
import { Informer } from '../../src/registry/informer.ts';
import { parseListQuery } from '../../src/registry/list-options.ts';
import type { ResourceStore, WatchHandle } from '../../src/registry/resource-store.ts';
import { deleteUnreadable } from '../../src/registry/unsafe-delete.ts';
import { migrateUp, openDatabase, type Database } from '../../src/storage/postgres/database.ts';
import { PostgresStorage } from '../../src/storage/postgres/postgres-storage.ts';
import { createTestDatabase, type TestDatabase } from '../helpers/database.ts';
import { eventually } from '../helpers/fixtures.ts';
import { testContext } from '../helpers/registry.ts';

const silent = pino({ level: 'silent' });
let testDb: TestDatabase;
let database: Database;
let storage: PostgresStorage;
let surface: ApiSurface;
/** A plain connection, as someone with psql would have. */
let sql: pg.Client;
const ctx = testContext();
const informers: Informer[] = [];

before(async () => {
  testDb = await createTestDatabase('pgkube_informer_corrupt');
  database = await openDatabase({ url: testDb.url, logger: silent });
  await migrateUp(database.db);
  storage = new PostgresStorage({ database, logger: silent, pollIntervalMs: 200 });
  await storage.start();
  surface = new ApiSurface(builtinKinds, storage, NO_ADMISSION);
  sql = new pg.Client({ connectionString: testDb.url });
  await sql.connect();
});

after(async () => {
  for (const informer of informers) informer.stop();
  await sql.end();
  await storage.close();
  await database.close();
  await testDb.drop();
});

const configMaps = (): ResourceStore => surface.storeFor('', 'configmaps');
let namespaceCount = 0;

async function namespaceWith(...names: string[]): Promise<string> {
  const ns = `informer-corrupt-${++namespaceCount}`;
  await surface.storeFor('', 'namespaces').create(ctx, '', { apiVersion: 'v1', kind: 'Namespace', metadata: { name: ns } });
  for (const name of names) await configMaps().create(ctx, ns, { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name }, data: { v: '1' } });
  return ns;
}

/** Replaces a ConfigMap row's object with `value` (JSON text), as a hand edit would; returns the row's version. */
async function corrupt(ns: string, name: string, value: string): Promise<number> {
  const res = await sql.query(
    `update objects set object = $3::jsonb where resource = 'configmaps' and namespace = $1 and name = $2 returning resource_version`,
    [ns, name, value],
  );
  assert.equal(res.rowCount, 1);
  return Number(res.rows[0].resource_version);
}

const DATA_NOT_A_MAP = 'json: cannot unmarshal number into Go struct field ConfigMap.data of type map[string]string';
const NOT_AN_OBJECT = 'json: cannot unmarshal string into Go value of type v1.ConfigMap';

interface Watched {
  readonly informer: Informer;
  /** What the handlers heard, in order. */
  readonly heard: string[];
  /** The informer's warnings. */
  readonly warnings: Record<string, unknown>[];
  /** The informer's watch handles, one per list (a test ends one as storage would). */
  readonly handles: WatchHandle[];
}

/** An informer over one namespace's ConfigMaps, started and synced, with its events, warnings and watches caught. */
async function watching(ns: string): Promise<Watched> {
  const warnings: Record<string, unknown>[] = [];
  const logger = pino({ level: 'warn' }, { write: (line: string) => void warnings.push(JSON.parse(line)) });
  const handles: WatchHandle[] = [];
  const store = configMaps();
  const spy = Object.create(store) as ResourceStore;
  spy.watch = async (...args: Parameters<ResourceStore['watch']>) => {
    const started = await store.watch(...args);
    if (started) handles.push(started.handle);
    return started;
  };
  const informer = new Informer(spy, { logger, namespace: ns, restartDelayMs: 20 });
  informers.push(informer);
  const heard: string[] = [];
  informer.on({
    added: (o: StoredKubeObject) => heard.push(`added ${o.metadata.name}`),
    updated: (o: StoredKubeObject) => heard.push(`updated ${o.metadata.name}`),
    deleted: (o: StoredKubeObject) => heard.push(`deleted ${o.metadata.name}`),
  });
  await informer.start();
  await informer.synced;
  return { informer, heard, warnings, handles };
}

/** Ends the informer's current watch (as an expired version would) and waits for its next list. */
async function relist(w: Watched): Promise<void> {
  const count = w.handles.length;
  w.handles.at(-1)!.stop();
  await eventually(async () => w.handles.length > count && w.informer.watching, 'the informer lists again');
}

const names = (w: Watched) => w.informer.list().map((o) => o.metadata.name).sort();
const leftOut = (w: Watched) => w.warnings.filter((l) => String(l.msg).startsWith('informer left out an object that cannot be read'));

describe('an informer over rows that cannot be read', () => {
  test('syncs without them, warns of each once with the decoder\'s reason, and keeps watching; a client\'s list still fails', async () => {
    const ns = await namespaceWith('a', 'b', 'c', 'd');
    const rvB = await corrupt(ns, 'b', '"garbage"');
    const rvD = await corrupt(ns, 'd', '{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"d"},"data":5}');

    const w = await watching(ns);
    assert.deepEqual(names(w), ['a', 'c']);
    assert.deepEqual(w.heard.sort(), ['added a', 'added c']);
    assert.deepEqual(
      leftOut(w).map(({ level, resource, key, resourceVersion, reason }) => ({ level, resource, key, resourceVersion, reason })),
      [
        { level: 40, resource: 'configmaps', key: `/registry/configmaps/${ns}/b`, resourceVersion: rvB, reason: NOT_AN_OBJECT },
        { level: 40, resource: 'configmaps', key: `/registry/configmaps/${ns}/d`, resourceVersion: rvD, reason: DATA_NOT_A_MAP },
      ],
    );

    // It watches as usual.
    w.heard.length = 0;
    await configMaps().create(ctx, ns, { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'e' } });
    await eventually(async () => w.heard.length === 1, 'the live change');
    assert.deepEqual(w.heard, ['added e']);

    // Its next list leaves them out again without warning again, and reports nothing as changed.
    w.heard.length = 0;
    await relist(w);
    assert.deepEqual(names(w), ['a', 'c', 'e']);
    assert.deepEqual(w.heard, []);
    assert.equal(leftOut(w).length, 2);

    // Clients are not spared: their list fails naming both, as before.
    await assert.rejects(configMaps().list(ctx, ns, parseListQuery(new URLSearchParams())), (err: { reason?: string; status?: { details?: { causes?: { field?: string }[] } } }) => {
      assert.equal(err.reason, 'StorageReadError');
      assert.deepEqual(err.status?.details?.causes?.map((c) => c.field), [`/registry/configmaps/${ns}/b`, `/registry/configmaps/${ns}/d`]);
      return true;
    });

    // Once one is repaired (rewritten as an object) the next list has it, and a later corruption is warned of anew.
    await corrupt(ns, 'b', JSON.stringify({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'b', namespace: ns, uid: '00000000-0000-0000-0000-0000000000b0', resourceVersion: String(rvB) } }));
    await relist(w);
    assert.deepEqual(names(w), ['a', 'b', 'c', 'e']);
    assert.deepEqual(w.heard, ['added b']);
    assert.equal(leftOut(w).length, 2);
    await corrupt(ns, 'b', '[]');
    await relist(w);
    assert.equal(leftOut(w).length, 3);
    assert.equal(leftOut(w)[2]!.key, `/registry/configmaps/${ns}/b`);
  });

  test('an object it knew that became unreadable is kept as last read until its unsafe deletion, which it reports', async () => {
    const ns = await namespaceWith('x', 'y');
    const w = await watching(ns);
    w.heard.length = 0;

    // A hand edit reaches no watch (the server records changes of its own writes only): nothing changes.
    await corrupt(ns, 'y', '{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"y"},"data":5}');
    // The next list cannot read it: it is still there, so what was known of it stays, and nothing is reported deleted.
    await relist(w);
    assert.equal(leftOut(w).length, 1);
    assert.deepEqual(names(w), ['x', 'y']);
    assert.deepEqual(w.informer.get(ns, 'y')?.data, { v: '1' });
    assert.deepEqual(w.heard, []);

    // The unsafe delete ends the informer's watch (its change cannot be read); the informer lists again and reports it gone.
    const watches = w.handles.length;
    await deleteUnreadable(configMaps(), ctx, ns, 'y', { dryRun: false, ignoreStoreReadErrorWithClusterBreakingPotential: true });
    await eventually(async () => w.heard.length === 1, 'the deletion');
    assert.deepEqual(w.heard, ['deleted y']);
    assert.ok(w.handles.length > watches, 'a new watch');
    assert.deepEqual(names(w), ['x']);

    w.heard.length = 0;
    await configMaps().create(ctx, ns, { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'z' } });
    await eventually(async () => w.heard.length === 1, 'the live change');
    assert.deepEqual(w.heard, ['added z']);
  });

  test('a change whose object is no object (recorded by hand) does not end it: it lists again and goes on', async () => {
    const ns = await namespaceWith('p');
    const w = await watching(ns);
    w.heard.length = 0;
    const watches = w.handles.length;
    // A hand edit of history, announced as the server announces its changes.
    await sql.query(
      `with v as (select nextval('resource_version_seq') as rv)
       insert into history (resource_version, api_group, resource, namespace, name, event_type, object, previous)
       select rv, '', 'configmaps', $1, 'q', 'ADDED', '"garbage"'::jsonb, null from v`,
      [ns],
    );
    await sql.query(`select pg_notify('kube_changes', (select max(resource_version) from history)::text)`);
    await eventually(async () => w.handles.length > watches && w.informer.watching, 'a new watch');
    assert.ok(w.warnings.some((l) => l.msg === 'informer could not take a watch event; listing again'));
    assert.deepEqual(names(w), ['p']);

    await configMaps().create(ctx, ns, { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'r' } });
    await eventually(async () => w.heard.includes('added r'), 'the live change');
    assert.deepEqual(w.heard, ['added r']);
  });
});
