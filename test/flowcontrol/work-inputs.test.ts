import assert from 'node:assert/strict';
import { randomBytes, randomUUID } from 'node:crypto';
import { after, before, describe, it } from 'node:test';
import pg from 'pg';
import pino from 'pino';
import { NO_ADMISSION } from '../../src/admission/chain.ts';
import { parseRequestInfo } from '../../src/api/request-info.ts';
import { ObjectCounts, OBJECT_COUNT_FORGOTTEN_AFTER_MS, OBJECT_COUNT_STALE_AFTER_MS } from '../../src/flowcontrol/object-counts.ts';
import { INFINITE_OBJECT_COUNT, MAX_OBJECT_SIZE } from '../../src/flowcontrol/work-estimator.ts';
import { WorkInputs } from '../../src/flowcontrol/work-inputs.ts';
import { builtinKinds } from '../../src/kinds/index.ts';
import { ApiSurface } from '../../src/registry/api-surface.ts';
import { migrateUp, openDatabase, type Database } from '../../src/storage/postgres/database.ts';
import { PostgresStorage } from '../../src/storage/postgres/postgres-storage.ts';
import type { WatchHandle } from '../../src/storage/storage.ts';
import { createTestDatabase, type TestDatabase } from '../helpers/database.ts';
import { storedConfigMap } from '../storage/conformance.ts';

const logger = pino({ level: 'silent' });
let testDb: TestDatabase;
let database: Database;
let storage: PostgresStorage;
let surface: ApiSurface;
const CM = { group: '', resource: 'configmaps' };
const EVENT = { group: '', resource: 'events' };

before(async () => {
  testDb = await createTestDatabase('pgkube_apf_inputs');
  database = await openDatabase({ url: testDb.url, logger });
  await migrateUp(database.db);
  storage = new PostgresStorage({ database, logger, pollIntervalMs: 200 });
  await storage.start();
  surface = new ApiSurface(builtinKinds, storage, NO_ADMISSION);
  for (let i = 0; i < 3; i++) {
    await storage.create({ ...CM, namespace: 'a', name: `cm-${i}` }, storedConfigMap('a', `cm-${i}`, { payload: 'x'.repeat(100 * (i + 1)) }));
  }
  await storage.create(
    { ...EVENT, namespace: 'a', name: 'e1' },
    { apiVersion: 'v1', kind: 'Event', metadata: { name: 'e1', namespace: 'a', uid: randomUUID(), resourceVersion: '' }, reason: 'Tested' },
  );
});

after(async () => {
  await storage.close();
  await database.close();
  await testDb.drop();
});

/** The stored size PostgreSQL reports for a resource's objects, averaged: what the counts must show. */
async function storedAverage(group: string, resource: string): Promise<number> {
  const res = await database.pool.query<{ avg: string }>(
    'select floor(avg(pg_column_size(object))) as avg from objects where api_group = $1 and resource = $2',
    [group, resource],
  );
  return Number(res.rows[0]!.avg);
}

describe('object counts', () => {
  it('count each served resource from PostgreSQL, with the average stored size', async () => {
    const counts = new ObjectCounts(database.pool);
    counts.countServed(surface);
    assert.equal(counts.objectCount('', 'configmaps'), undefined, 'nothing is known before the first read');

    const served = await counts.refresh();
    assert.equal(counts.objectCount('', 'configmaps'), 3);
    const average = counts.averageObjectSize('', 'configmaps')!;
    assert.equal(average, await storedAverage('', 'configmaps'));
    assert.ok(average > 200, `the objects hold their payloads (${average} bytes)`);
    // Served with nothing stored: zero, not unknown.
    assert.equal(counts.objectCount('', 'secrets'), 0);
    assert.equal(counts.averageObjectSize('', 'secrets'), 0);
    // events.k8s.io Events are stored as core Events: both count them.
    assert.equal(counts.objectCount('', 'events'), 1);
    assert.equal(counts.objectCount('events.k8s.io', 'events'), 1);
    // Not served: unknown (an aggregated API, a typo).
    assert.equal(counts.objectCount('metrics.k8s.io', 'pods'), undefined);
    // The read the metrics use lists every served resource once.
    const configmaps = served.filter((s) => s.group === '' && s.resource === 'configmaps');
    assert.equal(configmaps.length, 1);
    assert.equal(configmaps[0]!.stats?.count, 3);
    assert.ok(!served.some((s) => s.group === 'authorization.k8s.io'), 'reviews are answered, never stored');
  });

  it('concurrent reads share one query', async () => {
    const counts = new ObjectCounts(database.pool);
    counts.countServed(surface);
    const first = counts.refresh();
    assert.equal(counts.refresh(), first);
    await first;
    assert.notEqual(counts.refresh(), first);
  });

  it('go stale when reads keep failing, then are forgotten', async () => {
    let now = 1_000_000;
    const pool = new pg.Pool({ connectionString: testDb.url, max: 1 });
    const counts = new ObjectCounts(pool, { now: () => now });
    counts.countServed(surface);
    await counts.refresh();
    assert.equal(counts.objectCount('', 'configmaps'), 3);
    await pool.end();

    const failed = await counts.refresh();
    assert.ok(failed.length > 0 && failed.every((s) => s.stats === undefined), 'a failed read reports every resource as failed');
    // A failure within the tolerance keeps the last figures.
    now += OBJECT_COUNT_STALE_AFTER_MS - 1;
    assert.equal(counts.objectCount('', 'configmaps'), 3);
    now += 2;
    assert.equal(counts.objectCount('', 'configmaps'), INFINITE_OBJECT_COUNT);
    assert.equal(counts.averageObjectSize('', 'configmaps'), MAX_OBJECT_SIZE);
    assert.equal(counts.objectCount('metrics.k8s.io', 'pods'), undefined, 'an uncounted resource stays unknown');
    now += OBJECT_COUNT_FORGOTTEN_AFTER_MS;
    assert.equal(counts.objectCount('', 'configmaps'), undefined);
  });

  it('figures merely old (no failed read) are not stale', async () => {
    let now = 0;
    const counts = new ObjectCounts(database.pool, { now: () => now });
    counts.countServed(surface);
    await counts.refresh();
    now += OBJECT_COUNT_STALE_AFTER_MS * 2;
    assert.equal(counts.objectCount('', 'configmaps'), 3);
  });

  it('start() keeps them current', async () => {
    const counts = new ObjectCounts(database.pool);
    counts.countServed(surface);
    counts.start(50);
    try {
      for (let i = 0; i < 100 && counts.objectCount('', 'configmaps') === undefined; i++) await sleep(10);
      assert.equal(counts.objectCount('', 'configmaps'), 3);
      await storage.create({ ...CM, namespace: 'b', name: 'late' }, storedConfigMap('b', 'late'));
      for (let i = 0; i < 200 && counts.objectCount('', 'configmaps') === 3; i++) await sleep(10);
      assert.equal(counts.objectCount('', 'configmaps'), 4);
    } finally {
      counts.stop();
      await storage.delete({ ...CM, namespace: 'b', name: 'late' });
    }
  });
});

describe('work inputs', () => {
  async function watch(ref: { group: string; resource: string }, n: number): Promise<WatchHandle[]> {
    const fromVersion = await storage.currentVersion();
    return Promise.all(Array.from({ length: n }, () => storage.watch(ref, { fromVersion }, { onEvent: () => true, onClose: () => undefined })));
  }

  it("count the hub's watchers of the written resource", async () => {
    const work = new WorkInputs({ objectCounts: new ObjectCounts(database.pool), watchers: storage.hub, surface });
    assert.equal(work.watchersOf('', 'configmaps'), 0);
    const handles = await watch(CM, 12);
    try {
      assert.equal(work.watchersOf('', 'configmaps'), 12);
      assert.equal(work.watchersOf('', 'secrets'), 0);
      assert.equal(work.watchersOf('nope.example.com', 'things'), 0, 'a resource not served has no watchers');
    } finally {
      for (const h of handles) h.stop();
    }
    assert.equal(work.watchersOf('', 'configmaps'), 0);
  });

  it('count watchers where the objects are stored (events.k8s.io Events are core Events)', async () => {
    const work = new WorkInputs({ objectCounts: new ObjectCounts(database.pool), watchers: storage.hub, surface });
    const handles = await watch(EVENT, 3);
    try {
      assert.equal(work.watchersOf('events.k8s.io', 'events'), 3);
      assert.equal(work.watchersOf('', 'events'), 3);
    } finally {
      for (const h of handles) h.stop();
    }
  });

  it('estimate writes by watchers and lists by counts, without queries per request', async () => {
    const objectCounts = new ObjectCounts(database.pool);
    const work = new WorkInputs({ objectCounts, watchers: storage.hub, surface });
    await objectCounts.refresh();
    const request = (method: string, target: string) => {
      const url = new URL(target, 'http://server');
      return { info: parseRequestInfo(method, url.pathname, url.searchParams), query: url.searchParams };
    };

    const create = request('POST', '/api/v1/namespaces/a/configmaps');
    assert.deepEqual({ ...work.estimate(create.info, create.query, 10) }, { initialSeats: 1, finalSeats: 0, additionalLatencyMs: 0 });
    const handles = await watch(CM, 25);
    try {
      assert.deepEqual({ ...work.estimate(create.info, create.query, 10) }, { initialSeats: 1, finalSeats: 3, additionalLatencyMs: 5 });
      // The level's cap reshapes the same work.
      assert.deepEqual({ ...work.estimate(create.info, create.query, 1) }, { initialSeats: 1, finalSeats: 1, additionalLatencyMs: 15 });
    } finally {
      for (const h of handles) h.stop();
    }

    // Three small objects, served from storage (a continuation): one seat.
    const list = request('GET', '/api/v1/configmaps?limit=2&continue=abc');
    assert.equal(work.estimate(list.info, list.query, 10).initialSeats, 1);
    // A kind nothing counts (not served here) costs the least.
    const unknown = request('GET', '/apis/metrics.k8s.io/v1beta1/pods');
    assert.equal(work.estimate(unknown.info, unknown.query, 10).initialSeats, 1);

    // Large objects (3 of 300 kB) read from storage cost by their size.
    // Random text: PostgreSQL cannot compress it much.
    const big = () => randomBytes(225_000).toString('base64');
    for (let i = 0; i < 3; i++) await storage.create({ ...CM, namespace: 'big', name: `big-${i}` }, storedConfigMap('big', `big-${i}`, { blob: big() }));
    try {
      await objectCounts.refresh();
      const average = objectCounts.averageObjectSize('', 'configmaps')!;
      const expected = Math.ceil((6 * average) / 100_000);
      const all = request('GET', '/api/v1/configmaps?resourceVersion=1&resourceVersionMatch=Exact');
      assert.ok(expected > 1, `six objects averaging ${average} bytes cost more than one seat`);
      assert.equal(work.estimate(all.info, all.query).initialSeats, Math.min(expected, 100));
      assert.equal(work.estimate(all.info, all.query, 4).initialSeats, Math.min(expected, 4));
    } finally {
      for (let i = 0; i < 3; i++) await storage.delete({ ...CM, namespace: 'big', name: `big-${i}` });
    }
  });

  it('a get through the inputs is the shared one-seat estimate', () => {
    const work = new WorkInputs({ objectCounts: new ObjectCounts(database.pool), watchers: storage.hub, surface });
    const url = new URL('http://server/api/v1/namespaces/a/configmaps/x');
    const first = work.estimate(parseRequestInfo('GET', url.pathname, url.searchParams), url.searchParams);
    const second = work.estimate(parseRequestInfo('GET', url.pathname, url.searchParams), url.searchParams);
    assert.equal(first, second);
    assert.deepEqual({ ...first }, { initialSeats: 1, finalSeats: 0, additionalLatencyMs: 0 });
  });
});

function sleep(ms: number): Promise<void> {
  return new Promise((r) => setTimeout(r, ms));
}
