import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import pg from 'pg';
import { ADMIN_URL } from './database.ts';
import { freePort } from './free-port.ts';
import { unprivilegedUser } from './unprivileged-user.ts';

/** Whether PgBouncer is installed (Debian's `pgbouncer` package; CI installs it). */
export function pgbouncerInstalled(): boolean {
  return spawnSync('pgbouncer', ['--version'], { stdio: 'ignore' }).status === 0;
}

export interface PgbouncerOptions {
  /** Server connections per database and user: 1 makes every client share one server session. */
  readonly poolSize?: number;
  /** Hand out server connections in turn rather than reusing the most recent one. */
  readonly roundRobin?: boolean;
}

export interface Pgbouncer {
  readonly port: number;
  /** `url` (a database URL of the test PostgreSQL) routed through this PgBouncer. */
  route(url: string): string;
  /** Rows of an admin console command (SHOW STATS, SHOW POOLS, …). */
  show(what: string): Promise<Record<string, string>[]>;
  stop(): Promise<void>;
}

/**
 * A private PgBouncer in transaction mode on a free loopback port, in front of the test PostgreSQL
 * (ADMIN_URL's server, every database through a `*` entry, trust auth). `stop()` always kills it.
 */
export async function startPgbouncer(options: PgbouncerOptions = {}): Promise<Pgbouncer> {
  const upstream = new URL(ADMIN_URL);
  const user = decodeURIComponent(upstream.username) || 'postgres';
  const dir = await mkdtemp(path.join(tmpdir(), 'pgkube-pgbouncer-'));
  const port = await freePort();
  const server = [`host=${upstream.hostname}`, `port=${upstream.port || 5432}`, `user=${user}`];
  if (upstream.password) server.push(`password=${decodeURIComponent(upstream.password)}`);
  const config = [
    '[databases]',
    `* = ${server.join(' ')}`,
    '',
    '[pgbouncer]',
    'listen_addr = 127.0.0.1',
    `listen_port = ${port}`,
    'unix_socket_dir =',
    'auth_type = trust',
    `auth_file = ${path.join(dir, 'users.txt')}`,
    'pool_mode = transaction',
    `default_pool_size = ${options.poolSize ?? 4}`,
    'max_client_conn = 1000',
    `server_round_robin = ${options.roundRobin ? 1 : 0}`,
    `admin_users = ${user}`,
    // What pg sends at connect; PgBouncer refuses startup parameters it does not know.
    'ignore_startup_parameters = extra_float_digits',
    '',
  ].join('\n');
  await writeFile(path.join(dir, 'users.txt'), `"${user}" ""\n`);
  await writeFile(path.join(dir, 'pgbouncer.ini'), config);

  const runAs = unprivilegedUser();
  const child = spawn('pgbouncer', [...(runAs ? ['-u', runAs.name] : []), path.join(dir, 'pgbouncer.ini')], {
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  const killOnExit = () => child.kill('SIGKILL');
  process.once('exit', killOnExit);
  let log = '';
  child.stderr!.on('data', (c: Buffer) => (log += c.toString()));
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));

  const stop = async () => {
    process.removeListener('exit', killOnExit);
    if (child.exitCode === null && child.signalCode === null) child.kill('SIGTERM'); // 1.18: fast exit
    await Promise.race([exited, new Promise((r) => setTimeout(r, 3000).unref())]);
    if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
    await rm(dir, { recursive: true, force: true });
  };
  try {
    await waitForListening(child, port, user, () => log);
  } catch (err) {
    await stop();
    throw err;
  }

  const route = (url: string) => {
    const routed = new URL(url);
    routed.hostname = '127.0.0.1';
    routed.port = String(port);
    return routed.toString();
  };
  return {
    port,
    route,
    show: async (what) => {
      const client = new pg.Client({ host: '127.0.0.1', port, user, database: 'pgbouncer' });
      await client.connect();
      try {
        return (await client.query(`show ${what}`)).rows;
      } finally {
        await client.end();
      }
    },
    stop,
  };
}

async function waitForListening(child: ChildProcess, port: number, user: string, log: () => string): Promise<void> {
  const deadline = Date.now() + 10_000;
  for (;;) {
    if (child.exitCode !== null) throw new Error(`pgbouncer exited with ${child.exitCode}: ${log()}`);
    const client = new pg.Client({ host: '127.0.0.1', port, user, database: 'pgbouncer' });
    client.on('error', () => undefined);
    try {
      await client.connect();
      await client.end();
      return;
    } catch {
      if (Date.now() > deadline) throw new Error(`pgbouncer did not listen on port ${port}: ${log()}`);
      await new Promise((r) => setTimeout(r, 50));
    }
  }
}
