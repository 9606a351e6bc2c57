/**
 * Rows that no longer decode (changed through SQL behind the server's back): reads meet them as
 * upstream's storage meets corrupt objects, and the unsafe delete removes them. Registry and storage
 * on a real database, rows corrupted with SQL.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import pg from 'pg';
import pino from 'pino';
import { NO_ADMISSION } from '../../src/admission/chain.ts';
import { ApiError } from '../../src/api/errors.ts';
import type { KubeObject } from '../../src/api/types.ts';
import { builtinKinds } from '../../src/kinds/index.ts';
import { ApiSurface } from '../../src/registry/api-surface.ts';
import { parseListQuery } from '../../src/registry/list-options.ts';
import type { ResourceStore } from '../../src/registry/resource-store.ts';
import { deleteUnreadable } from '../../src/registry/unsafe-delete.ts';
import { migrateUp, openDatabase, type Database } from '../../src/storage/postgres/database.ts';
import { PostgresStorage } from '../../src/storage/postgres/postgres-storage.ts';
import { StorageError } from '../../src/storage/storage.ts';
import { createTestDatabase, type TestDatabase } from '../helpers/database.ts';
import { testContext } from '../helpers/registry.ts';

const logger = pino({ level: 'silent' });
let testDb: TestDatabase;
let database: Database;
let storage: PostgresStorage;
let surface: ApiSurface;
/** A plain connection, as someone with psql would have. */
let sql: pg.Client;
const ctx = testContext();

before(async () => {
  testDb = await createTestDatabase('pgkube_corrupt');
  database = await openDatabase({ url: testDb.url, logger });
  await migrateUp(database.db);
  storage = new PostgresStorage({ database, logger, pollIntervalMs: 200, listCursor: { firstRows: 2, chunkBytes: 400, minRows: 1, maxRows: 3 } });
  await storage.start();
  surface = new ApiSurface(builtinKinds, storage, NO_ADMISSION);
  sql = new pg.Client({ connectionString: testDb.url });
  await sql.connect();
});

after(async () => {
  await sql.end();
  await storage.close();
  await database.close();
  await testDb.drop();
});

const configMaps = (): ResourceStore => surface.storeFor('', 'configmaps');
let namespaceCount = 0;

/** A fresh namespace with the named ConfigMaps in it. */
async function namespaceWith(...names: string[]): Promise<string> {
  const ns = `corrupt-${++namespaceCount}`;
  await surface.storeFor('', 'namespaces').create(ctx, '', { apiVersion: 'v1', kind: 'Namespace', metadata: { name: ns } });
  for (const name of names) await configMaps().create(ctx, ns, { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name }, data: { a: 'b' } });
  return ns;
}

/** Replaces a stored row's object with `value` (JSON text), as a hand edit would. */
async function corrupt(ns: string, name: string, value: string, resource = 'configmaps', group = ''): Promise<number> {
  const res = await sql.query(
    'update objects set object = $5::jsonb where api_group = $1 and resource = $2 and namespace = $3 and name = $4 returning resource_version',
    [group, resource, ns, name, value],
  );
  assert.equal(res.rowCount, 1, `no row ${resource}/${ns}/${name}`);
  return Number(res.rows[0].resource_version);
}

async function markedOutside(ns: string, name: string): Promise<boolean> {
  const res = await sql.query("select written_outside from objects where resource = 'configmaps' and namespace = $1 and name = $2", [ns, name]);
  return res.rows[0].written_outside;
}

/** The rejection of a promise (failing the test when it resolves). */
async function failure(p: Promise<unknown>): Promise<ApiError> {
  try {
    await p;
  } catch (err) {
    assert.ok(err instanceof ApiError, `expected an ApiError, got ${String(err)}`);
    return err;
  }
  assert.fail('expected a failure');
}

const listAll = (ns: string, query = '') => configMaps().list(ctx, ns, parseListQuery(new URLSearchParams(query)));

/** Reads a whole list through the cursor path (what an unpaged list request streams). */
async function streamAll(ns: string): Promise<string[]> {
  const cursor = await configMaps().openList(ctx, ns, parseListQuery(new URLSearchParams()));
  assert.ok(cursor);
  const items: string[] = [];
  try {
    for (let chunk = await cursor.next(); chunk.length > 0; chunk = await cursor.next()) items.push(...chunk);
  } finally {
    await cursor.close();
  }
  return items;
}

function corruptText(ns: string, name: string, rv: number, why: string): string {
  return `StorageError: corrupt object, Code: 7, Key: /registry/configmaps/${ns}/${name}, ResourceVersion: 0, AdditionalErrorMsg: object not decodable revision=${rv}: ${why}`;
}

const DATA_NOT_A_MAP = 'json: cannot unmarshal number into Go struct field ConfigMap.data of type map[string]string';

describe('rows changed outside the server', () => {
  test('are marked by the database; the server rewriting one clears the mark, its own writes never set it', async () => {
    const ns = await namespaceWith('a');
    assert.equal(await markedOutside(ns, 'a'), false);
    await sql.query(`update objects set object = jsonb_set(object, '{data,a}', '"c"') where namespace = $1 and name = 'a'`, [ns]);
    assert.equal(await markedOutside(ns, 'a'), true);
    // A hand edit that is still a ConfigMap reads as one.
    const got = await configMaps().get(ctx, ns, 'a');
    assert.deepEqual(got.object.data, { a: 'c' });
    assert.deepEqual(JSON.parse((await listAll(ns)).items[0]!).data, { a: 'c' });
    // Nor can it be cleared by hand.
    await sql.query(`update objects set written_outside = false where namespace = $1 and name = 'a'`, [ns]);
    assert.equal(await markedOutside(ns, 'a'), true);
    await configMaps().update(ctx, ns, 'a', { build: (cur) => ({ ...cur!, data: { a: 'd' } }) });
    assert.equal(await markedOutside(ns, 'a'), false);
    // A row inserted by hand is marked too.
    await sql.query(`insert into objects (api_group, resource, namespace, name, uid, resource_version, object)
      select api_group, resource, namespace, 'copy', gen_random_uuid(), resource_version, jsonb_set(object, '{metadata,name}', '"copy"') from objects where namespace = $1 and name = 'a'`, [ns]);
    assert.equal(await markedOutside(ns, 'copy'), true);
  });
});

describe('a row that does not decode', () => {
  test('a get answers 500 InternalError naming its key, version and the decoder\'s complaint', async () => {
    const ns = await namespaceWith('good', 'bad');
    const rv = await corrupt(ns, 'bad', '{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"bad"},"data":5}');
    const err = await failure(configMaps().get(ctx, ns, 'bad'));
    const text = corruptText(ns, 'bad', rv, DATA_NOT_A_MAP);
    assert.deepEqual(err.status, {
      kind: 'Status',
      apiVersion: 'v1',
      metadata: {},
      status: 'Failure',
      message: `Internal error occurred: ${text}`,
      reason: 'InternalError',
      details: { causes: [{ message: text }] },
      code: 500,
    });
    // Its neighbour reads as before.
    assert.deepEqual((await configMaps().get(ctx, ns, 'good')).object.data, { a: 'b' });
  });

  test('a list answers 500 StorageReadError naming every object it met, paged or streamed; other namespaces list', async () => {
    const ns = await namespaceWith('a', 'b', 'c', 'd', 'e');
    const rvB = await corrupt(ns, 'b', '"garbage"');
    const rvD = await corrupt(ns, 'd', '{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"d"},"data":5}');
    const expected = {
      kind: 'Status',
      apiVersion: 'v1',
      metadata: {},
      status: 'Failure',
      message: 'failed to read one or more configmaps from the storage',
      reason: 'StorageReadError',
      details: {
        name: 'list',
        kind: 'configmaps',
        causes: [
          {
            reason: 'UnexpectedServerResponse',
            message: corruptText(ns, 'b', rvB, 'json: cannot unmarshal string into Go value of type v1.ConfigMap'),
            field: `/registry/configmaps/${ns}/b`,
          },
          { reason: 'UnexpectedServerResponse', message: corruptText(ns, 'd', rvD, DATA_NOT_A_MAP), field: `/registry/configmaps/${ns}/d` },
        ],
      },
      code: 500,
    };
    assert.deepEqual((await failure(listAll(ns))).status, expected);
    assert.deepEqual((await failure(streamAll(ns))).status, expected);
    // Across namespaces too (with the corrupt objects of the other tests); a namespace without them lists.
    const everywhere = (await failure(configMaps().list(ctx, undefined, parseListQuery(new URLSearchParams())))).status.details!.causes!;
    for (const name of ['b', 'd']) assert.ok(everywhere.some((c) => c.field === `/registry/configmaps/${ns}/${name}`));
    const clean = await namespaceWith('x');
    assert.equal((await listAll(clean)).items.length, 1);
    assert.equal((await streamAll(clean)).length, 1);
  });

  test('a page meets only the rows up to its last one: the pages before a corrupt object list', async () => {
    const ns = await namespaceWith('a', 'b', 'c', 'd');
    await corrupt(ns, 'd', '[]');
    const first = await listAll(ns, 'limit=2');
    assert.deepEqual(first.items.map((t) => JSON.parse(t).metadata.name), ['a', 'b']);
    const err = await failure(listAll(ns, `limit=2&continue=${encodeURIComponent(first.continue!)}`));
    assert.equal(err.reason, 'StorageReadError');
    assert.deepEqual(err.status.details?.causes?.map((c) => c.field), [`/registry/configmaps/${ns}/d`]);
    // Watches start with a list: theirs fails the same way.
    const watching = configMaps().watch(ctx, ns, parseListQuery(new URLSearchParams('watch=1')), undefined, {
      event: () => true,
      room: () => undefined,
      closed: false,
      onClose: () => undefined,
    });
    assert.equal((await failure(watching)).reason, 'StorageReadError');
  });

  test('each way a row can fail to decode, in the decoder\'s words', async () => {
    const cases: [string, string][] = [
      ['"garbage"', 'json: cannot unmarshal string into Go value of type v1.ConfigMap'],
      ['[1,2]', 'json: cannot unmarshal array into Go value of type v1.ConfigMap'],
      ['{"apiVersion":"v1","metadata":{"name":"x"}}', "Object 'Kind' is missing in the stored data"],
      ['{"kind":"ConfigMap","metadata":{"name":"x"}}', "Object 'apiVersion' is missing in the stored data"],
      ['{"apiVersion":"v1","kind":"Secret","metadata":{"name":"x"}}', 'the stored object is v1, Kind=Secret, not v1, Kind=ConfigMap'],
      ['{"apiVersion":"v1","kind":"ConfigMap"}', 'object has no metadata'],
      ['{"apiVersion":"v1","kind":"ConfigMap","metadata":"x"}', 'json: cannot unmarshal string into Go struct field ConfigMap.metadata of type v1.ObjectMeta'],
      ['{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"x","labels":{"a":1}}}', 'json: cannot unmarshal number into Go struct field ObjectMeta.metadata.labels of type string'],
      ['{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"x","creationTimestamp":"yesterday"}}', 'parsing time "yesterday" as "2006-01-02T15:04:05Z07:00": cannot parse "yesterday" as "2006"'],
    ];
    const ns = await namespaceWith(...cases.map((_, i) => `c${i}`));
    for (const [i, [value, why]] of cases.entries()) {
      const rv = await corrupt(ns, `c${i}`, value);
      const err = await failure(configMaps().get(ctx, ns, `c${i}`));
      assert.equal(err.message, `Internal error occurred: ${corruptText(ns, `c${i}`, rv, why)}`, value);
    }
  });

  test('past 100 objects the list names 100 and says it was cut', async () => {
    const names = Array.from({ length: 102 }, (_, i) => `m${String(i).padStart(3, '0')}`);
    const ns = await namespaceWith(...names);
    await sql.query(`update objects set object = '1'::jsonb where resource = 'configmaps' and namespace = $1`, [ns]);
    const causes = (await failure(listAll(ns))).status.details!.causes!;
    assert.equal(causes.length, 101);
    assert.equal(causes[99]!.field, `/registry/configmaps/${ns}/m099`);
    assert.deepEqual(causes[100], { reason: 'FieldValueTooMany', message: 'too many errors, the list is truncated' });
  });

  test('updates and normal deletes of it answer the same 500, and change nothing', async () => {
    const ns = await namespaceWith('bad');
    const rv = await corrupt(ns, 'bad', '{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"bad"},"data":5}');
    const message = `Internal error occurred: ${corruptText(ns, 'bad', rv, DATA_NOT_A_MAP)}`;
    assert.equal((await failure(configMaps().update(ctx, ns, 'bad', { build: (cur) => ({ ...cur!, data: {} }) }))).message, message);
    assert.equal((await failure(configMaps().delete(ctx, ns, 'bad', { dryRun: false }))).message, message);
    assert.equal(await markedOutside(ns, 'bad'), true);
  });
});

const unsafe = { dryRun: false, ignoreStoreReadErrorWithClusterBreakingPotential: true };

describe('the unsafe delete', () => {
  test('is refused for an object that reads, and for one that does not exist (422, upstream\'s words)', async () => {
    const ns = await namespaceWith('fine');
    const detail = 'ignoreStoreReadErrorWithClusterBreakingPotential: Invalid value: true: is exclusively used to delete corrupt object(s), try again by removing this option';
    for (const name of ['fine', 'missing']) {
      const err = await failure(deleteUnreadable(configMaps(), ctx, ns, name, unsafe));
      assert.equal(err.code, 422);
      assert.equal(err.message, `configmaps "${name}" is invalid: ${detail}`);
      assert.deepEqual(err.status.details, {
        name,
        kind: 'configmaps',
        causes: [{ reason: 'FieldValueInvalid', message: detail.slice(detail.indexOf('Invalid value')), field: 'ignoreStoreReadErrorWithClusterBreakingPotential' }],
      });
    }
    assert.ok(await configMaps().get(ctx, ns, 'fine'));
  });

  test('removes a corrupt object, finalizers and all, without failing the writes batched with it; the list is healthy again', async () => {
    const ns = await namespaceWith('keep');
    await configMaps().create(ctx, ns, { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'held', finalizers: ['example.com/hold'] } });
    await corrupt(ns, 'held', '"not an object"');
    const result = await Promise.all([
      deleteUnreadable(configMaps(), ctx, ns, 'held', unsafe),
      ...Array.from({ length: 5 }, (_, i) => configMaps().create(ctx, ns, { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: `more-${i}` } })),
    ]);
    assert.deepEqual(result[0], { status: { kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Success', details: { name: 'held', kind: 'ConfigMap' }, code: 200 } });
    assert.equal((await failure(configMaps().get(ctx, ns, 'held'))).code, 404);
    assert.deepEqual((await listAll(ns)).items.map((t) => JSON.parse(t).metadata.name), ['keep', 'more-0', 'more-1', 'more-2', 'more-3', 'more-4']);
    // Its DELETED change records why it was not read.
    const change = await sql.query(`select event_type, unreadable from history where namespace = $1 and name = 'held' order by resource_version desc limit 1`, [ns]);
    assert.equal(change.rows[0].event_type, 'DELETED');
    assert.match(change.rows[0].unreadable, /^object not decodable revision=\d+: json: cannot unmarshal string into Go value of type v1\.ConfigMap$/);
  });

  test('ends the watches of the object with why; watches elsewhere go on', async () => {
    const ns = await namespaceWith('bad');
    const other = await namespaceWith();
    const from = await storage.currentVersion();
    const closes: { where: string; reason: string; detail?: string }[] = [];
    const events: string[] = [];
    const watch = (where: string, namespace: string, fromVersion: number) =>
      storage.watch({ group: '', resource: 'configmaps' }, { namespace, fromVersion }, {
        onEvent: (ev) => void events.push(`${where} ${ev.type} ${ev.object.metadata.name}`),
        onClose: (reason, detail) => void closes.push({ where, reason, detail }),
      });
    const live = await watch('live', ns, from);
    const elsewhere = await watch('elsewhere', other, from);
    const rv = await corrupt(ns, 'bad', '{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"bad"},"data":5}');
    await deleteUnreadable(configMaps(), ctx, ns, 'bad', unsafe);
    await configMaps().create(ctx, other, { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'after' } });
    for (let i = 0; i < 100 && (closes.length === 0 || events.length === 0); i++) await new Promise((r) => setTimeout(r, 20));
    const detail = `object not decodable revision=${rv}: ${DATA_NOT_A_MAP}`;
    assert.deepEqual(closes, [{ where: 'live', reason: 'unreadable', detail }]);
    assert.deepEqual(events, ['elsewhere ADDED after']);
    // A watch that starts before the deletion replays it, and ends the same way.
    const replay = await watch('replay', ns, from);
    assert.deepEqual(closes.at(-1), { where: 'replay', reason: 'unreadable', detail });
    for (const h of [live, elsewhere, replay]) h.stop();
  });

  test('a row that was rewritten meanwhile (readable again) is not removed', async () => {
    const ns = await namespaceWith('flip');
    await corrupt(ns, 'flip', '"x"');
    // The object is repaired between the check and the removal: the normal delete then does the work.
    const store = configMaps();
    const repaired = { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'flip', namespace: ns, uid: '00000000-0000-0000-0000-000000000001' }, data: {} } as KubeObject;
    const realDelete = store.delete.bind(store);
    store.delete = async (...args) => {
      await corrupt(ns, 'flip', JSON.stringify(repaired));
      return realDelete(...args);
    };
    try {
      const result = await deleteUnreadable(store, ctx, ns, 'flip', unsafe);
      assert.ok('outcome' in result && result.outcome.gone);
    } finally {
      delete (store as Partial<ResourceStore>).delete;
    }
  });

  test('storage refuses to remove a row that changed since it was read', async () => {
    const ns = await namespaceWith('moved');
    const rv = await corrupt(ns, 'moved', '"x"');
    const key = { group: '', resource: 'configmaps', namespace: ns, name: 'moved' };
    await assert.rejects(storage.deleteUnreadable(key, rv - 1, 'why'), (err) => err instanceof StorageError && err.code === 'Conflict');
    await assert.rejects(storage.deleteUnreadable({ ...key, name: 'nothing' }, rv, 'why'), (err) => err instanceof StorageError && err.code === 'NotFound');
    assert.ok((await storage.deleteUnreadable(key, rv, 'why')) > rv);
  });
});

describe('a list for the server\'s own informers (skipUnreadable)', () => {
  const ref = { group: '', resource: 'configmaps' };
  const namesOf = (items: readonly string[]) => items.map((t) => JSON.parse(t).metadata.name);

  test('leaves them out page by page, naming the ones of each page\'s range', async () => {
    const ns = await namespaceWith('a', 'b', 'c', 'd', 'e');
    const rvB = await corrupt(ns, 'b', '"garbage"');
    const rvD = await corrupt(ns, 'd', '{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"d"},"data":5}');
    const first = await storage.list(ref, { namespace: ns, limit: 2, skipUnreadable: true });
    assert.deepEqual(namesOf(first.items), ['a']);
    assert.deepEqual(first.next, { namespace: ns, name: 'b' });
    assert.deepEqual(first.unreadable, [
      { key: `/registry/configmaps/${ns}/b`, namespace: ns, name: 'b', resourceVersion: rvB, message: 'json: cannot unmarshal string into Go value of type v1.ConfigMap' },
    ]);
    const second = await storage.list(ref, { namespace: ns, limit: 2, after: first.next, exactVersion: first.resourceVersion, skipUnreadable: true });
    assert.deepEqual(namesOf(second.items), ['c']);
    assert.deepEqual(second.unreadable?.map((c) => [c.name, c.resourceVersion, c.message]), [['d', rvD, DATA_NOT_A_MAP]]);
    const last = await storage.list(ref, { namespace: ns, limit: 2, after: second.next, exactVersion: first.resourceVersion, skipUnreadable: true });
    assert.deepEqual(namesOf(last.items), ['e']);
    // No row after the last key was written outside: nothing was checked.
    assert.equal(last.unreadable, undefined);
    assert.equal(last.next, undefined);
    // Whole, and without the option the list fails as a client's does.
    assert.deepEqual(namesOf((await storage.list(ref, { namespace: ns, skipUnreadable: true })).items), ['a', 'c', 'e']);
    await assert.rejects(storage.list(ref, { namespace: ns }), (err) => err instanceof StorageError && err.code === 'Corrupt');
  });

  test('a streamed list leaves them out too, going on past chunks that were all left out', async () => {
    const ns = await namespaceWith('a', 'b', 'c', 'd', 'e', 'f', 'g');
    // Chunks here are 2 rows, then up to 3: the first and the second are all corrupt.
    for (const name of ['a', 'b', 'c', 'd', 'e']) await corrupt(ns, name, '1');
    const cursor = await storage.openList(ref, { namespace: ns, skipUnreadable: true });
    const items: string[] = [];
    try {
      for (let chunk = await cursor.next(); chunk.length > 0; chunk = await cursor.next()) items.push(...chunk);
    } finally {
      await cursor.close();
    }
    assert.deepEqual(namesOf(items), ['f', 'g']);
    assert.deepEqual(cursor.unreadable?.map((c) => c.name), ['a', 'b', 'c', 'd', 'e']);
    await assert.rejects(storage.openList(ref, { namespace: ns }), (err) => err instanceof StorageError && err.code === 'Corrupt');
  });

  test('lists without rows written outside carry no report', async () => {
    const ns = await namespaceWith('a');
    const result = await storage.list(ref, { namespace: ns, skipUnreadable: true });
    assert.equal(result.unreadable, undefined);
    const cursor = await storage.openList(ref, { namespace: ns, skipUnreadable: true });
    assert.equal(cursor.unreadable, undefined);
    await cursor.close();
  });
});

describe('a kind stored as another', () => {
  test('events.k8s.io Events meet the corrupt core Event they are stored as', async () => {
    const ns = await namespaceWith();
    await surface.storeFor('', 'events').create(ctx, ns, {
      apiVersion: 'v1',
      kind: 'Event',
      metadata: { name: 'ev' },
      involvedObject: { kind: 'Pod', name: 'p', namespace: ns },
      reason: 'R',
      message: 'm',
      type: 'Normal',
    });
    const rv = await corrupt(ns, 'ev', '{"apiVersion":"v1","kind":"Event","metadata":{"name":"ev"},"count":"many"}', 'events');
    const err = await failure(surface.storeFor('events.k8s.io', 'events').list(ctx, ns, parseListQuery(new URLSearchParams())));
    assert.equal(err.message, 'failed to read one or more events.events.k8s.io from the storage');
    assert.deepEqual(err.status.details?.causes, [
      {
        reason: 'UnexpectedServerResponse',
        message: `StorageError: corrupt object, Code: 7, Key: /registry/events/${ns}/ev, ResourceVersion: 0, AdditionalErrorMsg: object not decodable revision=${rv}: json: cannot unmarshal string into Go struct field Event.count of type int32`,
        field: `/registry/events/${ns}/ev`,
      },
    ]);
    const result = await deleteUnreadable(surface.storeFor('events.k8s.io', 'events'), ctx, ns, 'ev', unsafe);
    assert.deepEqual('status' in result && result.status.details, { name: 'ev', kind: 'Event' });
    assert.equal((await surface.storeFor('', 'events').list(ctx, ns, parseListQuery(new URLSearchParams()))).items.length, 0);
  });
});

describe('a resource no kind told storage about', () => {
  test('gets the structural check: an object with a metadata object', async () => {
    const key = { group: 'example.com', resource: 'widgets', namespace: '', name: 'w' };
    await storage.create(key, { apiVersion: 'example.com/v1', kind: 'Widget', metadata: { name: 'w', uid: '00000000-0000-0000-0000-00000000000a' } } as never);
    // Anything with a metadata object reads, whatever else it holds.
    await corrupt('', 'w', '{"metadata":{"name":"w"},"spec":5}', 'widgets', 'example.com');
    assert.ok(await storage.get(key));
    for (const [value, why] of [
      ['"w"', 'json: cannot unmarshal string into Go value of type map[string]interface {}'],
      ['{"spec":{}}', 'object has no metadata'],
      ['{"metadata":[]}', 'metadata is a JSON array, not an object'],
    ]) {
      const rv = await corrupt('', 'w', value!, 'widgets', 'example.com');
      await assert.rejects(storage.get(key), (err) => {
        assert.ok(err instanceof StorageError && err.code === 'Corrupt');
        assert.deepEqual(err.corrupt, [{ key: '/registry/example.com/widgets/w', namespace: '', name: 'w', resourceVersion: rv, message: why }]);
        return true;
      });
    }
  });
});
