import { spawn, type ChildProcess } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { createInterface } from 'node:readline';

export const ROOT = path.resolve(import.meta.dirname, '../..');

/** A pino line of the server's log, as JSON. */
export interface LogLine {
  readonly msg?: string;
  readonly level?: number;
  readonly pid?: number;
  readonly [key: string]: unknown;
}

export interface LaunchedServer {
  readonly child: ChildProcess;
  /** The server's own process id (npm's child), from its log. */
  readonly serverPid: number;
  /** The embedded PostgreSQL's postmaster, from the log. */
  readonly postmasterPid: number;
  readonly url: string;
  /** Every log line so far (JSON lines; npm's own lines are skipped). */
  readonly log: LogLine[];
  /** Everything printed so far, as text. */
  output(): string;
  /** Resolves with the exit code (or signal) of the launched command. */
  readonly exited: Promise<number | string | null>;
}

/** Everything launched by this test file, so that a failing test leaves nothing running. */
const launched: { child: ChildProcess; tree: number[] }[] = [];

/** Records the process tree of `child` as it is now, for killEverythingLaunched(). */
export function trackTree(child: ChildProcess): number[] {
  const tree = processTree(child.pid!);
  launched.push({ child, tree });
  return tree;
}

/**
 * SIGKILLs whatever is left of every launched tree (a test that failed may have left the server or
 * PostgreSQL running, and their open output pipes would keep the test process alive).
 */
export function killEverythingLaunched(): void {
  for (const { child, tree } of launched.splice(0)) {
    for (const pid of tree) if (isAlive(pid)) process.kill(pid, 'SIGKILL');
    child.stdout?.destroy();
    child.stderr?.destroy();
  }
}

export interface LaunchOptions {
  readonly dataDir: string;
  readonly postgresPort: number;
  /** The command line; default `npm start`, as the README says. */
  readonly command?: readonly string[];
  /** Its own process group (so the test can signal the group as a terminal or supervisor does). */
  readonly detached?: boolean;
  readonly env?: Record<string, string>;
}

/**
 * Runs the server the way a user does (`npm start` in the project, settings from the environment)
 * against the embedded PostgreSQL of `dataDir`, and resolves once it serves, or rejects with its
 * output when it exits first.
 */
export function launch(options: LaunchOptions): Promise<LaunchedServer> {
  const [cmd, ...args] = options.command ?? ['npm', 'start'];
  const env: Record<string, string | undefined> = {
    ...process.env,
    DATA_DIR: options.dataDir,
    SECURE_PORT: '0',
    EMBEDDED_POSTGRES_PORT: String(options.postgresPort),
    LOG_LEVEL: 'info',
    DATABASE_URL: '',
    // One process (its pid is the server's), unless a test asks for workers.
    WORKERS: '1',
    ...options.env,
  };
  const child = spawn(cmd, args, { cwd: ROOT, env, detached: options.detached ?? false, stdio: ['ignore', 'pipe', 'pipe'] });
  return new Promise((resolve, reject) => {
    let postmasterPid: number | undefined;
    const timer = setTimeout(() => reject(new Error(`the server did not start in 60 s:\n${server.output()}`)), 60_000);
    const server = followLog(child, (entry) => {
      if (entry.msg === 'embedded PostgreSQL started') postmasterPid = entry.postmasterPid as number;
      if (entry.msg === 'serving') {
        clearTimeout(timer);
        trackTree(child);
        resolve({ child, serverPid: entry.pid!, postmasterPid: postmasterPid!, url: entry.url as string, ...server });
      }
    });
    void server.exited.then((code) => {
      clearTimeout(timer);
      reject(Object.assign(new Error(`exited (${code}) before serving:\n${server.output()}`), { output: server.output(), code }));
    });
  });
}

/** What a started server process printed: its JSON log lines, all of it as text, and its exit. */
export interface FollowedLog {
  /** Every log line so far (JSON lines; others, such as npm's own, are skipped). */
  readonly log: LogLine[];
  /** Everything printed so far (stdout and stderr), as text. */
  output(): string;
  /** Resolves with the exit code (or the signal that ended it). */
  readonly exited: Promise<number | string | null>;
}

/** Follows a child's output, handing each JSON log line to `onEntry` as it comes. */
export function followLog(child: ChildProcess, onEntry: (entry: LogLine) => void): FollowedLog {
  const log: LogLine[] = [];
  let text = '';
  const exited = new Promise<number | string | null>((resolve) => child.once('exit', (code, signal) => resolve(code ?? signal)));
  child.stderr!.on('data', (c: Buffer) => (text += c.toString()));
  createInterface({ input: child.stdout! }).on('line', (line) => {
    text += `${line}\n`;
    let entry: LogLine;
    try {
      entry = JSON.parse(line);
    } catch {
      return;
    }
    log.push(entry);
    onEntry(entry);
  });
  return { log, output: () => text, exited };
}

/** Whether a process exists (zombies count as gone). */
export function isAlive(pid: number): boolean {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    return stat.slice(stat.lastIndexOf(')') + 2)[0] !== 'Z';
  } catch {
    return false;
  }
}

/** Every process whose command line mentions `text` (a data dir): what must be gone after a stop. */
export function processesMentioning(text: string): string[] {
  const found: string[] = [];
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry) || Number(entry) === process.pid) continue;
    try {
      const cmd = readFileSync(`/proc/${entry}/cmdline`, 'utf8').split('\0').join(' ');
      if (cmd.includes(text) && isAlive(Number(entry))) found.push(`${entry}: ${cmd}`);
    } catch {
      // gone meanwhile
    }
  }
  return found;
}

/** Polls until none of the pids is alive; returns the ones still alive after `timeoutMs`. */
export async function waitUntilGone(pids: readonly number[], timeoutMs = 15_000): Promise<number[]> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const alive = pids.filter(isAlive);
    if (alive.length === 0 || Date.now() > deadline) return alive;
    await new Promise((r) => setTimeout(r, 50));
  }
}

/** `pid` and every process below it (by parent id), as the system lists them now. */
export function processTree(pid: number): number[] {
  const parents = new Map<number, number>();
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const stat = readFileSync(`/proc/${entry}/stat`, 'utf8');
      parents.set(Number(entry), Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]));
    } catch {
      // gone meanwhile
    }
  }
  const tree = [pid];
  for (let i = 0; i < tree.length; i++) for (const [child, parent] of parents) if (parent === tree[i]) tree.push(child);
  return tree;
}

export interface NpmRunResult {
  readonly code: number | null;
  readonly stdout: string;
  readonly stderr: string;
}

/** `npm run --silent <args…>` in `cwd` with `env` over this environment (no DATABASE_URL unless given). */
export function npmRun(args: readonly string[], options: { cwd?: string; env?: Record<string, string> } = {}): Promise<NpmRunResult> {
  return new Promise((resolve, reject) => {
    const child = spawn('npm', ['run', '--silent', ...args], { cwd: options.cwd ?? ROOT, env: { ...process.env, DATABASE_URL: '', ...options.env } });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (c: Buffer) => (stdout += c.toString()));
    child.stderr.on('data', (c: Buffer) => (stderr += c.toString()));
    child.once('error', reject);
    child.once('close', (code) => resolve({ code, stdout, stderr }));
  });
}
