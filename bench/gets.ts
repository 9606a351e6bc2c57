import { ensureNamespace, seedConfigMaps, type BenchContext } from './context.ts';
import { expect } from './http.ts';
import { interleavedRounds } from './load.ts';
import type { Row } from './report.ts';

const OBJECTS = 1000;
/** The statement PostgresStorage.get runs (same name and text). */
const GET_SQL = 'select object::text as object, resource_version, written_outside from objects where api_group = $1 and resource = $2 and namespace = $3 and name = $4';

/** Gets/s with N concurrent clients over 1,000 ConfigMaps, beside the storage's get statement run raw. */
export async function measureGets(ctx: BenchContext): Promise<Row[]> {
  const { cfg } = ctx;
  const c = cfg.concurrency;
  const ns = 'bench-gets';
  await ensureNamespace(ctx, ns);
  ctx.step('gets: seed', `${OBJECTS} ConfigMaps`);
  const names = await seedConfigMaps(ctx.serverDb, ns, 'cm', OBJECTS, cfg.payloadBytes);
  const urls = names.map((name) => ctx.url(`/api/v1/namespaces/${ns}/configmaps/${name}`));
  const pick = (i: number) => (i * 7919) % OBJECTS;

  ctx.step('gets', `${cfg.gets} gets each for the server and raw, ${c} clients, ${cfg.rounds} interleaved rounds`);
  const results = await interleavedRounds(
    [
      { name: 'gets: server', op: async (i) => void (await expect(200, urls[pick(i)], ctx.agent)) },
      {
        name: 'gets: raw',
        op: async (i) => {
          const res = await ctx.serverDb.query({ name: 'storage_get', text: GET_SQL, values: ['', 'configmaps', ns, names[pick(i)]] });
          if (res.rows.length !== 1) throw new Error('raw get found nothing');
        },
      },
    ],
    { concurrency: c, total: cfg.gets, rounds: cfg.rounds, warmup: Math.min(1000, Math.max(50, Math.round(cfg.gets / 10))), onPhase: (p, ops) => ctx.step(p, '', ops) },
  );
  const server = results['gets: server'];
  const raw = results['gets: raw'];

  return [
    {
      id: 'gets_per_second',
      metric: `gets/s, ${c} clients`,
      unit: 'ops/s',
      server: server.opsPerSecond,
      raw: raw.opsPerSecond,
      better: 'higher',
      note:
        `${c} pg connections running the storage's prepared get-by-key statement (${OBJECTS} objects). ` +
        `Rounds (ops/s): server ${server.rounds.join(', ')}; raw ${raw.rounds.join(', ')}.`,
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
