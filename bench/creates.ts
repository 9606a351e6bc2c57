import type pg from 'pg';
import { WriteBatcher } from '../src/storage/postgres/write-batcher.ts';
import { ensureNamespace, newPool, type BenchContext } from './context.ts';
import { expect } from './http.ts';
import { runConcurrent, type LoadResult } from './load.ts';
import { configMapBody, createOp, encodeOps, seqName, WRITE_BATCH_SQL } from './objects.ts';
import type { Row } from './report.ts';

/** Transactions per history row in a namespace: rows written by one transaction share its now(). */
async function batching(pool: pg.Pool, namespace: string, prefix: string): Promise<{ rows: number; transactions: number; meanBatch: number }> {
  const res = await pool.query(
    `select count(*)::int as rows, count(distinct recorded_at)::int as transactions
       from history where api_group = '' and resource = 'configmaps' and namespace = $1 and name like $2`,
    [namespace, `${prefix}-%`],
  );
  const { rows, transactions } = res.rows[0] as { rows: number; transactions: number };
  return { rows, transactions, meanBatch: Number((rows / Math.max(1, transactions)).toFixed(2)) };
}

/**
 * Creates/s with N concurrent clients: through the server (HTTPS POST of ~1 KiB ConfigMaps), raw
 * (N connections each running kube_write_batch with a one-op batch: one transaction and one NOTIFY per
 * create), and raw through WriteBatcher (N concurrent callers, group commit, no HTTP).
 */
export async function measureCreates(ctx: BenchContext): Promise<Row[]> {
  const { cfg } = ctx;
  const c = cfg.concurrency;
  const n = cfg.creates;
  const warm = Math.min(200, Math.max(20, Math.round(n / 10)));
  const ns = 'bench-creates';
  await ensureNamespace(ctx, ns);
  const collection = ctx.url(`/api/v1/namespaces/${ns}/configmaps`);

  ctx.step('creates: server', `${n} creates from ${c} HTTPS clients (after ${warm} warm-up)`);
  let storedBytes = 0;
  await runConcurrent(c, warm, async (i) => {
    const reply = await expect(201, collection, ctx.agent, 'POST', configMapBody(ns, seqName('warm', i), cfg.payloadBytes));
    storedBytes = Buffer.byteLength(reply.text);
  });
  const server = await runConcurrent(c, n, async (i) => {
    await expect(201, collection, ctx.agent, 'POST', configMapBody(ns, seqName('cm', i), cfg.payloadBytes));
  });
  const serverBatching = await batching(ctx.serverDb, ns, 'cm');

  const rawPool = newPool(ctx.rawDbUrl, c);
  try {
    ctx.step('creates: raw one-op', `${n} one-op kube_write_batch calls from ${c} connections`);
    const single = async (i: number, prefix: string) => {
      const res = await rawPool.query({ name: 'kube_write_batch', text: WRITE_BATCH_SQL, values: [encodeOps([createOp('raw-single', seqName(prefix, i), cfg.payloadBytes)])] });
      if (res.rows[0]?.outcome !== 'ok') throw new Error(`raw create: ${res.rows[0]?.outcome}`);
    };
    await runConcurrent(c, warm, (i) => single(i, 'warm'));
    const raw = await runConcurrent(c, n, (i) => single(i, 'cm'));

    ctx.step('creates: raw WriteBatcher', `${n} creates from ${c} concurrent callers`);
    const batcher = new WriteBatcher(rawPool);
    const batched = async (i: number, prefix: string) => {
      const r = await batcher.write(createOp('raw-batched', seqName(prefix, i), cfg.payloadBytes));
      if (r.outcome !== 'ok') throw new Error(`batched create: ${r.outcome}`);
    };
    await runConcurrent(c, warm, (i) => batched(i, 'warm'));
    const group = await runConcurrent(c, n, (i) => batched(i, 'cm'));
    const groupBatching = await batching(rawPool, 'raw-batched', 'cm');

    const details = (r: LoadResult, b?: unknown) => ({ ...r, ...(b ? { batching: b } : {}) });
    return [
      {
        id: 'creates_per_second',
        metric: `creates/s, ${c} clients`,
        unit: 'ops/s',
        server: server.opsPerSecond,
        raw: raw.opsPerSecond,
        better: 'higher',
        note:
          `${c} pg connections each calling kube_write_batch with a one-op batch (one transaction + NOTIFY per create). ` +
          `Stored objects ~${storedBytes} B. The server committed ${serverBatching.rows} creates in ${serverBatching.transactions} transactions ` +
          `(mean batch ${serverBatching.meanBatch}); it also reads the namespace once per create (NamespaceLifecycle).`,
        details: { server: details(server, serverBatching), raw: details(raw) },
      },
      {
        id: 'creates_per_second_group_commit',
        metric: `creates/s, ${c} clients vs raw group commit`,
        unit: 'ops/s',
        server: server.opsPerSecond,
        raw: group.opsPerSecond,
        better: 'higher',
        note:
          `what batching achieves: the server's WriteBatcher driven directly by ${c} concurrent callers (no HTTP, no namespace read), ` +
          `${groupBatching.rows} creates in ${groupBatching.transactions} transactions (mean batch ${groupBatching.meanBatch}).`,
        details: { raw: details(group, groupBatching) },
      },
      {
        id: 'create_latency_p50',
        metric: `create latency p50, ${c} clients`,
        unit: 'ms',
        server: server.latency.p50,
        raw: raw.latency.p50,
        better: 'lower',
        note: 'raw: one-op kube_write_batch round trip under the same concurrency.',
      },
      {
        id: 'create_latency_p99',
        metric: `create latency p99, ${c} clients`,
        unit: 'ms',
        server: server.latency.p99,
        raw: raw.latency.p99,
        better: 'lower',
      },
    ];
  } finally {
    await rawPool.end();
  }
}
