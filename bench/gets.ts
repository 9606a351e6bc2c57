import { ensureNamespace, seedConfigMaps, type BenchContext } from './context.ts';
import { expect } from './http.ts';
import { runConcurrent } from './load.ts';
import type { Row } from './report.ts';

const OBJECTS = 1000;
/** The statement PostgresStorage.get runs (same name and text). */
const GET_SQL = 'select object::text as object, resource_version from objects where api_group = $1 and resource = $2 and namespace = $3 and name = $4';

/** Gets/s with N concurrent clients over 1,000 ConfigMaps, beside the storage's get statement run raw. */
export async function measureGets(ctx: BenchContext): Promise<Row[]> {
  const { cfg } = ctx;
  const c = cfg.concurrency;
  const n = cfg.gets;
  const ns = 'bench-gets';
  await ensureNamespace(ctx, ns);
  const names = await seedConfigMaps(ctx.serverDb, ns, 'cm', OBJECTS, cfg.payloadBytes);
  const urls = names.map((name) => ctx.url(`/api/v1/namespaces/${ns}/configmaps/${name}`));
  const warm = Math.min(1000, Math.max(50, Math.round(n / 10)));

  ctx.step('gets: server', `${n} gets from ${c} HTTPS clients (after ${warm} warm-up)`);
  await runConcurrent(c, warm, async (i) => void (await expect(200, urls[i % OBJECTS], ctx.agent)));
  const server = await runConcurrent(c, n, async (i) => void (await expect(200, urls[(i * 7919) % OBJECTS], ctx.agent)));

  ctx.step('gets: raw', `${n} get statements from ${c} connections`);
  const pool = ctx.serverDb;
  const get = async (i: number) => {
    const res = await pool.query({ name: 'storage_get', text: GET_SQL, values: ['', 'configmaps', ns, names[(i * 7919) % OBJECTS]] });
    if (res.rows.length !== 1) throw new Error('raw get found nothing');
  };
  await runConcurrent(c, warm, get);
  const raw = await runConcurrent(c, n, get);

  return [
    {
      id: 'gets_per_second',
      metric: `gets/s, ${c} clients`,
      unit: 'ops/s',
      server: server.opsPerSecond,
      raw: raw.opsPerSecond,
      better: 'higher',
      note: `${c} pg connections running the storage's prepared get-by-key statement (${OBJECTS} objects).`,
      details: { server, raw },
    },
    {
      id: 'get_latency_p99',
      metric: `get latency p99, ${c} clients`,
      unit: 'ms',
      server: server.latency.p99,
      raw: raw.latency.p99,
      better: 'lower',
    },
  ];
}
