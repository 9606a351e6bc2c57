import { execFileSync, spawn } from 'node:child_process';
import { existsSync, realpathSync } from 'node:fs';
import path from 'node:path';

/** The kubectl versions the e2e tests run against, newest first. */
export const KUBECTL_VERSIONS = ['1.33', '1.27'] as const;

export interface KubectlResult {
  /** The exit code; null when the process was killed (timeout or `stop()`). */
  readonly code: number | null;
  readonly stdout: string;
  readonly stderr: string;
  readonly timedOut: boolean;
}

export interface KubectlOptions {
  /** Kill kubectl after this long (default 20 s); the result then has `timedOut: true`. */
  readonly timeoutMs?: number;
  /** Written to kubectl's stdin (for `-f -`). */
  readonly input?: string;
}

/** The directory that holds `kubectl.1.27` … `kubectl.1.33`: beside the file `kubectl` on the PATH resolves to. */
function kubectlDirectory(): string | undefined {
  try {
    const onPath = execFileSync('sh', ['-c', 'command -v kubectl'], { encoding: 'utf8' }).trim();
    return onPath ? path.dirname(realpathSync(onPath)) : undefined;
  } catch {
    return undefined;
  }
}

const directory = kubectlDirectory();

/** The path of `kubectl.<version>`, or undefined when that binary is missing. */
export function findKubectl(version: string): string | undefined {
  if (!directory) return undefined;
  const file = path.join(directory, `kubectl.${version}`);
  return existsSync(file) ? file : undefined;
}

/** Why a version's tests are skipped, or false when its binary is present (for `describe(…, { skip })`). */
export function skipReason(version: string): string | false {
  if (findKubectl(version)) return false;
  return directory ? `kubectl.${version} not found in ${directory}` : 'kubectl is not on the PATH';
}

/** A running kubectl (a watch): its output so far, a way to wait for some of it, and a way to end it. */
export interface BackgroundKubectl {
  readonly stdout: () => string;
  /** Resolves once stdout matches `pattern`; rejects after `timeoutMs` with the output seen. */
  waitFor(pattern: RegExp, timeoutMs?: number): Promise<string>;
  /** SIGTERM (unless it has already exited), then the result. */
  stop(): Promise<KubectlResult>;
}

/**
 * kubectl bound to one binary, kubeconfig and discovery cache directory.
 *
 * @example
 * const k = kubectl('1.33', srv.kubeconfig, cacheDir);
 * const r = await k.run(['get', 'ns']);
 * assert.equal(r.code, 0);
 */
export function kubectl(version: string, kubeconfig: string, cacheDir: string, protocol: { http1?: boolean } = {}) {
  const binary = findKubectl(version);
  const common = [`--kubeconfig=${kubeconfig}`, `--cache-dir=${cacheDir}`];
  const env: NodeJS.ProcessEnv = { ...process.env, KUBECONFIG: kubeconfig, KUBECTL_KUBERC: 'false' };
  // kubectl speaks HTTP/2 by default; client-go stays on HTTP/1.1 when DISABLE_HTTP2 is set to anything
  // (k8s.io/apimachinery/pkg/util/net/http.go). E2E_HTTP1=1 (npm run test:e2e:http1) does so for every run.
  const http1 = protocol.http1 ?? process.env.E2E_HTTP1 === '1';
  if (http1) env.DISABLE_HTTP2 = 'true';
  else delete env.DISABLE_HTTP2;
  // client-go then logs (klog, level 0) that it did so: not part of what the tests compare.
  const withoutHttp2Notice = (text: string) => (http1 ? text.replace(/^I\d{4} [^\n]*\] HTTP2 has been explicitly disabled\n/gm, '') : text);

  function launch(args: string[], options: KubectlOptions) {
    if (!binary) throw new Error(`kubectl.${version} is missing`);
    const child = spawn(binary, [...common, ...args], { env, stdio: ['pipe', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    let timedOut = false;
    const listeners = new Set<() => void>();
    child.stdout.setEncoding('utf8').on('data', (c: string) => {
      stdout += c;
      for (const l of listeners) l();
    });
    child.stderr.setEncoding('utf8').on('data', (c: string) => (stderr += c));
    child.stdin.end(options.input ?? '');
    const timer = setTimeout(() => {
      timedOut = true;
      child.kill('SIGTERM');
    }, options.timeoutMs ?? 20_000);
    const result = new Promise<KubectlResult>((resolve, reject) => {
      child.once('error', (err) => {
        clearTimeout(timer);
        reject(err);
      });
      child.once('close', (code) => {
        clearTimeout(timer);
        resolve({ code, stdout, stderr: withoutHttp2Notice(stderr), timedOut });
      });
    });
    return { child, result, listeners, stdout: () => stdout, stderr: () => withoutHttp2Notice(stderr) };
  }

  return {
    version,
    /** Runs kubectl to completion. */
    run(args: string[], options: KubectlOptions = {}): Promise<KubectlResult> {
      return launch(args, options).result;
    },
    /** Starts kubectl and returns at once (for `get -w`); it is killed after `timeoutMs` at the latest. */
    start(args: string[], options: KubectlOptions = {}): BackgroundKubectl {
      const p = launch(args, options);
      let exited = false;
      void p.result.then(
        () => (exited = true),
        () => (exited = true),
      );
      return {
        stdout: p.stdout,
        waitFor(pattern: RegExp, timeoutMs = 10_000): Promise<string> {
          return new Promise((resolve, reject) => {
            const check = () => {
              if (!pattern.test(p.stdout())) return false;
              finish();
              resolve(p.stdout());
              return true;
            };
            const timer = setTimeout(() => {
              finish();
              reject(new Error(`kubectl output did not match ${pattern} in ${timeoutMs} ms:\n${p.stdout()}\nstderr:\n${p.stderr()}`));
            }, timeoutMs);
            const finish = () => {
              clearTimeout(timer);
              p.listeners.delete(check);
            };
            if (!check()) p.listeners.add(check);
          });
        },
        async stop(): Promise<KubectlResult> {
          if (!exited) p.child.kill('SIGTERM');
          return p.result;
        },
      };
    },
  };
}

export type Kubectl = ReturnType<typeof kubectl>;

/**
 * Parses kubectl's table output into rows keyed by column header, cutting each line at the header's
 * column offsets (so an empty cell, such as a missing SHORTNAMES, stays empty).
 */
export function parseTable(output: string): Record<string, string>[] {
  const lines = output.split('\n').filter((l) => l.trim() !== '');
  if (lines.length === 0) return [];
  const header = lines[0]!;
  const columns = [...header.matchAll(/\S+/g)].map((m) => ({ name: m[0], start: m.index! }));
  return lines.slice(1).map((line) => {
    const row: Record<string, string> = {};
    columns.forEach((c, i) => {
      const end = i + 1 < columns.length ? columns[i + 1]!.start : undefined;
      row[c.name] = line.slice(c.start, end).trim();
    });
    return row;
  });
}

/** The URLs of the requests kubectl logged at -v=6 (both the 1.27 and the 1.33 log formats). */
export function loggedRequests(stderr: string): { verb: string; url: URL }[] {
  const out: { verb: string; url: URL }[] = [];
  for (const m of stderr.matchAll(/verb="(\w+)" url="([^"]+)"|\] (GET|POST|PUT|PATCH|DELETE) (https:\/\/\S+)/g)) {
    out.push({ verb: m[1] ?? m[3]!, url: new URL(m[2] ?? m[4]!) });
  }
  return out;
}
