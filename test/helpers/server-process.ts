import { spawn, type ChildProcess } from 'node:child_process';
import path from 'node:path';
import { createInterface } from 'node:readline';
import { nodeArgsFor } from './entry.ts';

export interface ServerProcess {
  readonly url: string;
  readonly child: ChildProcess;
  /** SIGTERM, then wait for the exit code. */
  stop(): Promise<number | null>;
}

const ROOT = path.resolve(import.meta.dirname, '../..');

/**
 * Runs the real server as a separate process and resolves once it logs that it is serving. Tests run
 * the sources through tsx (what they test is what is checked out); `compiled` runs it as `npm start`
 * does (dist/, built first when stale), for the benchmark.
 */
export function startServerProcess(databaseUrl: string, dataDir: string, flags: string[] = [], options: { compiled?: boolean; nodeArgs?: readonly string[]; distOnly?: boolean; startTimeoutMs?: number } = {}): Promise<ServerProcess> {
  // distOnly: run dist/ as it is, never rebuilding (the scale bench times restarts while sources may change).
  const compiledEntry = options.distOnly ? [path.join(ROOT, 'dist/src/main.js')] : [path.join(ROOT, 'scripts/launch.mjs'), 'server'];
  const entry = options.compiled ? compiledEntry : nodeArgsFor('src/main.ts');
  const child = spawn(
    process.execPath,
    [...(options.nodeArgs ?? []), ...entry, '--secure-port=0', `--data-dir=${dataDir}`, '--log-level=info', ...flags],
    // One process unless the flags say --workers (the tests' pids and signals assume one).
    { cwd: ROOT, env: { ...process.env, WORKERS: '1', DATABASE_URL: databaseUrl }, stdio: ['ignore', 'pipe', 'pipe'] },
  );
  // With several workers each logs "serving"; the primary says when all of them do.
  const ready = flags.some((f) => /^--workers=0*([2-9]|[1-9]\d+)$/.test(f)) ? 'workers serving' : 'serving';
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  let stderr = '';
  child.stderr?.on('data', (c: Buffer) => (stderr += c.toString()));
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`server did not start in time: ${stderr}`)), options.startTimeoutMs ?? 30_000);
    const lines = createInterface({ input: child.stdout! });
    lines.on('line', (line) => {
      let entry: { msg?: string; url?: string; level?: number };
      try {
        entry = JSON.parse(line);
      } catch {
        return;
      }
      if (entry.msg === ready && entry.url) {
        clearTimeout(timer);
        resolve({
          url: entry.url,
          child,
          stop: async () => {
            if (child.exitCode === null) child.kill('SIGTERM');
            return exited;
          },
        });
      } else if (entry.level !== undefined && entry.level >= 50) {
        stderr += `${line}\n`;
      }
    });
    void exited.then((code) => {
      clearTimeout(timer);
      reject(new Error(`server exited with ${code} before serving: ${stderr}`));
    });
  });
}
