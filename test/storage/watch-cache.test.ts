import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import pg from 'pg';
import pino from 'pino';
import { configMaps } from '../../src/kinds/config-map.ts';
import { parseSelectors } from '../../src/registry/filter.ts';
import { CachedStorage, type CachedStorageOptions } from '../../src/storage/cache/cached-storage.ts';
import { parseWatchCacheSizes } from '../../src/storage/cache/cache-sizes.ts';
import { postgresFreshnessProbe } from '../../src/storage/cache/freshness-probe.ts';
import { postgresResourceCount } from '../../src/storage/cache/resource-count.ts';
import { compareText } from '../../src/storage/cache/key-order.ts';
import { migrateUp, openDatabase, type Database } from '../../src/storage/postgres/database.ts';
import { PostgresStorage } from '../../src/storage/postgres/postgres-storage.ts';
import { StorageError, type ListOptions, type ObjectKey } from '../../src/storage/storage.ts';
import { encodeOps, WRITE_BATCH_SQL } from '../../bench/objects.ts';
import { createTestDatabase, type TestDatabase } from '../helpers/database.ts';
import { storageConformance, storedConfigMap } from './conformance.ts';

const logger = pino({ level: 'silent' });
const CM = { group: '', resource: 'configmaps' };
const key = (namespace: string, name: string): ObjectKey => ({ ...CM, namespace, name });
const filterOf = (labels?: string, fields?: string) => parseSelectors(configMaps, labels, fields).filter;

interface Opened {
  readonly db: TestDatabase;
  readonly database: Database;
  readonly pg: PostgresStorage;
  readonly cached: CachedStorage;
  close(): Promise<void>;
}

/** `counted`: the cache counts a resource that went over the budget before building it again, as the server's does. */
async function open(options: Partial<CachedStorageOptions> = {}, counted = false): Promise<Opened> {
  const db = await createTestDatabase('pgkube_watch_cache');
  const database = await openDatabase({ url: db.url, logger });
  await migrateUp(database.db);
  const storage = new PostgresStorage({ database, logger, pollIntervalMs: 200, futureVersionWaitMs: 300 });
  await storage.start();
  const countUpTo = counted ? postgresResourceCount(database.queries) : undefined;
  const cached = new CachedStorage(storage, { probe: postgresFreshnessProbe(database.queries), logger, rebuildDelayMs: 0, ...(countUpTo ? { countUpTo } : {}), ...options });
  return {
    db,
    database,
    pg: storage,
    cached,
    close: async () => {
      await cached.close();
      await storage.close();
      await database.close();
      await db.drop();
    },
  };
}

/** Reads until the resource's cache is built (the first read starts the build and goes to the database). */
async function warm(o: Opened): Promise<void> {
  for (let i = 0; i < 200 && !o.cached.cacheOf(CM); i++) {
    await o.cached.list(CM, { anyVersion: true });
    await new Promise((r) => setTimeout(r, 10));
  }
  assert.ok(o.cached.cacheOf(CM), 'the cache was built');
}

const names = (items: string[]) => items.map((t) => (JSON.parse(t) as { metadata: { namespace: string; name: string } }).metadata).map((m) => `${m.namespace}/${m.name}`);

/** The whole Storage contract holds with the cache in front (its lists come from the cache once it is built). */
storageConformance('CachedStorage', async () => {
  const o = await open();
  return { storage: o.cached, ref: CM, close: o.close };
});

describe('watch cache', () => {
  let o: Opened;
  before(async () => {
    o = await open();
    for (const ns of ['a', 'b', 'c']) {
      for (let i = 0; i < 7; i++) {
        await o.pg.create(key(ns, `cm-${i}`), storedConfigMap(ns, `cm-${i}`, { i: String(i) }, { parity: i % 2 ? 'odd' : 'even', ns }));
      }
    }
    await warm(o);
  });
  after(() => o.close());

  test('resourceVersion=0 lists from the cache give what the database gives: namespaces, selectors', async () => {
    const cases: ListOptions[] = [
      {},
      { namespace: 'b' },
      { namespace: 'missing' },
      { filter: filterOf('parity=odd') },
      { namespace: 'c', filter: filterOf('parity in (even),ns=c') },
      { filter: filterOf(undefined, 'metadata.name=cm-3') },
      { filter: filterOf(undefined, 'metadata.namespace!=a') },
    ];
    for (const options of cases) {
      const before = o.cached.stats.cacheReads;
      const fromCache = await o.cached.list(CM, { ...options, anyVersion: true });
      assert.equal(o.cached.stats.cacheReads, before + 1, 'served from the cache');
      const fromDb = await o.pg.list(CM, options);
      assert.deepEqual(fromCache.items, fromDb.items, JSON.stringify(options));
      assert.ok(fromCache.resourceVersion > 0);
    }
  });

  test('a field selector on another field is evaluated on the object', async () => {
    // ConfigMaps select only metadata fields; a filter built by hand reads data.i.
    const base = filterOf('parity=odd')!;
    const filter = { ...base, fields: [{ field: 'data.i', operator: '=' as const, value: '3', path: ['data', 'i'], missing: '' }], matches: (obj: any) => base.matches(obj) && obj.data?.i === '3' };
    const fromCache = await o.cached.list(CM, { filter, anyVersion: true });
    assert.deepEqual(names(fromCache.items), ['a/cm-3', 'b/cm-3', 'c/cm-3']);
  });

  test('resourceVersion=0 ignores the limit, as upstream\'s cache does; a consistent list pages as the database does', async () => {
    const any = await o.cached.list(CM, { namespace: 'a', limit: 2, anyVersion: true, countRemaining: true });
    assert.equal(any.items.length, 7);
    assert.equal(any.next, undefined);

    const reads = o.cached.stats.cacheReads;
    const page = await o.cached.list(CM, { namespace: 'a', limit: 3, countRemaining: true });
    assert.equal(o.cached.stats.cacheReads, reads + 1);
    const dbPage = await o.pg.list(CM, { namespace: 'a', limit: 3, countRemaining: true });
    assert.deepEqual(page.items, dbPage.items);
    assert.deepEqual(page.next, dbPage.next);
    assert.equal(page.remaining, dbPage.remaining);
    // The continuation reads the database at the page's version, after its last key.
    const delegated = o.cached.stats.delegatedReads;
    const rest = await o.cached.list(CM, { namespace: 'a', limit: 10, after: page.next, exactVersion: page.resourceVersion });
    assert.equal(o.cached.stats.delegatedReads, delegated + 1);
    assert.deepEqual(names([...page.items, ...rest.items]), [0, 1, 2, 3, 4, 5, 6].map((i) => `a/cm-${i}`));

    // With a selector: the page holds `limit` matching items and no count.
    const odd = await o.cached.list(CM, { limit: 2, filter: filterOf('parity=odd'), countRemaining: true });
    const dbOdd = await o.pg.list(CM, { limit: 2, filter: filterOf('parity=odd'), countRemaining: true });
    assert.deepEqual(odd.items, dbOdd.items);
    assert.deepEqual(odd.next, dbOdd.next);
    assert.equal(odd.remaining, undefined);
  });

  test('a whole list as a cursor from the cache holds the same items as the database\'s', async () => {
    const cursor = await o.cached.openList(CM, {});
    const items: string[] = [];
    for (let chunk = await cursor.next(); chunk.length > 0; chunk = await cursor.next()) items.push(...chunk);
    await cursor.close();
    const db = await o.pg.openList(CM, {});
    const dbItems: string[] = [];
    for (let chunk = await db.next(); chunk.length > 0; chunk = await db.next()) dbItems.push(...chunk);
    await db.close();
    assert.deepEqual(items, dbItems);
  });

  test("the cache's own watch is not counted among the resource's watchers (they stand for clients)", async () => {
    await o.cached.get(key('b', 'cm-4'), { minVersion: 0 });
    assert.ok(o.cached.cacheOf(CM), 'the cache is built');
    assert.equal(o.pg.hub.watcherCount(CM), 0);
    assert.equal(o.pg.hub.watcherCount(), 0);
    const handle = await o.cached.watch(CM, { fromVersion: 0 }, { onEvent: () => undefined, onClose: () => undefined });
    assert.equal(o.pg.hub.watcherCount(CM), 1, 'a client watch counts');
    handle.stop();
    assert.equal(o.pg.hub.watcherCount(CM), 0);
  });

  test('resourceVersion=0 gets come from the cache; gets without a version from the database', async () => {
    const reads = o.cached.stats.cacheReads;
    const found = await o.cached.get(key('b', 'cm-4'), { minVersion: 0 });
    assert.equal(o.cached.stats.cacheReads, reads + 1);
    const db = await o.pg.get(key('b', 'cm-4'));
    assert.equal(found?.text, db?.text);
    assert.equal(found?.resourceVersion, db?.resourceVersion);
    assert.deepEqual(found?.object, db?.object);
    assert.equal(await o.cached.get(key('b', 'nope'), { minVersion: 0 }), null);
    await o.cached.get(key('b', 'cm-4'));
    assert.equal(o.cached.stats.cacheReads, reads + 2, 'a consistent get is not served from the cache');
  });

  test('a write is in the very next consistent list (read your writes), served from the cache', async () => {
    for (let i = 0; i < 5; i++) {
      const created = await o.cached.create(key('ryw', `x-${i}`), storedConfigMap('ryw', `x-${i}`));
      const reads = o.cached.stats.cacheReads;
      const fallbacks = o.cached.stats.consistentFallbacks;
      const list = await o.cached.list(CM, { namespace: 'ryw' });
      assert.equal(o.cached.stats.cacheReads, reads + 1);
      assert.equal(o.cached.stats.consistentFallbacks, fallbacks);
      assert.equal(list.items.length, i + 1);
      assert.ok(list.resourceVersion >= created.resourceVersion);
      const updated = await o.cached.update(key('ryw', `x-${i}`), { ...created.object, data: { v: 'new' } });
      const after = await o.cached.list(CM, { namespace: 'ryw', filter: filterOf(undefined, `metadata.name=x-${i}`) });
      assert.equal(JSON.parse(after.items[0]).metadata.resourceVersion, String(updated.resourceVersion));
    }
    await o.cached.delete(key('ryw', 'x-0'));
    assert.deepEqual(names((await o.cached.list(CM, { namespace: 'ryw' })).items), ['ryw/x-1', 'ryw/x-2', 'ryw/x-3', 'ryw/x-4']);
  });

  test('resourceVersion=0 reads never show less than this server\'s own writes already answered', async () => {
    for (let i = 0; i < 5; i++) {
      const created = await o.cached.create(key('own', `o-${i}`), storedConfigMap('own', `o-${i}`));
      const reads = o.cached.stats.cacheReads;
      const got = await o.cached.get(key('own', `o-${i}`), { minVersion: 0 });
      assert.equal(got?.resourceVersion, created.resourceVersion);
      const list = await o.cached.list(CM, { namespace: 'own', anyVersion: true });
      assert.equal(list.items.length, i + 1);
      assert.equal(o.cached.stats.cacheReads, reads + 2);
      await o.cached.delete(key('own', `o-${i}`));
      assert.equal(await o.cached.get(key('own', `o-${i}`), { minVersion: 0 }), null);
      await o.cached.create(key('own', `o-${i}`), storedConfigMap('own', `o-${i}`));
    }
  });

  test('NotOlderThan reads of an older version still show this server\'s own writes already answered', async () => {
    const before = await o.cached.create(key('own-not', 'first'), storedConfigMap('own-not', 'first'));
    await o.cached.list(CM, { namespace: 'own-not', anyVersion: true });
    for (let i = 0; i < 5; i++) {
      await o.cached.create(key('own-not', `n-${i}`), storedConfigMap('own-not', `n-${i}`));
      const reads = o.cached.stats.cacheReads;
      const list = await o.cached.list(CM, { namespace: 'own-not', minVersion: before.resourceVersion });
      assert.equal(o.cached.stats.cacheReads, reads + 1, 'from the cache');
      assert.equal(list.items.length, i + 2);
    }
  });

  test('NotOlderThan never returns older data; a version not reached yet fails as the database fails it', async () => {
    const created = await o.pg.create(key('not', 'n'), storedConfigMap('not', 'n'));
    const list = await o.cached.list(CM, { namespace: 'not', minVersion: created.resourceVersion });
    assert.deepEqual(names(list.items), ['not/n']);
    assert.ok(list.resourceVersion >= created.resourceVersion);
    const got = await o.cached.get(key('not', 'n'), { minVersion: created.resourceVersion });
    assert.equal(got?.resourceVersion, created.resourceVersion);
    await assert.rejects(o.cached.list(CM, { namespace: 'not', minVersion: created.resourceVersion + 1000 }), (err: unknown) => err instanceof StorageError && err.code === 'TooLargeVersion');
  });

  test('Exact reads the database: the state at that version', async () => {
    const first = await o.pg.create(key('exact', 'e'), storedConfigMap('exact', 'e', { v: '1' }));
    await o.pg.update(key('exact', 'e'), { ...first.object, data: { v: '2' } });
    const delegated = o.cached.stats.delegatedReads;
    const exact = await o.cached.list(CM, { namespace: 'exact', exactVersion: first.resourceVersion });
    assert.equal(o.cached.stats.delegatedReads, delegated + 1);
    assert.equal(JSON.parse(exact.items[0]).data.v, '1');
  });

  test('writes committed by another client (through the write function) reach the cache', async () => {
    const client = new pg.Client({ connectionString: o.db.url });
    await client.connect();
    try {
      const text = JSON.stringify(storedConfigMap('other', 'o1'));
      await client.query(WRITE_BATCH_SQL, [encodeOps([{ op: 'create', g: '', r: 'configmaps', ns: 'other', n: 'o1', objectText: text }])]);
      const reads = o.cached.stats.cacheReads;
      assert.deepEqual(names((await o.cached.list(CM, { namespace: 'other' })).items), ['other/o1']);
      assert.equal(o.cached.stats.cacheReads, reads + 1);
    } finally {
      await client.end();
    }
  });

  test('after the LISTEN connection is cut the cache catches up (reconnect, and the poll meanwhile)', async () => {
    const admin = new pg.Client({ connectionString: o.db.url });
    await admin.connect();
    try {
      const cut = await admin.query(`select pg_terminate_backend(pid) from pg_stat_activity where datname = current_database() and query ilike 'listen%'`);
      assert.ok(cut.rowCount && cut.rowCount > 0, 'the LISTEN connection was found');
      const text = JSON.stringify(storedConfigMap('listen', 'l1'));
      await admin.query(WRITE_BATCH_SQL, [encodeOps([{ op: 'create', g: '', r: 'configmaps', ns: 'listen', n: 'l1', objectText: text }])]);
      // The consistent list waits for the cache to reach the write (poll or reconnect), then answers from it.
      const reads = o.cached.stats.cacheReads;
      assert.deepEqual(names((await o.cached.list(CM, { namespace: 'listen' })).items), ['listen/l1']);
      assert.equal(o.cached.stats.cacheReads, reads + 1);
      // resourceVersion=0 after that sees it too.
      assert.deepEqual(names((await o.cached.list(CM, { namespace: 'listen', anyVersion: true })).items), ['listen/l1']);
    } finally {
      await admin.end();
    }
  });

  test('rows written outside the server (no history) send reads to the database, which checks them', async () => {
    await o.pg.create(key('outside', 'w'), storedConfigMap('outside', 'w', { v: 'api' }));
    const admin = new pg.Client({ connectionString: o.db.url });
    await admin.connect();
    try {
      await admin.query(`update objects set object = jsonb_set(object, '{data,v}', '"psql"') where namespace = 'outside' and name = 'w'`);
    } finally {
      await admin.end();
    }
    const delegated = o.cached.stats.delegatedReads;
    const list = await o.cached.list(CM, { namespace: 'outside' });
    assert.equal(o.cached.stats.delegatedReads, delegated + 1);
    assert.equal(JSON.parse(list.items[0]).data.v, 'psql');
    // The consistent list learnt of the row: resourceVersion=0 reads go to the database as well.
    const any = await o.cached.list(CM, { namespace: 'outside', anyVersion: true });
    assert.equal(o.cached.stats.delegatedReads, delegated + 2);
    assert.equal(JSON.parse(any.items[0]).data.v, 'psql');
    // Once the server rewrites the row (clearing the mark), the cache answers again, with the new text.
    const current = await o.pg.get(key('outside', 'w'));
    await o.pg.update(key('outside', 'w'), { ...current!.object, data: { v: 'rewritten' } });
    const reads = o.cached.stats.cacheReads;
    const again = await o.cached.list(CM, { namespace: 'outside' });
    assert.equal(o.cached.stats.cacheReads, reads + 1);
    assert.equal(JSON.parse(again.items[0]).data.v, 'rewritten');
  });
});

describe('watch cache limits', () => {
  test('--watch-cache-sizes: 0 keeps a resource out of the cache; its entries are read as upstream reads them', async () => {
    const o = await open({ sizes: parseWatchCacheSizes(['configmaps#0', 'deployments.apps#100']) });
    try {
      await o.pg.create(key('s', 'a'), storedConfigMap('s', 'a'));
      for (let i = 0; i < 5; i++) await o.cached.list(CM, { anyVersion: true });
      assert.equal(o.cached.cacheOf(CM), undefined);
      assert.equal(o.cached.stats.builds, 0);
      assert.equal(o.cached.stats.cacheReads, 0);
    } finally {
      await o.close();
    }
    const sizes = parseWatchCacheSizes(['pods#0', 'deployments.apps#100']);
    assert.equal(sizes.get('/pods'), 0);
    assert.equal(sizes.get('apps/deployments'), 100);
    assert.throws(() => parseWatchCacheSizes(['pods']), /invalid value of watch cache size: pods/);
    assert.throws(() => parseWatchCacheSizes(['pods#x']), /invalid size of watch cache size: pods#x/);
    assert.throws(() => parseWatchCacheSizes(['pods#-1']), /watch cache size cannot be negative: pods#-1/);
  });

  test('a cache that outgrows the memory budget is dropped and its reads go to the database', async () => {
    const o = await open({ maxBytes: 4000, overBudgetRetryMs: 60_000 });
    try {
      await o.pg.create(key('m', 'small'), storedConfigMap('m', 'small'));
      await warm(o);
      for (let i = 0; i < 20; i++) await o.pg.create(key('m', `big-${i}`), storedConfigMap('m', `big-${i}`, { pad: 'x'.repeat(200) }));
      const list = await o.cached.list(CM, { namespace: 'm' });
      assert.equal(list.items.length, 21);
      assert.equal(o.cached.cacheOf(CM), undefined, 'the cache was dropped');
      assert.equal(o.cached.bytes, 0, 'its memory was given back');
      const delegated = o.cached.stats.delegatedReads;
      await o.cached.list(CM, { namespace: 'm', anyVersion: true });
      assert.equal(o.cached.stats.delegatedReads, delegated + 1);
    } finally {
      await o.close();
    }
  });
});

describe('a resource too large for the budget', () => {
  const readFor = async (o: Opened, ms: number) => {
    const until = Date.now() + ms;
    while (Date.now() < until) {
      await o.cached.list(CM, { namespace: 'm', anyVersion: true });
      await new Promise((r) => setTimeout(r, 10));
    }
  };
  const fill = async (o: Opened) => {
    await o.pg.create(key('m', 'small'), storedConfigMap('m', 'small'));
    await warm(o);
    for (let i = 0; i < 20; i++) await o.pg.create(key('m', `big-${i}`), storedConfigMap('m', `big-${i}`, { pad: 'x'.repeat(200) }));
    await o.cached.list(CM, { namespace: 'm' });
    assert.equal(o.cached.cacheOf(CM), undefined, 'the cache went over the budget and was dropped');
  };

  test('is not loaded again while it still holds as many objects as did not fit, and is once it holds fewer', async () => {
    const o = await open({ maxBytes: 4000, overBudgetRetryMs: 30 }, true);
    try {
      await fill(o);
      const builds = o.cached.stats.builds;
      // Many retry periods, read all along: counted each time, never built.
      await readFor(o, 300);
      assert.equal(o.cached.stats.builds, builds, 'no build while the resource is as large as before');
      assert.equal(o.cached.bytes, 0);
      for (let i = 0; i < 20; i++) await o.pg.delete(key('m', `big-${i}`));
      await readFor(o, 300);
      assert.equal(o.cached.stats.builds, builds + 1, 'built again once it holds fewer');
      assert.ok(o.cached.cacheOf(CM), 'and the cache serves it');
      assert.deepEqual(names((await o.cached.list(CM, { namespace: 'm', anyVersion: true })).items), ['m/small']);
    } finally {
      await o.close();
    }
  });

  test('without a count it is loaded (and dropped) again at every retry', async () => {
    const o = await open({ maxBytes: 4000, overBudgetRetryMs: 30 });
    try {
      await fill(o);
      const builds = o.cached.stats.builds;
      await readFor(o, 300);
      assert.ok(o.cached.stats.builds >= builds + 2, `rebuilt at the retries (${o.cached.stats.builds - builds})`);
    } finally {
      await o.close();
    }
  });
});

test('keys order as PostgreSQL\'s "C" collation: UTF-8 bytes, not UTF-16 units', () => {
  const sorted = ['b', 'a', '\u{1F600}', '\uFF21', 'a-b', 'ab', ''].sort(compareText);
  assert.deepEqual(sorted, ['', 'a', 'a-b', 'ab', 'b', '\uFF21', '\u{1F600}']);
});
