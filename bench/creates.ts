import type pg from 'pg';
import pino from 'pino';
import { PreparedQueries } from '../src/storage/postgres/prepared-queries.ts';
import { WriteBatcher } from '../src/storage/postgres/write-batcher.ts';
import { ensureNamespace, newPool, type BenchContext } from './context.ts';
import { expect } from './http.ts';
import { H2_SESSIONS, Http2Sessions } from './http2.ts';
import { interleavedRounds, opName } from './load.ts';
import { configMapBody, createOp, encodeOps, WRITE_BATCH_SQL } from './objects.ts';
import type { Row } from './report.ts';

/** Measured creates per transaction in a namespace: rows written by one transaction share its now(). */
async function batching(pool: pg.Pool, namespace: string): Promise<{ rows: number; transactions: number; meanBatch: number }> {
  const res = await pool.query(
    `select count(*)::int as rows, count(distinct recorded_at)::int as transactions
       from history where api_group = '' and resource = 'configmaps' and namespace = $1 and name like 'cm-%'`,
    [namespace],
  );
  const { rows, transactions } = res.rows[0] as { rows: number; transactions: number };
  return { rows, transactions, meanBatch: Number((rows / Math.max(1, transactions)).toFixed(2)) };
}

/**
 * Creates/s with N concurrent clients: through the server (HTTPS POST of ~1 KiB ConfigMaps), raw
 * (N connections each running kube_write_batch with a one-op batch: one transaction and one NOTIFY per
 * create), and raw through WriteBatcher (N concurrent callers, group commit, no HTTP). Interleaved rounds.
 */
export async function measureCreates(ctx: BenchContext): Promise<Row[]> {
  const { cfg } = ctx;
  const c = cfg.concurrency;
  const ns = 'bench-creates';
  await ensureNamespace(ctx, ns);
  const collection = ctx.url(`/api/v1/namespaces/${ns}/configmaps`);
  // Over HTTP/2 by default, as kubectl and client-go send them (BENCH_HTTP=1.1: one TLS connection per client).
  const h2 = cfg.http === '2' ? new Http2Sessions(ctx.server.url, ctx.server.tls, H2_SESSIONS) : undefined;
  const post = async (i: number) => {
    const body = configMapBody(ns, opName('cm', i), cfg.payloadBytes);
    return h2 ? h2.expect(201, collection.pathname, 'POST', body) : expect(201, collection, ctx.agent, 'POST', body);
  };
  const rawPool = newPool(ctx.rawDbUrl, c);
  const batcher = new WriteBatcher(new PreparedQueries(rawPool, { pooled: false, logger: pino({ level: 'silent' }) }));
  let storedBytes = 0;
  try {
    ctx.step('creates', `${cfg.creates} creates each for the server, raw one-op and raw WriteBatcher, ${c} clients, ${cfg.rounds} interleaved rounds`);
    const results = await interleavedRounds(
      [
        {
          name: 'creates: server',
          op: async (i) => {
            storedBytes = (await post(i)).text.length;
          },
        },
        {
          name: 'creates: raw one-op',
          op: async (i) => {
            const values = [encodeOps([createOp('raw-single', opName('cm', i), cfg.payloadBytes)])];
            const res = await rawPool.query({ name: 'kube_write_batch', text: WRITE_BATCH_SQL, values });
            if (res.rows[0]?.outcome !== 'ok') throw new Error(`raw create: ${res.rows[0]?.outcome}`);
          },
        },
        {
          name: 'creates: raw WriteBatcher',
          op: async (i) => {
            const r = await batcher.write(createOp('raw-batched', opName('cm', i), cfg.payloadBytes));
            if (r.outcome !== 'ok') throw new Error(`batched create: ${r.outcome}`);
          },
        },
      ],
      { concurrency: c, total: cfg.creates, rounds: cfg.rounds, warmup: Math.min(200, Math.max(20, Math.round(cfg.creates / 10))), onPhase: (p, ops) => ctx.step(p, '', ops) },
    );
    const server = results['creates: server'];
    const raw = results['creates: raw one-op'];
    const group = results['creates: raw WriteBatcher'];
    const serverBatching = await batching(ctx.serverDb, ns);
    const groupBatching = await batching(rawPool, 'raw-batched');

    return [
      {
        id: 'creates_per_second',
        metric: `creates/s, ${c} clients`,
        unit: 'ops/s',
        server: server.opsPerSecond,
        raw: raw.opsPerSecond,
        better: 'higher',
        note:
          `Server clients over ${h2 ? `HTTP/2, ${H2_SESSIONS} sessions` : 'HTTP/1.1 keep-alive'}; raw: ` +
          `${c} pg connections each calling kube_write_batch with a one-op batch (one transaction + NOTIFY per create). ` +
          `Stored objects ~${storedBytes} B. The server committed ${serverBatching.rows} creates in ${serverBatching.transactions} transactions ` +
          `(mean batch ${serverBatching.meanBatch}); the namespace check rides in the same transaction (no extra read). ` +
          `Rounds (ops/s): server ${server.rounds.join(', ')}; raw ${raw.rounds.join(', ')}.`,
        details: { server: { ...server, batching: serverBatching }, raw },
      },
      {
        id: 'creates_per_second_group_commit',
        metric: `creates/s, ${c} clients vs raw group commit`,
        unit: 'ops/s',
        server: server.opsPerSecond,
        raw: group.opsPerSecond,
        better: 'higher',
        note:
          `what batching achieves: the server's own WriteBatcher driven directly by ${c} concurrent callers (no HTTP, no namespace read): ` +
          `${groupBatching.rows} creates in ${groupBatching.transactions} transactions (mean batch ${groupBatching.meanBatch}), latency p50 ${group.latency.p50} ms, p99 ${group.latency.p99} ms; ` +
          `the server's batches: mean ${serverBatching.meanBatch}, latency p50 ${server.latency.p50} ms, p99 ${server.latency.p99} ms. Rounds: ${group.rounds.join(', ')}.`,
        details: { raw: { ...group, batching: groupBatching } },
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
    h2?.close();
    await rawPool.end();
  }
}
