import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { after, before, test } from 'node:test';
import pino from 'pino';
import type { Database } from '../../src/storage/postgres/database.ts';
import { WriteBatcher, type WriteOp, type WriteResult } from '../../src/storage/postgres/write-batcher.ts';
import { StorageError } from '../../src/storage/storage.ts';
import { openTestDatabase, type OpenedDatabase } from '../helpers/storage.ts';

const logger = pino({ level: 'silent' });
let opened: OpenedDatabase;
let database: Database;

before(async () => {
  opened = await openTestDatabase('pgkube_batcher');
  database = opened.database;
});

after(async () => {
  await opened.close();
});

/** A create whose object text is given as is: the batcher's callers normally normalise it first. */
function createOp(ns: string, name: string, data: string): WriteOp {
  const object = `{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"${name}","namespace":"${ns}","uid":"${randomUUID()}"},"data":{"k":${data}}}`;
  return { op: 'create', g: '', r: 'configmaps', ns, n: name, objectText: object };
}

async function settle(writes: Promise<WriteResult>[]) {
  return Promise.all(writes.map((w) => w.then((result) => ({ result }), (error: unknown) => ({ error }))));
}

async function countRows(table: 'objects' | 'history', ns: string): Promise<Map<string, number>> {
  const res = await database.pool.query(`select name, count(*)::int as n from ${table} where namespace = $1 group by name`, [ns]);
  return new Map(res.rows.map((r) => [r.name as string, r.n as number]));
}

test('a write PostgreSQL refuses fails alone: the other writes of its batch commit once each, in version order', async () => {
  const batcher = new WriteBatcher(database.queries);
  const ns = 'refused-one';
  // Issued in one tick: the first goes out at once (one batch in flight), the rest queue up and
  // leave together as one batch, which holds the bad ones (escaped lone surrogates, which jsonb refuses).
  const bad = new Set([5, 11, 17]);
  const ops = Array.from({ length: 20 }, (_, i) => createOp(ns, `cm-${i}`, bad.has(i) ? '"\\ud800"' : `"v${i}"`));
  const outcomes = await settle(ops.map((op) => batcher.write(op)));

  const versions: number[] = [];
  outcomes.forEach((o, i) => {
    if (bad.has(i)) {
      assert.ok('error' in o, `write ${i} should fail`);
      const err = o.error as StorageError;
      assert.ok(err instanceof StorageError, `write ${i}: ${String(err)}`);
      assert.equal(err.code, 'Unstorable');
      assert.doesNotMatch(err.message, /invalid input syntax|type json|must follow a high surrogate|escape sequence/i, 'no PostgreSQL wording reaches the client');
    } else {
      assert.ok('result' in o, `write ${i} failed: ${'error' in o ? String(o.error) : ''}`);
      assert.equal(o.result.outcome, 'ok');
      versions.push(o.result.resourceVersion!);
    }
  });
  assert.equal(new Set(versions).size, versions.length, 'every good write has a version of its own');

  const objects = await countRows('objects', ns);
  const history = await countRows('history', ns);
  assert.equal(objects.size, 17);
  for (let i = 0; i < 20; i++) {
    assert.equal(objects.get(`cm-${i}`), bad.has(i) ? undefined : 1, `cm-${i} stored once`);
    assert.equal(history.get(`cm-${i}`), bad.has(i) ? undefined : 1, `cm-${i} in history once`);
  }
  // The writes of the refused batch (all but the first two, which went out on their own) are sent
  // again in their order: their versions follow it.
  const ordered = await database.pool.query(`select name from history where namespace = $1 order by resource_version`, [ns]);
  const names = ordered.rows.map((r) => Number(String(r.name).slice(3))).filter((i) => i >= 2);
  assert.deepEqual(names, [...names].sort((a, b) => a - b));
});

test('a batch too large for one jsonb value goes out as several batches', async () => {
  const batcher = new WriteBatcher(database.queries, { maxBatchBytes: 4096 });
  const ns = 'split-by-bytes';
  const payload = JSON.stringify('x'.repeat(1500));
  const outcomes = await settle(Array.from({ length: 12 }, (_, i) => batcher.write(createOp(ns, `cm-${i}`, payload))));
  for (const o of outcomes) assert.ok('result' in o && o.result.outcome === 'ok');
  const batches = await database.pool.query(
    `select count(distinct xmin::text)::int as n from objects where namespace = $1`,
    [ns],
  );
  assert.ok(batches.rows[0].n >= 4, `expected the 12 writes of ~1.6 KB in batches of at most 4 KiB, got ${batches.rows[0].n} transactions`);
});
