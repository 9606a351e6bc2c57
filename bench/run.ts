/**
 * `npm run bench`: the server beside raw PostgreSQL on this machine. See bench/README.md.
 */
import os from 'node:os';
import { performance } from 'node:perf_hooks';
import pg from 'pg';
import pino from 'pino';
import { migrateUp, openDatabase } from '../src/storage/postgres/database.ts';
import { ADMIN_URL, createTestDatabase, type TestDatabase } from '../test/helpers/database.ts';
import { loadBenchConfig, type BenchConfig } from './config.ts';
import { logLine, newPool, type BenchContext } from './context.ts';
import { CpuPhases } from './cpu.ts';
import { measureApf } from './apf.ts';
import { measureApplies } from './applies.ts';
import { measureAuthGets } from './auth-gets.ts';
import { measureCreates } from './creates.ts';
import { measureCustomResources } from './custom-resources.ts';
import { measureGets } from './gets.ts';
import { measureLists } from './lists.ts';
import { measurePolicies } from './policies.ts';
import { EtcdPeer } from './etcd/peer.ts';
import { ETCD_INSTALL_HINT, findEtcd } from './etcd/server.ts';
import { formatComparison, formatTable, ratioEtcdOf, ratioOf, readPreviousReport, writeReport, type Row } from './report.ts';
import { startBenchServer, type BenchServer } from './server.ts';
import { measureStartup } from './startup.ts';
import { measureWatch } from './watch.ts';

const MEASURES: Record<string, (ctx: BenchContext) => Promise<Row[]>> = {
  creates: measureCreates,
  gets: measureGets,
  authGets: measureAuthGets,
  applies: measureApplies,
  policies: measurePolicies,
  lists: measureLists,
  watch: measureWatch,
  startup: measureStartup,
  apf: measureApf,
  customResources: measureCustomResources,
};

async function postgresFacts(): Promise<Record<string, string>> {
  const c = new pg.Client({ connectionString: ADMIN_URL });
  await c.connect();
  try {
    const version = (await c.query('show server_version')).rows[0].server_version as string;
    const settings = await c.query(
      `select name, setting, unit from pg_settings where name in ('fsync', 'synchronous_commit', 'shared_buffers', 'max_connections', 'wal_level')`,
    );
    const facts: Record<string, string> = { postgres: version };
    for (const r of settings.rows) facts[`pg.${r.name}`] = r.unit && r.unit !== '' ? `${r.setting} (${r.unit})` : r.setting;
    return facts;
  } finally {
    await c.end();
  }
}

function machineFacts(pgFacts: Record<string, string>, cfg: BenchConfig): Record<string, string | number> {
  const cpus = os.cpus();
  return {
    cores: cpus.length,
    cpu: cpus[0]?.model ?? 'unknown',
    memoryGiB: Math.round(os.totalmem() / 2 ** 30),
    node: process.version,
    ...pgFacts,
    serverMode: cfg.serverMode,
  };
}

/** A round (one phase run) in which other work on the machine used more than this many cores is flagged. */
const DISTURBED_CORES = 0.25;

/** Measured phases (warm-ups aside) during which other load exceeded DISTURBED_CORES, numbered by round. */
function disturbedRounds(cpu: CpuPhases): { phase: string; round: number; seconds: number; otherCores: number }[] {
  const seen = new Map<string, number>();
  const out: { phase: string; round: number; seconds: number; otherCores: number }[] = [];
  for (const p of cpu.phases) {
    const round = (seen.get(p.phase) ?? 0) + 1;
    seen.set(p.phase, round);
    if (p.ops !== undefined && !p.phase.endsWith('(warm-up)') && p.otherCores > DISTURBED_CORES) out.push({ phase: p.phase, round, seconds: p.seconds, otherCores: p.otherCores });
  }
  return out;
}

/** Puts the peer's figures on the rows (null where etcd has no equivalent) and adds the watch set-up row. */
function withPeerFigures(rows: Row[], peer: EtcdPeer): Row[] {
  const out: Row[] = rows.map((r) => {
    if (r.etcd !== undefined) return r;
    const f = peer.figures.get(r.id);
    return { ...r, etcd: f?.value ?? null, ...(f?.note ? { etcdNote: f.note } : {}), ...(f?.details ? { etcdDetails: f.details } : {}) };
  });
  const watchRow = rows.find((r) => r.id === 'watch_event_p50');
  const openMs = (watchRow?.details as { openMs?: number } | undefined)?.openMs;
  const etcdOpen = peer.figures.get('watch_open_ms')?.value;
  if (watchRow && openMs !== undefined && etcdOpen !== undefined) {
    const at = out.findIndex((r) => r.id === 'watch_event_p99');
    out.splice(at + 1, 0, {
      id: 'watch_open_ms',
      metric: `time to open ${watchRow.metric.replace(/.*, /, '')}`,
      unit: 'ms',
      server: openMs,
      raw: null,
      better: 'lower',
      etcd: etcdOpen,
      note: 'from the first watch request to the last one answered (server: response headers; etcd: the created confirmation), opened in waves of 50.',
    });
  }
  return out;
}

/** Cores used on average by everything but the server, the bench and its databases' backends. */
function otherLoad(cpu: CpuPhases): number {
  const phases = cpu.aggregated();
  const secs = phases.reduce((s, p) => s + p.seconds, 0);
  return secs > 0 ? phases.reduce((s, p) => s + p.otherCores * p.seconds, 0) / secs : 0;
}

async function main(): Promise<number> {
  const wallStart = performance.now();
  const startedAt = new Date().toISOString();
  const cfg = loadBenchConfig();
  const etcdFound = cfg.peer === 'etcd' ? findEtcd() : undefined;
  if (cfg.peer === 'etcd' && !etcdFound) {
    process.stderr.write(`--peer etcd: ${ETCD_INSTALL_HINT}\n`);
    return 2;
  }
  const facts = { ...machineFacts(await postgresFacts(), cfg), ...(etcdFound ? { etcd: etcdFound.version } : {}), getsHttp: cfg.http };
  logLine(`scale ${cfg.scale}, server ${cfg.serverMode}, measures ${[...cfg.only].join(', ')}`);

  let server: BenchServer | undefined;
  let rawDb: TestDatabase | undefined;
  let serverDb: pg.Pool | undefined;
  const rows: Row[] = [];
  const failures: string[] = [];
  let cpu: CpuPhases | undefined;
  let peer: EtcdPeer | undefined;
  const stopAll = async () => {
    await peer?.stop().catch((err) => logLine(`stopping etcd failed: ${(err as Error).message}`));
    await serverDb?.end().catch(() => undefined);
    serverDb = undefined;
    await server?.stop().catch((err) => logLine(`stopping the server failed: ${(err as Error).message}`));
    server = undefined;
    await rawDb?.drop().catch((err) => logLine(`dropping the raw database failed: ${(err as Error).message}`));
    rawDb = undefined;
  };
  const onSignal = () => {
    logLine('interrupted: cleaning up');
    void stopAll().finally(() => process.exit(130));
  };
  process.once('SIGINT', onSignal);
  process.once('SIGTERM', onSignal);

  try {
    logLine('starting the server and the raw database');
    rawDb = await createTestDatabase('pgkube_bench_raw');
    server = await startBenchServer(cfg.serverMode);
    const raw = await openDatabase({ url: rawDb.url, maxConnections: 2, logger: pino({ level: 'silent' }) });
    try {
      await migrateUp(raw.db);
    } finally {
      await raw.close();
    }
    serverDb = newPool(server.databaseUrl, cfg.concurrency);
    const running = server;
    cpu = new CpuPhases(running.pid, [new URL(running.databaseUrl).pathname.slice(1), rawDb.name]);
    const phases = cpu;
    const step: BenchContext['step'] = (phase, detail, ops) => {
      phases.mark(phase, ops);
      if (detail) logLine(`${phase}: ${detail}`);
    };
    if (cfg.peer === 'etcd') {
      logLine(`starting etcd ${etcdFound!.version} beside the server`);
      peer = await EtcdPeer.start(cfg.payloadBytes, step);
      phases.addPeer(peer.server.pid);
    }
    const ctx: BenchContext = {
      cfg,
      server: running,
      agent: running.agent(),
      serverDb,
      rawDbUrl: rawDb.url,
      ...(peer ? { peer } : {}),
      trackPeerCpu: (pid) => phases.addPeer(pid),
      url: (p) => new URL(p, running.url),
      step,
    };
    for (const [name, measure] of Object.entries(MEASURES)) {
      if (!cfg.only.has(name)) continue;
      try {
        rows.push(...(await measure(ctx)));
        // etcd's watch runs right after the server's, with the same watchers and writes.
        if (name === 'watch' && peer) await peer.watch(cfg.watchers, cfg.watchWrites, cfg.watchGapMs, step);
      } catch (err) {
        failures.push(`${name}: ${(err as Error).stack ?? err}`);
        logLine(`${name} failed: ${(err as Error).message}`);
      }
      phases.mark();
    }
  } finally {
    logLine('cleaning up');
    await stopAll();
    process.off('SIGINT', onSignal);
    process.off('SIGTERM', onSignal);
  }

  const finalRows = peer ? withPeerFigures(rows, peer) : rows;
  const disturbed = cpu ? disturbedRounds(cpu) : [];
  const wallClockSeconds = Number(((performance.now() - wallStart) / 1000).toFixed(1));
  const out: string[] = [];
  out.push('', `pgkube benchmark — ${startedAt}`);
  out.push(Object.entries(facts).map(([k, v]) => `${k}: ${v}`).join(' | '));
  out.push(`scale ${cfg.scale}: ${cfg.creates} creates, ${cfg.gets} gets, ${cfg.listObjects} listed objects, ${cfg.watchers} watchers × ${cfg.watchWrites} writes, ${cfg.concurrency} clients`);
  out.push('', formatTable(finalRows));
  const busy = cpu ? otherLoad(cpu) : 0;
  if (busy > 0.25) {
    out.push('', `WARNING: other work used ${busy.toFixed(2)} cores on average during the run (see "other" below): every figure is depressed; compare runs on a quiet machine.`);
  }
  if (disturbed.length > 0) {
    out.push('', `Disturbed rounds (other work above ${DISTURBED_CORES} cores while they ran; their figures are depressed):`);
    const byPhase = new Map<string, typeof disturbed>();
    for (const d of disturbed) byPhase.set(d.phase, [...(byPhase.get(d.phase) ?? []), d]);
    for (const [phase, list] of byPhase) {
      out.push(`  ${phase}: round${list.length > 1 ? 's' : ''} ${list.map((d) => `${d.round} (${d.otherCores} cores, ${d.seconds} s)`).join(', ')}`);
    }
  }
  if (cpu && cpu.aggregated().length > 0) out.push('', `CPU by phase (cores busy on average; ${os.cpus().length} = machine saturated; postgres = backends of the bench's databases, peer = etcd and the bare HTTPS server, other = WAL writer, checkpointer and anything else on the machine; ops/s with a free server = the cores over what the bench, PostgreSQL and the rest spent per operation, the most any server could reach here):`, cpu.format());
  const previous = await readPreviousReport(cfg.resultsFile);
  const comparison = previous ? formatComparison(previous, finalRows, cfg.scale) : '';
  if (comparison) out.push('', comparison);
  out.push('', `wall clock ${wallClockSeconds} s${failures.length ? `; ${failures.length} measure(s) FAILED` : ''}`);
  for (const f of failures) out.push(`FAILED ${f}`);
  process.stdout.write(`${out.join('\n')}\n`);

  await writeReport(cfg.resultsFile, {
    startedAt,
    wallClockSeconds,
    machine: { ...facts, otherLoadCores: cpu ? Number(otherLoad(cpu).toFixed(2)) : 0 },
    config: { ...cfg, only: [...cfg.only] },
    rows: finalRows.map((r) => ({ ...r, ratio: ratioOf(r), ...(r.etcd !== undefined ? { ratioEtcd: ratioEtcdOf(r) } : {}) })),
    disturbedRounds: disturbed,
    ...(cpu ? { cpu: cpu.aggregated() } : {}),
    ...(failures.length ? { failures } : {}),
  });
  logLine(`results written to ${cfg.resultsFile}`);
  return failures.length > 0 ? 1 : 0;
}

main().then(
  (code) => process.exit(code),
  (err) => {
    process.stderr.write(`bench failed: ${(err as Error).stack ?? err}\n`);
    process.exit(1);
  },
);
