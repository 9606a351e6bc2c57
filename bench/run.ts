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
import { formatComparison, formatTable, ratioOf, readPreviousReport, writeReport, type Row } from './report.ts';
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
  const facts = machineFacts(await postgresFacts(), cfg);
  logLine(`scale ${cfg.scale}, server ${cfg.serverMode}, measures ${[...cfg.only].join(', ')}`);

  let server: BenchServer | undefined;
  let rawDb: TestDatabase | undefined;
  let serverDb: pg.Pool | undefined;
  const rows: Row[] = [];
  const failures: string[] = [];
  let cpu: CpuPhases | undefined;
  const stopAll = async () => {
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
    const ctx: BenchContext = {
      cfg,
      server: running,
      agent: running.agent(),
      serverDb,
      rawDbUrl: rawDb.url,
      url: (p) => new URL(p, running.url),
      step: (phase, detail, ops) => {
        phases.mark(phase, ops);
        if (detail) logLine(`${phase}: ${detail}`);
      },
    };
    for (const [name, measure] of Object.entries(MEASURES)) {
      if (!cfg.only.has(name)) continue;
      try {
        rows.push(...(await measure(ctx)));
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

  const wallClockSeconds = Number(((performance.now() - wallStart) / 1000).toFixed(1));
  const out: string[] = [];
  out.push('', `pgkube benchmark — ${startedAt}`);
  out.push(Object.entries(facts).map(([k, v]) => `${k}: ${v}`).join(' | '));
  out.push(`scale ${cfg.scale}: ${cfg.creates} creates, ${cfg.gets} gets, ${cfg.listObjects} listed objects, ${cfg.watchers} watchers × ${cfg.watchWrites} writes, ${cfg.concurrency} clients`);
  out.push('', formatTable(rows));
  const busy = cpu ? otherLoad(cpu) : 0;
  if (busy > 0.25) {
    out.push('', `WARNING: other work used ${busy.toFixed(2)} cores on average during the run (see "other" below): every figure is depressed; compare runs on a quiet machine.`);
  }
  if (cpu && cpu.aggregated().length > 0) out.push('', `CPU by phase (cores busy on average; ${os.cpus().length} = machine saturated; postgres = backends of the bench's databases, other = WAL writer, checkpointer and anything else on the machine):`, cpu.format());
  const previous = await readPreviousReport(cfg.resultsFile);
  const comparison = previous ? formatComparison(previous, rows, cfg.scale) : '';
  if (comparison) out.push('', comparison);
  out.push('', `wall clock ${wallClockSeconds} s${failures.length ? `; ${failures.length} measure(s) FAILED` : ''}`);
  for (const f of failures) out.push(`FAILED ${f}`);
  process.stdout.write(`${out.join('\n')}\n`);

  await writeReport(cfg.resultsFile, {
    startedAt,
    wallClockSeconds,
    machine: { ...facts, otherLoadCores: cpu ? Number(otherLoad(cpu).toFixed(2)) : 0 },
    config: { ...cfg, only: [...cfg.only] },
    rows: rows.map((r) => ({ ...r, ratio: ratioOf(r) })),
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
