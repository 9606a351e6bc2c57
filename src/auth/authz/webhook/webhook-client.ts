/**
 * The HTTPS client a webhook authorizer talks through, built from a kubeconfig file as upstream's
 * webhook plugins read it: the current context's cluster (server, certificate authority) and user
 * (client certificate and key, or a bearer token).
 */
import { readFileSync } from 'node:fs';
import https from 'node:https';
import path from 'node:path';
import yaml from 'js-yaml';

export interface WebhookClient {
  /** POSTs a JSON body; resolves with the status and body text, rejects on network errors and timeouts. */
  post(body: string, timeoutMs: number): Promise<{ status: number; text: string }>;
  close(): void;
}

type Named<T> = { name?: string } & T;
interface KubeconfigFile {
  clusters?: Named<{ cluster?: Record<string, string> }>[];
  users?: Named<{ user?: Record<string, string> }>[];
  contexts?: Named<{ context?: { cluster?: string; user?: string } }>[];
  'current-context'?: string;
}

/** Reads the file's data: the inline base64 form, else the file it names (relative to the kubeconfig). */
function material(dir: string, entry: Record<string, string> | undefined, key: string): string | undefined {
  if (!entry) return undefined;
  const data = entry[`${key}-data`];
  if (data) return Buffer.from(data, 'base64').toString('utf8');
  const file = entry[key];
  return file ? readFileSync(path.resolve(dir, file), 'utf8') : undefined;
}

/** Loads the kubeconfig; throws (naming the file, never its secrets) when it cannot be used. */
export function kubeconfigClient(file: string): WebhookClient {
  let doc: KubeconfigFile;
  try {
    doc = (yaml.load(readFileSync(file, 'utf8')) ?? {}) as KubeconfigFile;
  } catch (err) {
    throw new Error(`invalid kubeconfig ${file}: ${(err as Error).message.split('\n')[0]}`);
  }
  const contexts = doc.contexts ?? [];
  const context = contexts.find((c) => c.name === doc['current-context'])?.context ?? (contexts.length === 1 ? contexts[0]!.context : undefined);
  const cluster = (context ? doc.clusters?.find((c) => c.name === context.cluster) : doc.clusters?.[0])?.cluster;
  const user = (context ? doc.users?.find((u) => u.name === context.user) : doc.users?.[0])?.user;
  const server = cluster?.server;
  if (!server) throw new Error(`invalid kubeconfig ${file}: no cluster server URL`);
  const dir = path.dirname(file);
  const url = new URL(server);
  const agent = new https.Agent({
    keepAlive: true,
    ca: material(dir, cluster, 'certificate-authority'),
    cert: material(dir, user, 'client-certificate'),
    key: material(dir, user, 'client-key'),
    rejectUnauthorized: (cluster as Record<string, unknown> | undefined)?.['insecure-skip-tls-verify'] !== true,
  });
  const token = user?.token ?? (user?.tokenFile ? readFileSync(path.resolve(dir, user.tokenFile), 'utf8').trim() : undefined);
  return {
    post: (body, timeoutMs) =>
      new Promise((resolve, reject) => {
        const headers: Record<string, string> = { 'Content-Type': 'application/json', Accept: 'application/json', 'Content-Length': String(Buffer.byteLength(body)) };
        if (token) headers.Authorization = `Bearer ${token}`;
        const req = https.request(url, { method: 'POST', agent, headers, timeout: timeoutMs }, (res) => {
          const chunks: Buffer[] = [];
          res.on('data', (c: Buffer) => chunks.push(c));
          res.on('end', () => resolve({ status: res.statusCode ?? 0, text: Buffer.concat(chunks).toString('utf8') }));
          res.on('error', reject);
        });
        req.on('timeout', () => req.destroy(new Error(`the webhook did not answer within ${timeoutMs}ms`)));
        req.on('error', reject);
        req.end(body);
      }),
    close: () => agent.destroy(),
  };
}
