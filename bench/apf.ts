/**
 * `BENCH_ONLY=apf`: API priority and fairness. The "raw" column of these rows is a second server
 * started with --enable-priority-and-fairness=false (the max-in-flight limits instead), or nothing
 * for the figures measured in this process.
 */
import { measureCpuPerRequest, measureMicroCost } from './apf-cost.ts';
import { measureFairness, type FairnessResult } from './apf-fairness.ts';
import { APF_NAMESPACE, prepareApfTarget, type ApfTarget } from './apf-setup.ts';
import { newPool, seedConfigMaps, type BenchContext } from './context.ts';
import { expect } from './http.ts';
import type { Row } from './report.ts';
import { startBenchServer } from './server.ts';

/** Gets read from these; the flood lists all of them (about 0.6 MB a list at the default payload). */
const OBJECTS = 500;
const FLOODERS = 200;
const READERS = 4;

export async function measureApf(ctx: BenchContext): Promise<Row[]> {
  const { cfg } = ctx;
  ctx.step('apf: classification', 'classification and dispatch timed in this process');
  const micro = measureMicroCost(Math.max(20_000, Math.round(200_000 * cfg.scale)));

  ctx.step('apf: start', 'a second server with --enable-priority-and-fairness=false');
  const off = await startBenchServer(cfg.serverMode, ['--enable-priority-and-fairness=false']);
  const offDb = newPool(off.databaseUrl, 2);
  try {
    const targets: ApfTarget[] = [await prepareApfTarget('APF on', ctx.server, ctx.agent), await prepareApfTarget('APF off', off, off.agent())];
    const objects = Math.max(100, Math.round(OBJECTS * Math.min(1, cfg.scale * 2)));
    await seedConfigMaps(ctx.serverDb, APF_NAMESPACE, 'cm', objects, cfg.payloadBytes);
    await seedConfigMaps(offDb, APF_NAMESPACE, 'cm', objects, cfg.payloadBytes);
    // A scrape refreshes the stored-object counts at once: lists are then estimated by what they read.
    for (const t of targets) await expect(200, t.url('/metrics'), t.admin);

    ctx.step('apf: cost', `gets and creates as a service account on both servers, ${cfg.concurrency} clients, ${cfg.rounds} interleaved rounds`);
    const cost = await measureCpuPerRequest(targets, {
      objects,
      gets: Math.round(cfg.gets / 2),
      creates: Math.round(cfg.creates / 2),
      concurrency: cfg.concurrency,
      rounds: cfg.rounds,
      payloadBytes: cfg.payloadBytes,
      onPhase: (p, ops) => ctx.step(p, '', ops),
    });

    const seconds = Math.max(3, Math.round(10 * cfg.scale));
    const fairness: Record<string, FairnessResult> = {};
    for (const t of targets) {
      ctx.step(`apf: flood, ${t.label}`, `${FLOODERS} concurrent lists of ${objects} objects for ${seconds} s beside ${READERS} readers' gets and Lease renewals`);
      fairness[t.label] = await measureFairness(t, { seconds, flooders: FLOODERS, readers: READERS, objects });
    }
    const on = fairness['APF on']!;
    const offResult = fairness['APF off']!;
    const floodNote = (r: FairnessResult) =>
      `${r.floodLists} lists served, ${r.floodRejected} answered 429; user p50 ${r.humanGets.p50} ms (${r.humanGets.count} gets, ${r.humanFailures} failed); ` +
      `same-level account p50 ${r.readerGets.p50} ms (${r.readerGets.count}, ${r.readerFailures} failed); renewal p50 ${r.leaseRenewals.p50} ms (${r.leaseRenewals.count}, ${r.renewalFailures} failed)`;

    return [
      {
        id: 'apf_classify_us',
        metric: 'APF classification of a service account\'s get (µs, in process)',
        unit: 'µs',
        server: micro.classifyUs,
        raw: null,
        better: 'lower',
        note: `The 1.34 configuration (13 schemas), matched down to service-accounts; a system:masters request (exempt, the first schema) takes ${micro.classifyExemptUs} µs. Budget: 20 µs.`,
      },
      {
        id: 'apf_dispatch_us',
        metric: 'APF classification + work estimate + dispatch and finish in workload-low (µs, in process)',
        unit: 'µs',
        server: micro.dispatchUs,
        raw: null,
        better: 'lower',
        note: 'What the filter does for a request that finds a free seat, less the HTTP plumbing (128 queues, shuffle-sharded by user).',
      },
      {
        id: 'apf_get_cpu_us',
        metric: 'server CPU per get as a service account, APF on',
        unit: 'µs',
        server: cost.gets['APF on'] ?? null,
        raw: cost.gets['APF off'] ?? null,
        better: 'lower',
        note: 'The "raw" column is a server with --enable-priority-and-fairness=false (max-in-flight instead): the difference is what classification and dispatch cost end to end (CPU read from /proc, 10 ms ticks; null in-process).',
      },
      {
        id: 'apf_create_cpu_us',
        metric: 'server CPU per create as a service account, APF on',
        unit: 'µs',
        server: cost.creates['APF on'] ?? null,
        raw: cost.creates['APF off'] ?? null,
        better: 'lower',
        note: 'The "raw" column is a server with --enable-priority-and-fairness=false.',
      },
      {
        id: 'apf_flood_get_p99',
        metric: `another user's get p99 while one service account runs ${FLOODERS} concurrent lists`,
        unit: 'ms',
        server: on.humanGets.p99,
        raw: offResult.humanGets.p99,
        better: 'lower',
        note:
          `An ordinary user (global-default; the flood is in workload-low), ${READERS} clients. The "raw" column is the server without APF. ` +
          `With APF: ${floodNote(on)}. Without: ${floodNote(offResult)}.`,
        details: fairness,
      },
      {
        id: 'apf_flood_same_level_get_p99',
        metric: `a service account's get p99 in the flooder's own level, same flood`,
        unit: 'ms',
        server: on.readerGets.p99,
        raw: offResult.readerGets.p99,
        better: 'lower',
        note:
          'workload-low, another flow: fair queuing gives it its turn, but it waits for seats the lists hold (a wide list at the head of the dispatch order blocks narrower requests, as upstream), ' +
          'and after the first 10 s adjustment workload-low borrows the idle levels\' seats. The "raw" column is the server without APF.',
      },
      {
        id: 'apf_flood_lease_p99',
        metric: `Lease renewal (get + update) p99 during the same flood`,
        unit: 'ms',
        server: on.leaseRenewals.p99,
        raw: offResult.leaseRenewals.p99,
        better: 'lower',
        note: 'A kube-system service account: the leader-election level with APF. The "raw" column is the server without APF.',
      },
    ];
  } finally {
    await offDb.end().catch(() => undefined);
    await off.stop();
  }
}
