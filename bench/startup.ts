import { spawn } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { createInterface } from 'node:readline';
import { createTestDatabase } from '../test/helpers/database.ts';
import { freePort } from '../test/helpers/free-port.ts';
import { ROOT } from '../test/helpers/npm-start.ts';
import type { BenchContext } from './context.ts';
import type { Row } from './report.ts';
import { percentile } from './stats.ts';

/** How a user (or the image) starts the server, and how `npm start` ran before there was a build. */
const COMMANDS = {
  npmStart: ['npm', 'start'],
  compiled: [process.execPath, 'dist/src/main.js'],
  tsx: [process.execPath, '--import', 'tsx', 'src/main.ts'],
} as const;

/** Milliseconds from spawn to the "serving" log line; then a graceful stop. */
async function timeToServing(command: readonly string[], env: Record<string, string>): Promise<number> {
  const started = performance.now();
  const child = spawn(command[0], command.slice(1), { cwd: ROOT, env: { ...process.env, SECURE_PORT: '0', LOG_LEVEL: 'info', WORKERS: process.env.BENCH_WORKERS ?? '1', ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
  const exited = new Promise((resolve) => child.once('exit', resolve));
  let stderr = '';
  child.stderr.on('data', (c: Buffer) => (stderr += c.toString()));
  const elapsed = await new Promise<number>((resolve, reject) => {
    createInterface({ input: child.stdout }).on('line', (line) => {
      if (line.includes('"msg":"serving"')) resolve(performance.now() - started);
    });
    void exited.then(() => reject(new Error(`${command.join(' ')} exited before serving: ${stderr}`)));
  });
  child.kill('SIGTERM');
  await exited;
  return elapsed;
}

/** Start-up on an external database (a fresh one each time: migrations included) for each command. */
async function externalRounds(rounds: number): Promise<Record<keyof typeof COMMANDS, number[]>> {
  const times: Record<keyof typeof COMMANDS, number[]> = { npmStart: [], compiled: [], tsx: [] };
  for (let round = 0; round < rounds; round++) {
    // Interleaved, so drifting background load hits each alike.
    for (const name of Object.keys(COMMANDS) as (keyof typeof COMMANDS)[]) {
      const db = await createTestDatabase('pgkube_bench_start');
      const dataDir = await mkdtemp(path.join(tmpdir(), 'pgkube-bench-start-'));
      try {
        times[name].push(await timeToServing(COMMANDS[name], { DATABASE_URL: db.url, DATA_DIR: dataDir }));
      } finally {
        await db.drop();
        await rm(dataDir, { recursive: true, force: true });
      }
    }
  }
  return times;
}

/** `npm start` with the embedded PostgreSQL: the first start (initdb) and the starts after it. */
async function embeddedRounds(rounds: number): Promise<{ first: number; later: number[] }> {
  const dataDir = await mkdtemp(path.join(tmpdir(), 'pgkube-bench-embedded-'));
  const env = { DATABASE_URL: '', DATA_DIR: dataDir, EMBEDDED_POSTGRES_PORT: String(await freePort()) };
  try {
    const first = await timeToServing(COMMANDS.npmStart, env);
    const later: number[] = [];
    for (let i = 0; i < rounds; i++) later.push(await timeToServing(COMMANDS.npmStart, env));
    return { first, later };
  } finally {
    await rm(dataDir, { recursive: true, force: true });
  }
}

const ms = (n: number) => Number(n.toFixed(0));

/**
 * Start-up time to the first "serving" log line: what `npm start` costs now that it runs the compiled
 * dist/ (built once), beside running the TypeScript sources through tsx as it did before.
 */
export async function measureStartup(ctx: BenchContext): Promise<Row[]> {
  const rounds = Math.max(3, ctx.cfg.rounds + 2);
  ctx.step('startup', `${rounds} interleaved starts of each command on a fresh database`);
  const t = await externalRounds(rounds);
  ctx.step('startup-embedded', 'npm start with the embedded PostgreSQL: first start, then restarts');
  const embedded = await embeddedRounds(rounds);
  const note = (xs: number[]) => `rounds: ${xs.map(ms).join(', ')} ms`;
  return [
    { id: 'startup.npm', metric: 'start-up to serving, npm start (compiled dist/)', unit: 'ms', server: ms(percentile(t.npmStart, 50)), raw: null, better: 'lower', note: `DATABASE_URL set, migrations on a fresh database included; ${note(t.npmStart)}` },
    { id: 'startup.node', metric: 'start-up to serving, node dist/src/main.js (the image)', unit: 'ms', server: ms(percentile(t.compiled, 50)), raw: null, better: 'lower', note: note(t.compiled) },
    { id: 'startup.tsx', metric: 'start-up to serving, node --import tsx src/main.ts (before the build)', unit: 'ms', server: ms(percentile(t.tsx, 50)), raw: null, better: 'lower', note: `tsx's cache warm; ${note(t.tsx)}` },
    { id: 'startup.embedded.first', metric: 'first npm start, embedded PostgreSQL (initdb)', unit: 'ms', server: ms(embedded.first), raw: null, better: 'lower' },
    { id: 'startup.embedded', metric: 'npm start, embedded PostgreSQL (existing data dir)', unit: 'ms', server: ms(percentile(embedded.later, 50)), raw: null, better: 'lower', note: note(embedded.later) },
  ];
}
