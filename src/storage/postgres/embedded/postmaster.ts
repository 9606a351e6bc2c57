import { spawn, type ChildProcess } from 'node:child_process';
import type { Logger } from 'pino';
import { StartupError } from '../../../startup-error.ts';
import type { PostgresBinaries } from './binaries.ts';
import type { OsUser } from './os-user.ts';

export interface PostmasterOptions {
  readonly binaries: PostgresBinaries;
  readonly pgdata: string;
  readonly port: number;
  readonly osUser: OsUser | undefined;
  readonly logger: Logger;
}

/** Messages in English whatever the machine's locale: start-up failures are recognised by their text. */
const ENV = { LC_ALL: 'C', LC_MESSAGES: 'C', PATH: process.env.PATH ?? '/usr/bin:/bin' };
const READY = 'database system is ready to accept connections';
const START_TIMEOUT_MS = 120_000;

/** Turns PostgreSQL's own last words into what the operator should know. */
function diagnose(lines: readonly string[], options: PostmasterOptions): string {
  const text = lines.join('\n');
  if (/could not bind .*Address already in use/i.test(text)) {
    return `port ${options.port} on 127.0.0.1 is already in use by another program; choose a free one with --embedded-postgres-port`;
  }
  if (/lock file "postmaster\.pid" already exists/.test(text)) {
    return `${options.pgdata} is in use by another PostgreSQL server (${/PID (\d+)/.exec(text)?.[0] ?? 'see postmaster.pid'})`;
  }
  if (/database files are incompatible with server/.test(text)) {
    return `${options.pgdata} was made by another major version of PostgreSQL: ${lines.find((l) => /DETAIL/.test(l))?.replace(/^.*DETAIL:\s*/, '') ?? text}`;
  }
  const fatal = lines.filter((l) => /FATAL|PANIC|ERROR/.test(l));
  return (fatal.length > 0 ? fatal : lines.slice(-5)).join('; ') || 'it exited without saying why';
}

/**
 * The level a line of PostgreSQL's log is logged at: its FATAL and PANIC lines are warnings, except
 * the one every session still open gets when PostgreSQL shuts down fast (which is how this process
 * stops it: `npm run psql` stopping its PostgreSQL just as the psql session winds down printed it as a
 * warning after the query's output) or is ended by pg_terminate_backend: expected, so information.
 */
export function postgresLogLevel(text: string): 'warn' | 'info' | 'debug' {
  if (/FATAL:\s+terminating connection due to administrator command/.test(text)) return 'info';
  return /FATAL|PANIC/.test(text) ? 'warn' : 'debug';
}

function logLines(logger: Logger, chunk: Buffer, keep: string[]): void {
  for (const line of chunk.toString('utf8').split('\n')) {
    const text = line.trim();
    if (!text) continue;
    keep.push(text);
    if (keep.length > 50) keep.shift();
    logger[postgresLogLevel(text)]({ component: 'postgres' }, text);
  }
}

/** `initdb` for a new cluster: C locale (the byte order keyset pages rely on), UTF-8, scram passwords. */
export async function initdb(options: PostmasterOptions, passwordFile: string): Promise<void> {
  const lines: string[] = [];
  const child = spawn(
    options.binaries.initdb,
    [`--pgdata=${options.pgdata}`, '--username=postgres', `--pwfile=${passwordFile}`, '--auth=scram-sha-256', '--locale=C', '--encoding=UTF8'],
    { env: ENV, stdio: ['ignore', 'pipe', 'pipe'], ...options.osUser },
  );
  child.stdout.on('data', (c: Buffer) => logLines(options.logger, c, lines));
  child.stderr.on('data', (c: Buffer) => logLines(options.logger, c, lines));
  const code = await new Promise<number | null>((resolve, reject) => {
    child.once('error', reject);
    child.once('close', resolve);
  });
  if (code !== 0) throw new StartupError(`initialising the embedded PostgreSQL in ${options.pgdata} failed: ${diagnose(lines, options)}`);
}

/** A running postmaster, our child. */
export class Postmaster {
  readonly #child: ChildProcess;
  readonly #exited: Promise<void>;

  private constructor(child: ChildProcess, exited: Promise<void>) {
    this.#child = child;
    this.#exited = exited;
  }

  get pid(): number | undefined {
    return this.#child.pid;
  }

  /**
   * Starts PostgreSQL listening on 127.0.0.1 only (no Unix socket), and resolves once it accepts
   * connections. It runs in a process group of its own: a Ctrl-C in the terminal, or a signal sent
   * to npm's process group, reaches the server, which stops PostgreSQL last, after its own requests
   * are done, instead of PostgreSQL going down under them.
   */
  static async start(options: PostmasterOptions): Promise<Postmaster> {
    const lines: string[] = [];
    const child = spawn(
      options.binaries.postgres,
      ['-D', options.pgdata, '-p', String(options.port), '-c', 'listen_addresses=127.0.0.1', '-c', 'unix_socket_directories='],
      { env: ENV, stdio: ['ignore', 'pipe', 'pipe'], detached: true, ...options.osUser },
    );
    const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
    await new Promise<void>((resolve, reject) => {
      const timer = setTimeout(() => {
        child.kill('SIGQUIT');
        reject(new StartupError(`the embedded PostgreSQL did not become ready within ${START_TIMEOUT_MS / 1000} s: ${diagnose(lines, options)}`));
      }, START_TIMEOUT_MS);
      child.stderr!.on('data', (chunk: Buffer) => {
        logLines(options.logger, chunk, lines);
        if (lines.some((l) => l.includes(READY))) {
          clearTimeout(timer);
          resolve();
        }
      });
      child.stdout!.on('data', (chunk: Buffer) => logLines(options.logger, chunk, lines));
      child.once('error', (err) => {
        clearTimeout(timer);
        reject(new StartupError(`cannot run ${options.binaries.postgres}: ${err.message}`));
      });
      // 'close' comes after the last output, so the diagnosis sees PostgreSQL's final lines.
      child.once('close', (code, signal) => {
        clearTimeout(timer);
        reject(new StartupError(`the embedded PostgreSQL exited during start-up (${signal ?? `exit code ${code}`}): ${diagnose(lines, options)}`));
      });
    });
    return new Postmaster(child, exited);
  }

  /** A fast shutdown (sessions end, a checkpoint is written); SIGQUIT after `timeoutMs`. */
  async stop(timeoutMs = 30_000): Promise<void> {
    if (this.#child.exitCode !== null || this.#child.signalCode !== null) return;
    this.#child.kill('SIGINT');
    let timer: NodeJS.Timeout | undefined;
    const late = new Promise<'late'>((resolve) => (timer = setTimeout(() => resolve('late'), timeoutMs)));
    if ((await Promise.race([this.#exited, late])) === 'late') {
      this.#child.kill('SIGQUIT');
      await this.#exited;
    }
    clearTimeout(timer);
  }

  /** For a process that is exiting now and cannot wait: PostgreSQL then shuts itself down cleanly. */
  stopWithoutWaiting(): void {
    if (this.#child.exitCode === null && this.#child.signalCode === null) this.#child.kill('SIGINT');
  }
}
