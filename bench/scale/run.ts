/**
 * `npm run bench:scale`: the server with many objects and watchers (see bench/README.md, "Scale run").
 * One server process on a fresh database, phases in order:
 *   1. N objects (default 100,000) and W watchers (1,000) on them, a few writes fanned out to all, a full
 *      list of the N: the server's RSS sampled throughout (goal ≤ 512 MiB);
 *   2. the resource grown to M objects (1,000,000) straight through kube_write_batch, then label-selected
 *      lists and a limit=500 list walked by continue tokens (p50/p99);
 *   3. the server restarted on that data (start-up time), with a short --history-window and
 *      --compaction-interval;
 *   4. sustained writes at a steady rate while the history table's size is sampled (compaction keeping up).
 * Figures go to bench/results/scale-latest.json (BENCH_SCALE_RESULTS overrides).
 */
import { spawnSync } from 'node:child_process';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import https from 'node:https';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import type pg from 'pg';
import { createTestDatabase, type TestDatabase } from '../../test/helpers/database.ts';
import { startServerProcess, type ServerProcess } from '../../test/helpers/server-process.ts';
import { logLine, newPool } from '../context.ts';
import { expect, send } from '../http.ts';
import { createOp, encodeOps, seqName, WRITE_BATCH_SQL } from '../objects.ts';
import { readAdminTls } from '../server.ts';
import { rounded, summarize, type Summary } from '../stats.ts';
import { loadScaleConfig, type ScaleConfig } from './config.ts';
import { RssSampler, rssMiB } from './rss.ts';

const ROOT = path.resolve(import.meta.dirname, '../..');
const SMALL_NS = 'scale-a';
const BIG_NS = 'scale-b';
const WATCH_NAME_RE = /"name": ?"sw-(\d+)"/;
const OPEN_WAVE = 50;
const SOCKETS_PER_AGENT = 256;

/** Builds dist/ first when it is stale, so no start-up time includes a build. */
function ensureBuilt(): void {
  const check = spawnSync(process.execPath, ['-e', "import('./scripts/build-inputs.mjs').then((m) => process.exit(m.builtDigest() === m.sourceDigest() ? 0 : 1))"], { cwd: ROOT });
  if (check.status === 0) return;
  logLine('dist/ is stale: building it first (not timed)');
  const res = spawnSync(process.execPath, ['scripts/build.mjs'], { cwd: ROOT, stdio: 'inherit' });
  if (res.status !== 0) throw new Error('build failed');
}

function tierOf(i: number, cfg: ScaleConfig): string {
  return `t${i % cfg.labelValues}`;
}

/** Writes `count` ConfigMaps (labels app=bench, tier=t<i mod labelValues>) through kube_write_batch in big batches. */
async function seed(pool: pg.Pool, cfg: ScaleConfig, namespace: string, from: number, count: number): Promise<{ seconds: number; perSecond: number }> {
  const t0 = performance.now();
  let lastLog = t0;
  for (let i = from; i < from + count; i += cfg.seedBatch) {
    const ops = [];
    for (let j = i; j < Math.min(from + count, i + cfg.seedBatch); j++) ops.push(createOp(namespace, seqName('cm', j), cfg.payloadBytes, { tier: tierOf(j, cfg) }));
    const res = await pool.query(WRITE_BATCH_SQL, [encodeOps(ops)]);
    const bad = res.rows.find((r: { outcome: string }) => r.outcome !== 'ok');
    if (bad) throw new Error(`seeding ${namespace}: ${bad.outcome}`);
    if (performance.now() - lastLog > 10_000) {
      lastLog = performance.now();
      logLine(`  seeded ${i + ops.length - from} of ${count}`);
    }
  }
  const seconds = (performance.now() - t0) / 1000;
  return { seconds: Number(seconds.toFixed(1)), perSecond: Math.round(count / seconds) };
}

async function timeRepeats(times: number, fn: () => Promise<unknown>): Promise<Summary> {
  const samples: number[] = [];
  for (let i = 0; i < times; i++) {
    const t0 = performance.now();
    await fn();
    samples.push(performance.now() - t0);
  }
  return rounded(summarize(samples));
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

async function main(): Promise<number> {
  const cfg = loadScaleConfig();
  const startedAt = new Date().toISOString();
  logLine(`scale run: ${cfg.objects} objects × ${cfg.watchers} watchers; ${cfg.bigObjects} objects in one resource; server ${cfg.serverBuild}`);
  if (cfg.serverBuild === 'compiled') ensureBuilt();

  const db: TestDatabase = await createTestDatabase('pgkube_scale');
  const dataDir = await mkdtemp(path.join(tmpdir(), 'pgkube-scale-'));
  const pool = newPool(db.url, 2);
  let server: ServerProcess | undefined;
  let agents: https.Agent[] = [];
  const results: Record<string, unknown> = {};
  const start = async (flags: string[]) => {
    const t0 = performance.now();
    const s = await startServerProcess(db.url, dataDir, flags, { compiled: cfg.serverBuild === 'compiled', distOnly: true, nodeArgs: ['--enable-source-maps'], startTimeoutMs: 600_000 });
    return { s, ms: Math.round(performance.now() - t0) };
  };
  let rss: RssSampler | undefined;
  try {
    const first = await start([]);
    server = first.s;
    results.firstStartMs = first.ms;
    const tls = await readAdminTls(dataDir);
    const agent = new https.Agent({ ca: tls.ca, cert: tls.cert, key: tls.key, keepAlive: true });
    agents.push(agent);
    const url = (p: string) => new URL(p, server!.url);
    for (const ns of [SMALL_NS, BIG_NS]) {
      await expect(201, url('/api/v1/namespaces'), agent, 'POST', JSON.stringify({ apiVersion: 'v1', kind: 'Namespace', metadata: { name: ns } }));
    }
    rss = new RssSampler(server.child.pid!);
    await sleep(1000);
    rss.phase(`seed ${cfg.objects}`);

    // 1. N objects, W watchers, RSS.
    logLine(`seeding ${cfg.objects} ConfigMaps`);
    results.seedSmall = await seed(pool, cfg, SMALL_NS, 0, cfg.objects);
    rss.phase(`hold ${cfg.objects}`);
    await sleep(3000);
    const collection = `/api/v1/namespaces/${SMALL_NS}/configmaps`;
    const rv = (JSON.parse((await expect(200, url(`${collection}?limit=1`), agent)).text) as { metadata: { resourceVersion: string } }).metadata.resourceVersion;
    rss.phase(`open ${cfg.watchers} watchers`);
    logLine(`opening ${cfg.watchers} watches`);
    const watchAgents = Array.from({ length: Math.ceil(cfg.watchers / SOCKETS_PER_AGENT) }, () => new https.Agent({ ca: tls.ca, cert: tls.cert, key: tls.key, keepAlive: true, maxSockets: SOCKETS_PER_AGENT }));
    agents.push(...watchAgents);
    const received = new Map<number, number>();
    const waiters = new Map<number, () => void>();
    const sendAt = new Map<number, number>();
    const latencies: number[] = [];
    const requests: ReturnType<typeof https.request>[] = [];
    const onLine = (line: string, at: number) => {
      const m = WATCH_NAME_RE.exec(line);
      if (!m) return;
      const k = Number(m[1]);
      const n = (received.get(k) ?? 0) + 1;
      received.set(k, n);
      latencies.push(at - (sendAt.get(k) ?? at));
      if (n === cfg.watchers) waiters.get(k)?.();
    };
    const openWatch = (i: number) =>
      new Promise<void>((resolve, reject) => {
        const req = https.request(url(`${collection}?watch=true&resourceVersion=${rv}&timeoutSeconds=3600`), { agent: watchAgents[i % watchAgents.length], headers: { Accept: 'application/json' } }, (res) => {
          if (res.statusCode !== 200) return reject(new Error(`watch ${i}: ${res.statusCode}`));
          let buf = '';
          res.setEncoding('utf8');
          res.on('data', (chunk: string) => {
            const at = performance.now();
            buf += chunk;
            let nl: number;
            while ((nl = buf.indexOf('\n')) >= 0) {
              onLine(buf.slice(0, nl), at);
              buf = buf.slice(nl + 1);
            }
          });
          resolve();
        });
        req.on('error', (err) => (requests.includes(req) && !req.destroyed ? reject(err) : undefined));
        req.end();
        requests.push(req);
      });
    const openStart = performance.now();
    for (let i = 0; i < cfg.watchers; i += OPEN_WAVE) await Promise.all(Array.from({ length: Math.min(OPEN_WAVE, cfg.watchers - i) }, (_, j) => openWatch(i + j)));
    results.watchOpenMs = Math.round(performance.now() - openStart);
    rss.phase(`${cfg.watchWrites} writes to ${cfg.watchers} watchers`);
    let undelivered = 0;
    for (let k = 0; k < cfg.watchWrites; k++) {
      const delivered = new Promise<boolean>((resolve) => {
        const timer = setTimeout(() => resolve(false), 30_000);
        waiters.set(k, () => {
          clearTimeout(timer);
          resolve(true);
        });
      });
      const body = JSON.stringify({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: `sw-${k}`, namespace: SMALL_NS }, data: { payload: 'x'.repeat(Math.max(1, cfg.payloadBytes - 260)) } });
      sendAt.set(k, performance.now());
      await expect(201, url(collection), agent, 'POST', body);
      if (!(await delivered)) undelivered++;
      waiters.delete(k);
    }
    results.watchDelivery = { ...rounded(summarize(latencies)), undeliveredWrites: undelivered };
    rss.phase(`full list of ${cfg.objects} with watchers open`);
    logLine(`full list of ${cfg.objects}`);
    const fullList = await timeRepeats(1, () => expect(200, url(collection), agent));
    results.fullListSmallMs = fullList.p50;
    rss.phase('watchers closed');
    for (const r of requests) r.destroy();
    for (const a of watchAgents) a.destroy();
    agents = agents.filter((a) => !watchAgents.includes(a));
    await sleep(3000);
    rss.sample();

    // 2. M objects in one resource: label-selected and paged lists.
    const more = cfg.bigObjects - cfg.objects;
    rss.phase(`seed to ${cfg.bigObjects}`);
    logLine(`seeding ${more} more ConfigMaps (${cfg.bigObjects} in all)`);
    results.seedBig = await seed(pool, cfg, BIG_NS, cfg.objects, more);
    const dbSize = await pool.query(`select pg_total_relation_size('objects')::bigint as objects, pg_total_relation_size('history')::bigint as history, pg_database_size(current_database())::bigint as db`);
    results.databaseMiB = Object.fromEntries(Object.entries(dbSize.rows[0] as Record<string, string>).map(([k, v]) => [k, Math.round(Number(v) / 2 ** 20)]));
    // What autovacuum does within a minute or two of a bulk load, done now: the planner's statistics
    // still describe the table as it was before the load (it then sorts a million rows for a page
    // of 500), and without a visibility map a count reads the whole heap. The lists below measure
    // the steady state; how long the vacuum took is reported beside them.
    rss.phase('vacuum analyze');
    const vacuumStart = performance.now();
    await pool.query('vacuum (analyze) objects, history');
    results.vacuumAnalyzeMs = Math.round(performance.now() - vacuumStart);
    rss.phase('label-selected lists');
    const selector = encodeURIComponent('tier=t7');
    const expectSelected = Math.floor(cfg.bigObjects / cfg.labelValues) + (cfg.bigObjects % cfg.labelValues > 7 ? 1 : 0);
    const probe = JSON.parse((await expect(200, url(`/api/v1/configmaps?labelSelector=${selector}`), agent)).text) as { items: unknown[] };
    if (probe.items.length !== expectSelected) throw new Error(`labelSelector tier=t7 returned ${probe.items.length}, expected ${expectSelected}`);
    logLine(`label-selected lists: ${expectSelected} of ${cfg.bigObjects}`);
    results.labelSelectedList = { matched: expectSelected, of: cfg.bigObjects, ms: await timeRepeats(cfg.listRepeats, () => expect(200, url(`/api/v1/configmaps?labelSelector=${selector}`), agent)) };
    results.labelSelectedPage = {
      limit: cfg.pageLimit,
      ms: await timeRepeats(cfg.listRepeats * 3, () => expect(200, url(`/api/v1/configmaps?labelSelector=${selector}&limit=${cfg.pageLimit}`), agent)),
    };
    rss.phase('paged list');
    logLine(`walking ${cfg.pages} pages of limit=${cfg.pageLimit}`);
    const pageTimes: number[] = [];
    let token: string | undefined;
    let items = 0;
    let stoppedBy: string | undefined;
    for (let p = 0; p < cfg.pages; p++) {
      const t0 = performance.now();
      const reply = await send(url(`/api/v1/configmaps?limit=${cfg.pageLimit}${token ? `&continue=${encodeURIComponent(token)}` : ''}`), agent);
      if (reply.status === 410) {
        // The walk outlived the history window (--history-window, 5m by default): its token expired.
        stoppedBy = `410 Expired at page ${p + 1}, ${Math.round(pageTimes.reduce((a, b) => a + b, 0) / 1000)} s into the walk`;
        break;
      }
      if (reply.status !== 200) throw new Error(`page ${p + 1}: ${reply.status} ${reply.text.slice(0, 300)}`);
      pageTimes.push(performance.now() - t0);
      const body = JSON.parse(reply.text) as { items: unknown[]; metadata: { continue?: string; remainingItemCount?: number } };
      items += body.items.length;
      token = body.metadata.continue;
      if (!token) break;
    }
    results.pagedList = { limit: cfg.pageLimit, pages: pageTimes.length, items, ...(stoppedBy ? { stoppedBy } : {}), firstPageMs: pageTimes.length ? Number(pageTimes[0].toFixed(2)) : null, ms: rounded(summarize(pageTimes)) };

    // 3. Restart on the data.
    rss.phase('stopped');
    await server.stop();
    const flags = [`--history-window=${cfg.historyWindow}`, `--compaction-interval=${cfg.compactionInterval}`];
    logLine(`restarting with ${cfg.bigObjects} objects (${flags.join(' ')})`);
    const again = await start(flags);
    server = again.s;
    results.restartMs = again.ms;
    rss.follow(server.child.pid!);
    rss.phase('after restart');
    await sleep(2000);
    results.rssAfterRestartMiB = Math.round(rssMiB(server.child.pid!));

    // 4. Sustained writes; history sampled.
    rss.phase('sustained writes');
    logLine(`writing ${cfg.writeRate}/s for ${cfg.writeSeconds} s (history window ${cfg.historyWindow}, compaction every ${cfg.compactionInterval})`);
    const history: { atS: number; rows: number; historyMiB: number; compactedRv: string | null }[] = [];
    const sampleHistory = async (atS: number) => {
      const r = await pool.query(
        `select (select count(*) from history)::bigint as rows, pg_total_relation_size('history')::bigint as bytes,
                (select max(compacted_resource_version)::text from compaction) as rv`,
      );
      const row = r.rows[0] as { rows: string; bytes: string; rv: string | null };
      history.push({ atS: Number(atS.toFixed(1)), rows: Number(row.rows), historyMiB: Number((Number(row.bytes) / 2 ** 20).toFixed(1)), compactedRv: row.rv });
    };
    await sampleHistory(0);
    const writeLat: number[] = [];
    let failed = 0;
    let inFlight = 0;
    let skipped = 0;
    let sent = 0;
    const t0 = performance.now();
    const pending: Promise<void>[] = [];
    const update = async (k: number) => {
      const i = k % Math.min(cfg.objects, 1000);
      const body = JSON.stringify({
        apiVersion: 'v1',
        kind: 'ConfigMap',
        metadata: { name: seqName('cm', i), namespace: SMALL_NS, labels: { app: 'bench', tier: tierOf(i, cfg), write: String(k) } },
        data: { payload: 'x'.repeat(Math.max(1, cfg.payloadBytes - 260)) },
      });
      inFlight++;
      const s = performance.now();
      try {
        await expect(200, url(`/api/v1/namespaces/${SMALL_NS}/configmaps/${seqName('cm', i)}`), agent, 'PUT', body);
        writeLat.push(performance.now() - s);
      } catch {
        failed++;
      } finally {
        inFlight--;
      }
    };
    let nextSample = 5;
    while ((performance.now() - t0) / 1000 < cfg.writeSeconds) {
      const elapsed = (performance.now() - t0) / 1000;
      const due = Math.floor(elapsed * cfg.writeRate);
      while (sent + skipped < due) {
        // Open loop at a steady rate; a write that would exceed 256 in flight is skipped and counted.
        if (inFlight >= 256) skipped++;
        else pending.push(update(sent++));
      }
      if (elapsed >= nextSample) {
        nextSample += 5;
        await sampleHistory(elapsed);
      }
      await sleep(20);
    }
    await Promise.all(pending);
    await sampleHistory((performance.now() - t0) / 1000);
    results.sustainedWrites = {
      rate: cfg.writeRate,
      seconds: cfg.writeSeconds,
      sent,
      failed,
      skipped,
      historyWindow: cfg.historyWindow,
      compactionInterval: cfg.compactionInterval,
      latencyMs: rounded(summarize(writeLat)),
      history,
    };
  } catch (err) {
    // Keep what was measured: the figures so far are written with the error.
    results.error = (err as Error).stack ?? String(err);
    logLine(`scale run failed: ${(err as Error).message}`);
  } finally {
    const peaks = rss?.stop();
    if (peaks) results.rssMiB = peaks;
    for (const a of agents) a.destroy();
    await server?.stop().catch(() => undefined);
    await pool.end().catch(() => undefined);
    await db.drop().catch((err) => logLine(`dropping the database failed: ${(err as Error).message}`));
    await rm(dataDir, { recursive: true, force: true });
  }

  const peakAll = Math.max(...Object.values((results.rssMiB ?? {}) as Record<string, { peakMiB: number }>).map((p) => p.peakMiB));
  // The goal's phases: holding the N objects, opening the W watchers and fanning writes out to them
  // (seeding, the big lists and the 1M phases are reported by phase beside it).
  const holding = [`hold ${cfg.objects}`, `open ${cfg.watchers} watchers`, `${cfg.watchWrites} writes to ${cfg.watchers} watchers`];
  const holdPeak = Object.entries((results.rssMiB ?? {}) as Record<string, { peakMiB: number }>)
    .filter(([k]) => holding.includes(k))
    .reduce((m, [, v]) => Math.max(m, v.peakMiB), 0);
  const report = { startedAt, config: cfg, rssGoalMiB: 512, rssPeakMiB: peakAll, rssPeakHoldingMiB: holdPeak, ...results };
  await mkdir(path.dirname(cfg.resultsFile), { recursive: true });
  await writeFile(cfg.resultsFile, `${JSON.stringify(report, null, 2)}\n`);
  process.stdout.write(`${summaryLines(report).join('\n')}\n`);
  logLine(`results written to ${cfg.resultsFile}`);
  return results.error ? 1 : 0;
}

/** The headline figures, one per line (everything is in the JSON). */
function summaryLines(r: Record<string, unknown>): string[] {
  const get = (p: string): unknown => p.split('.').reduce<unknown>((o, k) => (o as Record<string, unknown> | undefined)?.[k], r);
  const cfg = r.config as ScaleConfig;
  const sw = r.sustainedWrites as { history: { atS: number; rows: number; historyMiB: number }[]; sent: number; failed: number; skipped: number } | undefined;
  return [
    '',
    `pgkube scale run — ${String(r.startedAt)}${r.error ? ` — FAILED: ${String(r.error).split('\n')[0]}` : ''}`,
    `RSS peak ${String(r.rssPeakMiB)} MiB over the run; ${String(r.rssPeakHoldingMiB)} MiB holding ${cfg.objects} objects with ${cfg.watchers} watchers (goal ≤ 512 MiB, big lists and seeding aside)`,
    `  by phase (peak/last MiB): ${Object.entries((r.rssMiB ?? {}) as Record<string, { peakMiB: number; lastMiB: number }>).map(([k, v]) => `${k} ${v.peakMiB}/${v.lastMiB}`).join('; ')}`,
    `${cfg.watchers} watches opened in ${String(r.watchOpenMs)} ms; write→event p50 ${String(get('watchDelivery.p50'))} ms, p99 ${String(get('watchDelivery.p99'))} ms; full list of ${cfg.objects}: ${String(r.fullListSmallMs)} ms`,
    `seeding: ${String(get('seedBig.perSecond'))} objects/s; database ${JSON.stringify(r.databaseMiB)} MiB; vacuum analyze after it ${String(get('vacuumAnalyzeMs'))} ms`,
    `label-selected list (${String(get('labelSelectedList.matched'))} of ${cfg.bigObjects}): p50 ${String(get('labelSelectedList.ms.p50'))} ms, p99 ${String(get('labelSelectedList.ms.p99'))} ms; with limit=${cfg.pageLimit}: p50 ${String(get('labelSelectedPage.ms.p50'))} ms`,
    `paged list limit=${cfg.pageLimit}, ${String(get('pagedList.pages'))} pages: p50 ${String(get('pagedList.ms.p50'))} ms, p99 ${String(get('pagedList.ms.p99'))} ms (first page ${String(get('pagedList.firstPageMs'))} ms)${get('pagedList.stoppedBy') ? `; stopped: ${String(get('pagedList.stoppedBy'))}` : ''}`,
    `start-up: first (empty database) ${String(r.firstStartMs)} ms; restart with ${cfg.bigObjects} objects ${String(r.restartMs)} ms, RSS ${String(r.rssAfterRestartMiB)} MiB after`,
    ...(sw
      ? [
          `sustained writes ${cfg.writeRate}/s for ${cfg.writeSeconds} s (${sw.sent} sent, ${sw.failed} failed, ${sw.skipped} skipped), latency p50 ${String(get('sustainedWrites.latencyMs.p50'))} ms, p99 ${String(get('sustainedWrites.latencyMs.p99'))} ms`,
          `  history rows over time (window ${cfg.historyWindow}, compaction every ${cfg.compactionInterval}): ${sw.history.map((h) => `${h.atS}s ${h.rows} (${h.historyMiB} MiB)`).join(', ')}`,
        ]
      : []),
  ];
}

main().then(
  (code) => process.exit(code),
  (err) => {
    process.stderr.write(`bench:scale failed: ${(err as Error).stack ?? err}\n`);
    process.exit(1);
  },
);
