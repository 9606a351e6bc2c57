import { spawn, type ChildProcess } from 'node:child_process';
import { readFile } from 'node:fs/promises';
import https from 'node:https';
import path from 'node:path';
import { nodeArgsFor } from './entry.ts';
import { followLog, ROOT, type LogLine } from './npm-start.ts';

export interface WorkersServer {
  readonly child: ChildProcess;
  readonly url: string;
  /** The workers' pids as the primary logged them once all served. */
  readonly workerPids: readonly number[];
  /** Every log line so far, of the primary and of every worker (they share stdout). */
  readonly log: LogLine[];
  output(): string;
  /** Resolves with the primary's exit code (or the signal that ended it). */
  readonly exited: Promise<number | string | null>;
  /** An agent with the admin credentials of the data dir (keepAlive as given). */
  agent(options?: https.AgentOptions): Promise<https.Agent>;
}

/**
 * Runs src/main.ts with `--workers=…` (the primary and its cluster workers) on
 * `databaseUrl`, resolving once the primary logs that every worker serves; rejects with the output
 * when it exits first. Port 0: the workers share one port that cluster picks. `detached`: in a
 * process group of its own, which the test can signal as a terminal does.
 */
export function startWorkersServer(databaseUrl: string, dataDir: string, flags: readonly string[], options: { detached?: boolean } = {}): Promise<WorkersServer> {
  const child = spawn(
    process.execPath,
    [...nodeArgsFor('src/main.ts'), '--secure-port=0', `--data-dir=${dataDir}`, ...flags],
    { cwd: ROOT, env: { ...process.env, DATABASE_URL: databaseUrl }, stdio: ['ignore', 'pipe', 'pipe'], detached: options.detached ?? false },
  );
  const agent = async (options: https.AgentOptions = {}) => {
    const pki = path.join(dataDir, 'pki');
    const [ca, cert, key] = await Promise.all(['ca.crt', 'admin.crt', 'admin.key'].map((f) => readFile(path.join(pki, f), 'utf8')));
    return new https.Agent({ ca, cert, key, ...options });
  };
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`the workers did not all serve in 180 s:\n${server.output().slice(-5000)}`)), 180_000);
    const server = followLog(child, (entry) => {
      if (entry.msg === 'workers serving') {
        clearTimeout(timer);
        resolve({ child, url: entry.url as string, workerPids: entry.workers as number[], ...server, agent });
      }
    });
    void server.exited.then((code) => {
      clearTimeout(timer);
      reject(Object.assign(new Error(`exited (${code}) before serving:\n${server.output().slice(-5000)}`), { output: server.output(), code }));
    });
  });
}
