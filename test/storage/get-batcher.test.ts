import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { after, before, test } from 'node:test';
import pg from 'pg';
import pino from 'pino';
import type { Database } from '../../src/storage/postgres/database.ts';
import { GetBatcher, type StoredRow } from '../../src/storage/postgres/get-batcher.ts';
import { PreparedQueries } from '../../src/storage/postgres/prepared-queries.ts';
import { WriteBatcher } from '../../src/storage/postgres/write-batcher.ts';
import { StorageError, type ObjectKey } from '../../src/storage/storage.ts';
import { lockObjectsTable } from '../helpers/database.ts';
import { openTestDatabase, type OpenedDatabase } from '../helpers/storage.ts';

const logger = pino({ level: 'silent' });
let opened: OpenedDatabase;
let database: Database;
let writer: WriteBatcher;

before(async () => {
  opened = await openTestDatabase('pgkube_getbatch');
  database = opened.database;
  writer = new WriteBatcher(database.queries, { logger });
  // The same names in two namespaces and two resources: a batch must tell every part of a key apart.
  for (const ns of ['a', 'b']) {
    for (const [g, r] of [['', 'configmaps'], ['coordination.k8s.io', 'leases']]) {
      for (let i = 0; i < 20; i++) {
        const n = `obj-${i}`;
        const objectText = JSON.stringify({ metadata: { name: n, namespace: ns, uid: randomUUID() }, data: { where: `${g}/${r}/${ns}/${n}` } });
        const result = await writer.write({ op: 'create', g, r, ns, n, objectText });
        assert.equal(result.outcome, 'ok');
      }
    }
  }
});

after(async () => {
  await opened.close();
});

const key = (group: string, resource: string, namespace: string, name: string): ObjectKey => ({ group, resource, namespace, name });
const whereOf = (text: string | undefined) => (text === undefined ? undefined : (JSON.parse(text) as { data: { where: string } }).data.where);

test('gets that queue behind busy statements are read together, each answered with its own row or none', async () => {
  const batcher = new GetBatcher(database.queries, { maxInFlight: 1, maxBatchSize: 64 });
  const keys: ObjectKey[] = [];
  for (let i = 0; i < 25; i++) {
    keys.push(key(i % 2 ? '' : 'coordination.k8s.io', i % 2 ? 'configmaps' : 'leases', i % 3 ? 'a' : 'b', `obj-${i % 20}`));
  }
  keys.push(key('', 'configmaps', 'a', 'missing'), key('', 'configmaps', 'c', 'obj-1'), key('', 'secrets', 'a', 'obj-1'));
  const rows = await Promise.all(keys.map((k) => batcher.get(k)));
  rows.forEach((row, i) => {
    const k = keys[i];
    const expected = k.name.startsWith('obj-') && k.namespace !== 'c' && k.resource !== 'secrets' ? `${k.group}/${k.resource}/${k.namespace}/${k.name}` : undefined;
    assert.equal(whereOf(row?.object), expected, `key ${i}`);
    if (row) assert.ok(Number(row.resource_version) > 0);
  });
  // The first went alone; the 27 asked for meanwhile waited for it and went as one statement.
  assert.deepEqual(batcher.stats, { statements: 2, gets: 28 });
});

test('batches are capped in size, and a lone get is sent at once', async () => {
  const batcher = new GetBatcher(database.queries, { maxInFlight: 1, maxBatchSize: 10 });
  const rows = await Promise.all(Array.from({ length: 31 }, (_, i) => batcher.get(key('', 'configmaps', 'a', `obj-${i % 20}`))));
  assert.deepEqual(rows.map((r) => whereOf(r?.object)), Array.from({ length: 31 }, (_, i) => `/configmaps/a/obj-${i % 20}`));
  assert.deepEqual(batcher.stats, { statements: 4, gets: 31 }, 'one alone, then three of ten');
  const before = batcher.stats.statements;
  assert.equal(whereOf((await batcher.get(key('', 'configmaps', 'b', 'obj-3')))?.object), '/configmaps/b/obj-3');
  assert.equal(batcher.stats.statements, before + 1);
});

test('a get asked for after a write was acknowledged sees that write, batched or not', async () => {
  const batcher = new GetBatcher(database.queries, { maxInFlight: 1, maxBatchSize: 64 });
  const blocker = batcher.get(key('', 'configmaps', 'a', 'obj-0'));
  const objectText = JSON.stringify({ metadata: { name: 'fresh', namespace: 'a', uid: randomUUID() }, data: { where: 'fresh' } });
  assert.equal((await writer.write({ op: 'create', g: '', r: 'configmaps', ns: 'a', n: 'fresh', objectText })).outcome, 'ok');
  const [, fresh] = await Promise.all([blocker, batcher.get(key('', 'configmaps', 'a', 'fresh'))]);
  assert.equal(whereOf(fresh?.object), 'fresh');
});

const waitMs = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

test('one statement at a time while reads are quick; gets queued behind one in flight past spillAfterMs go in another', async () => {
  const batcher = new GetBatcher(database.queries, { maxInFlight: 2, spillAfterMs: 100, maxBatchSize: 64 });
  const slow = await lockObjectsTable(opened.testDb.url);
  let answers: Promise<(StoredRow | undefined)[]>;
  try {
    answers = Promise.all([batcher.get(key('', 'configmaps', 'a', 'obj-1'))]);
    await waitMs(20);
    const queued = Promise.all([2, 3, 4].map((i) => batcher.get(key('', 'configmaps', 'a', `obj-${i}`))));
    answers = Promise.all([answers, queued]).then(([first, rest]) => [...first, ...rest]);
    await waitMs(30);
    assert.equal(batcher.stats.statements, 1, 'the queued gets wait while the one in flight is young');
    await waitMs(250);
    assert.deepEqual(batcher.stats, { statements: 2, gets: 4 }, 'past spillAfterMs the queued gets went in a second statement');
    batcher.get(key('', 'configmaps', 'a', 'obj-5')).catch(() => undefined);
    await waitMs(250);
    assert.equal(batcher.stats.statements, 2, 'never more than maxInFlight');
  } finally {
    await slow.release();
  }
  assert.deepEqual((await answers).map((r) => whereOf(r?.object)), [1, 2, 3, 4].map((i) => `/configmaps/a/obj-${i}`));
});

test('with a long spillAfterMs a slow read holds the queue until it is answered', async () => {
  const batcher = new GetBatcher(database.queries, { maxInFlight: 2, spillAfterMs: 60_000, maxBatchSize: 64 });
  const slow = await lockObjectsTable(opened.testDb.url);
  let answers: Promise<(StoredRow | undefined)[]>;
  try {
    const first = batcher.get(key('', 'configmaps', 'b', 'obj-1'));
    await waitMs(20);
    answers = Promise.all([first, ...[2, 3].map((i) => batcher.get(key('', 'configmaps', 'b', `obj-${i}`)))]);
    await waitMs(300);
    assert.equal(batcher.stats.statements, 1);
  } finally {
    await slow.release();
  }
  assert.deepEqual((await answers).map((r) => whereOf(r?.object)), [1, 2, 3].map((i) => `/configmaps/b/obj-${i}`));
  assert.deepEqual(batcher.stats, { statements: 2, gets: 3 }, 'the two queued went together once the first was answered');
});

test('a database that cannot be reached fails every get of the batch as Unavailable, and later gets still run', async () => {
  // A real pool whose server refuses connections (port 1), behind the same PreparedQueries the storage uses.
  const pool = new pg.Pool({ connectionString: 'postgres://nobody@127.0.0.1:1/none', connectionTimeoutMillis: 500 });
  pool.on('error', () => undefined);
  try {
    const batcher = new GetBatcher(new PreparedQueries(pool, { pooled: false, logger }), { maxInFlight: 1, maxBatchSize: 64 });
    const results = await Promise.allSettled(Array.from({ length: 5 }, (_, i) => batcher.get(key('', 'configmaps', 'a', `obj-${i}`))));
    for (const r of results) {
      assert.equal(r.status, 'rejected');
      assert.ok(r.reason instanceof StorageError && r.reason.code === 'Unavailable', String(r.reason));
    }
    assert.equal(batcher.stats.statements, 2, 'one alone, then the four that waited');
    assert.equal((await Promise.allSettled([batcher.get(key('', 'configmaps', 'a', 'obj-1'))]))[0].status, 'rejected');
    assert.equal(batcher.stats.statements, 3, 'the queue moved on after the failure');
  } finally {
    await pool.end();
  }
});
