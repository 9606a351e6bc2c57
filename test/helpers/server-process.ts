import { spawn, type ChildProcess } from 'node:child_process';
import path from 'node:path';
import { createInterface } from 'node:readline';

export interface ServerProcess {
  readonly url: string;
  readonly child: ChildProcess;
  /** SIGTERM, then wait for the exit code. */
  stop(): Promise<number | null>;
}

const ROOT = path.resolve(import.meta.dirname, '../..');

/**
 * Runs the real server (`src/main.ts`) as a separate process, as `npm start` would, and resolves
 * once it logs that it is serving.
 */
export function startServerProcess(databaseUrl: string, dataDir: string, flags: string[] = []): Promise<ServerProcess> {
  const child = spawn(
    process.execPath,
    ['--import', 'tsx', path.join(ROOT, 'src/main.ts'), '--secure-port=0', `--data-dir=${dataDir}`, '--log-level=info', ...flags],
    { cwd: ROOT, env: { ...process.env, DATABASE_URL: databaseUrl }, stdio: ['ignore', 'pipe', 'pipe'] },
  );
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  let stderr = '';
  child.stderr?.on('data', (c: Buffer) => (stderr += c.toString()));
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`server did not start in time: ${stderr}`)), 30_000);
    const lines = createInterface({ input: child.stdout! });
    lines.on('line', (line) => {
      let entry: { msg?: string; url?: string; level?: number };
      try {
        entry = JSON.parse(line);
      } catch {
        return;
      }
      if (entry.msg === 'serving' && entry.url) {
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
