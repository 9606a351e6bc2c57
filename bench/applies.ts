import { ensureNamespace, type BenchContext } from './context.ts';
import { expect } from './http.ts';
import { interleavedRounds, runConcurrent } from './load.ts';
import type { Row } from './report.ts';

const OBJECTS = 1000;
const APPLY = { 'Content-Type': 'application/apply-patch+yaml' };

/**
 * Server-side apply beside a plain update of the same change on the same objects: each operation
 * sets one data value of one of 1,000 ConfigMaps (each with a ~payload-sized second value), by
 * PATCH application/apply-patch+yaml (merge, ownership, pruning, managedFields) or by PUT of the
 * whole object (managedFields recorded as an Update). The "raw" column is the PUT.
 */
export async function measureApplies(ctx: BenchContext): Promise<Row[]> {
  const { cfg } = ctx;
  const c = cfg.concurrency;
  const ns = 'bench-apply';
  await ensureNamespace(ctx, ns);
  const filler = 'x'.repeat(Math.max(0, cfg.payloadBytes - 300));
  const names = Array.from({ length: OBJECTS }, (_, i) => `cm-${String(i).padStart(6, '0')}`);
  const body = (name: string, value: string) => JSON.stringify({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name, labels: { app: 'bench' } }, data: { v: value, filler } });
  const url = (name: string, query: string) => ctx.url(`/api/v1/namespaces/${ns}/configmaps/${name}${query}`);
  const pick = (i: number) => names[(i * 7919) % OBJECTS]!;

  ctx.step('applies: seed', `${OBJECTS} ConfigMaps created by server-side apply (manager bench)`);
  await runConcurrent(c, OBJECTS, async (i) => void (await expect(201, url(names[i]!, '?fieldManager=bench'), ctx.agent, 'PATCH', body(names[i]!, 'seed'), APPLY)));

  ctx.step('applies', `${cfg.creates} writes each by server-side apply and by PUT, ${c} clients, ${cfg.rounds} interleaved rounds`);
  const results = await interleavedRounds(
    [
      { name: 'applies: server-side apply', op: async (i) => void (await expect(200, url(pick(i), '?fieldManager=bench&force=true'), ctx.agent, 'PATCH', body(pick(i), `a${i}`), APPLY)) },
      { name: 'applies: update (PUT)', op: async (i) => void (await expect(200, url(pick(i), '?fieldManager=bench-put'), ctx.agent, 'PUT', body(pick(i), `u${i}`))) },
    ],
    { concurrency: c, total: cfg.creates, rounds: cfg.rounds, warmup: Math.min(1000, Math.max(50, Math.round(cfg.creates / 10))), onPhase: (p, ops) => ctx.step(p, '', ops) },
  );
  const apply = results['applies: server-side apply']!;
  const put = results['applies: update (PUT)']!;
  return [
    {
      id: 'applies_per_second',
      metric: `server-side applies/s, ${c} clients`,
      unit: 'ops/s',
      server: apply.opsPerSecond,
      raw: put.opsPerSecond,
      better: 'higher',
      note:
        `The "raw" column is a PUT of the same change to the same ${OBJECTS} objects (managedFields recorded as an Update): the ratio is what apply's merge and ownership cost. ` +
        `Rounds (ops/s): apply ${apply.rounds.join(', ')}; PUT ${put.rounds.join(', ')}.`,
      details: { apply, put },
    },
    {
      id: 'apply_latency_p99',
      metric: `server-side apply latency p99, ${c} clients`,
      unit: 'ms',
      server: apply.latency.p99,
      raw: put.latency.p99,
      better: 'lower',
    },
  ];
}
