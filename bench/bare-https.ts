import { spawn } from 'node:child_process';
import path from 'node:path';
import { createInterface } from 'node:readline';
import type { Tls } from './server.ts';

/** The bare HTTPS baseline server (bench/bare-https-server.mjs) as a child process. */
export interface BareHttps {
  readonly url: string;
  readonly pid: number;
  stop(): Promise<void>;
}

export function startBareHttps(protocol: '1.1' | '2', tls: Tls, body: string): Promise<BareHttps> {
  const child = spawn(process.execPath, [path.join(import.meta.dirname, 'bare-https-server.mjs')], {
    env: { ...process.env, BARE_HTTP: protocol, BARE_CERT: tls.servingCert, BARE_KEY: tls.servingKey, BARE_CA: tls.ca, BARE_BODY: body },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error('the bare HTTPS server did not start')), 10_000);
    createInterface({ input: child.stdout! }).on('line', (line) => {
      const m = /^listening (\d+)$/.exec(line);
      if (!m) return;
      clearTimeout(timer);
      resolve({
        url: `https://127.0.0.1:${m[1]}`,
        pid: child.pid!,
        stop: async () => {
          if (child.exitCode === null) child.kill('SIGTERM');
          await exited;
        },
      });
    });
    void exited.then(() => reject(new Error('the bare HTTPS server exited')));
  });
}
