import { setTimeout as sleep } from 'node:timers/promises';
import { ensureNamespace, seedConfigMaps, type BenchContext } from './context.ts';
import { expect, send } from './http.ts';
import { interleavedRounds, opName, runConcurrent, timed } from './load.ts';
import { configMapBody } from './objects.ts';
import type { Row } from './report.ts';
import { rounded, summarize, type Summary } from './stats.ts';

const GROUP = 'bench.example.com';
const CRD_NAME = `widgets.${GROUP}`;

/**
 * A namespaced CRD with a structural schema of the usual shape (a spec with a defaulted field and
 * a string payload, a status subresource): what a custom resource costs beyond a built-in kind is
 * its schema's pruning, defaulting and validation.
 */
const CRD = {
  apiVersion: 'apiextensions.k8s.io/v1',
  kind: 'CustomResourceDefinition',
  metadata: { name: CRD_NAME },
  spec: {
    group: GROUP,
    names: { kind: 'Widget', listKind: 'WidgetList', plural: 'widgets', singular: 'widget' },
    scope: 'Namespaced',
    versions: [
      {
        name: 'v1',
        served: true,
        storage: true,
        subresources: { status: {} },
        schema: {
          openAPIV3Schema: {
            type: 'object',
            properties: {
              spec: {
                type: 'object',
                required: ['payload'],
                properties: {
                  payload: { type: 'string' },
                  replicas: { type: 'integer', minimum: 0, default: 1 },
                  tier: { type: 'string', enum: ['web', 'batch'], default: 'web' },
                },
              },
              status: { type: 'object', properties: { ready: { type: 'boolean' } } },
            },
          },
        },
      },
    ],
  },
};

/** A Widget as a client POSTs it, its payload the size of the bench ConfigMap's (so stored sizes are alike). */
function widgetBody(namespace: string, name: string, bytes: number): string {
  const payload = 'x'.repeat(Math.max(1, bytes - 300));
  return JSON.stringify({ apiVersion: `${GROUP}/v1`, kind: 'Widget', metadata: { name, namespace, labels: { app: 'bench' } }, spec: { payload } });
}

/** Creates the CRD and waits until it is Established and its collection answers. */
async function establish(ctx: BenchContext, probeNamespace: string): Promise<void> {
  await expect(201, ctx.url('/apis/apiextensions.k8s.io/v1/customresourcedefinitions'), ctx.agent, 'POST', JSON.stringify(CRD));
  const deadline = Date.now() + 60_000;
  for (;;) {
    const crd = JSON.parse((await expect(200, ctx.url(`/apis/apiextensions.k8s.io/v1/customresourcedefinitions/${CRD_NAME}`), ctx.agent)).text);
    const established = (crd.status?.conditions ?? []).some((c: { type: string; status: string }) => c.type === 'Established' && c.status === 'True');
    if (established && (await send(ctx.url(`/apis/${GROUP}/v1/namespaces/${probeNamespace}/widgets`), ctx.agent)).status === 200) return;
    if (Date.now() > deadline) throw new Error(`${CRD_NAME} was not served within 60 s: ${JSON.stringify(crd.status)}`);
    await sleep(100);
  }
}

/**
 * Custom resources beside ConfigMaps through the same server: creates/s of a Widget (a CRD with a
 * structural schema) and of a ConfigMap of the same size in interleaved rounds; then full lists of N
 * Widgets and of N ConfigMaps, alternated, p50 and p99. The "raw" column is the ConfigMap figure:
 * the ratio is what serving a kind from a CRD costs over a built-in one.
 */
export async function measureCustomResources(ctx: BenchContext): Promise<Row[]> {
  const { cfg } = ctx;
  const c = cfg.concurrency;
  const ns = 'bench-cr';
  const listNs = 'bench-cr-list';
  await ensureNamespace(ctx, ns);
  await ensureNamespace(ctx, listNs);
  ctx.step('customResources: CRD', `${CRD_NAME} created, waiting for Established`);
  await establish(ctx, ns);

  const widgets = (namespace: string) => ctx.url(`/apis/${GROUP}/v1/namespaces/${namespace}/widgets`);
  const configMaps = (namespace: string) => ctx.url(`/api/v1/namespaces/${namespace}/configmaps`);
  ctx.step('customResources: creates', `${cfg.creates} creates each of a Widget and a ConfigMap, ${c} clients, ${cfg.rounds} interleaved rounds`);
  const results = await interleavedRounds(
    [
      { name: 'customResources: Widget creates', op: async (i) => void (await expect(201, widgets(ns), ctx.agent, 'POST', widgetBody(ns, opName('cr', i), cfg.payloadBytes))) },
      { name: 'customResources: ConfigMap creates', op: async (i) => void (await expect(201, configMaps(ns), ctx.agent, 'POST', configMapBody(ns, opName('cm', i), cfg.payloadBytes))) },
    ],
    { concurrency: c, total: cfg.creates, rounds: cfg.rounds, warmup: Math.min(1000, Math.max(50, Math.round(cfg.creates / 10))), onPhase: (p, ops) => ctx.step(p, '', ops) },
  );
  const crCreates = results['customResources: Widget creates']!;
  const cmCreates = results['customResources: ConfigMap creates']!;

  // Lists: N of each in a namespace of their own. Widgets go through the API (their stored form is the
  // server's business); ConfigMaps straight through kube_write_batch, as the lists measure seeds them.
  const n = cfg.listObjects;
  ctx.step('customResources: seed', `${n} Widgets (POST, ${c} clients) and ${n} ConfigMaps`);
  await runConcurrent(c, n, async (i) => void (await expect(201, widgets(listNs), ctx.agent, 'POST', widgetBody(listNs, opName('cr', i), cfg.payloadBytes))));
  await seedConfigMaps(ctx.serverDb, listNs, 'cm', n, cfg.payloadBytes);
  for (const [what, url] of [
    ['Widgets', widgets(listNs)],
    ['ConfigMaps', configMaps(listNs)],
  ] as const) {
    const count = (JSON.parse((await expect(200, url, ctx.agent)).text) as { items: unknown[] }).items.length;
    if (count !== n) throw new Error(`full list of ${what} returned ${count} items, expected ${n}`);
  }
  const reps = cfg.listRepeats * 2;
  ctx.step('customResources: full lists', `${reps} full lists of ${n} each, alternated`, reps * 2);
  const crSamples: number[] = [];
  const cmSamples: number[] = [];
  for (let r = 0; r < reps; r++) {
    crSamples.push((await timed(() => expect(200, widgets(listNs), ctx.agent))).ms);
    cmSamples.push((await timed(() => expect(200, configMaps(listNs), ctx.agent))).ms);
  }
  const crList: Summary = rounded(summarize(crSamples));
  const cmList: Summary = rounded(summarize(cmSamples));
  const count = n.toLocaleString('en-US');

  return [
    {
      id: 'cr_creates_per_second',
      metric: `custom resource creates/s, ${c} clients`,
      unit: 'ops/s',
      server: crCreates.opsPerSecond,
      raw: cmCreates.opsPerSecond,
      better: 'higher',
      note:
        `Widgets of a CRD with a structural schema (pruning, two defaults, an enum) beside ConfigMaps of the same size through the same server ("raw" column). ` +
        `Rounds (ops/s): Widget ${crCreates.rounds.join(', ')}; ConfigMap ${cmCreates.rounds.join(', ')}.`,
      details: { widget: crCreates, configMap: cmCreates },
    },
    {
      id: 'cr_create_latency_p99',
      metric: `custom resource create latency p99, ${c} clients`,
      unit: 'ms',
      server: crCreates.latency.p99,
      raw: cmCreates.latency.p99,
      better: 'lower',
    },
    {
      id: 'cr_list_full_ms',
      metric: `full list of ${count} custom resources, p50`,
      unit: 'ms',
      server: crList.p50,
      raw: cmList.p50,
      better: 'lower',
      note: `the same list of ${count} ConfigMaps of the same size in the "raw" column (${reps} of each, alternated).`,
      details: { widget: crList, configMap: cmList },
    },
    {
      id: 'cr_list_full_p99_ms',
      metric: `full list of ${count} custom resources, p99`,
      unit: 'ms',
      server: crList.p99,
      raw: cmList.p99,
      better: 'lower',
    },
  ];
}
