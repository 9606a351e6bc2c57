/**
 * A real HTTPS admission webhook for tests, serving a certificate of its own test CA for 127.0.0.1:
 * it records every AdmissionReview it receives (by path) and answers with what the test's handler
 * for that path returns. Also the configurations that point at it, and a way to wait until the
 * server's plugins have seen a configuration.
 */
import https from 'node:https';
import type { AddressInfo } from 'node:net';
import type { ServerResponse } from 'node:http';
import { makeTestCa } from '../helpers/test-ca.ts';
import type { Api } from '../helpers/fixtures.ts';

/** What the webhook answers: a response (allowed, status, patch…), raw bytes, a hang, or a delay first. */
export type Answer =
  | {
      allowed: boolean;
      status?: Record<string, unknown>;
      patch?: unknown[];
      /** Sent as is (base64 already), to test undecodable patches. */
      rawPatch?: string;
      patchType?: string | null;
      warnings?: string[];
      auditAnnotations?: Record<string, string>;
      /** Replaces the response's uid (to test the uid check). */
      uid?: string;
      /** Replaces the review's apiVersion in the answer. */
      apiVersion?: string;
      delayMs?: number;
    }
  | { raw: string; code?: number; contentType?: string }
  | { hang: true };

export interface Received {
  readonly path: string;
  readonly review: any;
}

export interface FakeAdmissionWebhook {
  /** base64 of the CA's PEM, for clientConfig.caBundle. */
  readonly caBundle: string;
  readonly port: number;
  readonly received: Received[];
  url(path: string): string;
  /** The answer for a path (default: allowed). */
  on(path: string, answer: (review: any) => Answer): void;
  /** Reviews received on a path. */
  reviews(path: string): any[];
  close(): Promise<void>;
}

export async function startAdmissionWebhook(name = 'admission-webhook'): Promise<FakeAdmissionWebhook> {
  const ca = await makeTestCa(`${name}-ca`);
  const leaf = await ca.issue({ commonName: name, ipAddresses: ['127.0.0.1'], dnsNames: ['localhost'], usage: 'server' });
  const handlers = new Map<string, (review: any) => Answer>();
  const received: Received[] = [];
  const hanging = new Set<ServerResponse>();
  const server = https.createServer({ cert: leaf.certPem, key: leaf.keyPem }, (req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const path = new URL(req.url ?? '/', 'https://x').pathname;
      let review: any;
      try {
        review = JSON.parse(Buffer.concat(chunks).toString('utf8'));
      } catch {
        res.writeHead(400).end('not json');
        return;
      }
      received.push({ path, review });
      const answer: Answer = (handlers.get(path) ?? ((): Answer => ({ allowed: true })))(review);
      if ('hang' in answer) return void hanging.add(res);
      if ('raw' in answer) {
        res.writeHead(answer.code ?? 200, { 'Content-Type': answer.contentType ?? 'application/json' });
        return void res.end(answer.raw);
      }
      const response: Record<string, unknown> = { uid: answer.uid ?? review.request?.uid, allowed: answer.allowed };
      if (answer.status) response.status = answer.status;
      if (answer.patch) response.patch = Buffer.from(JSON.stringify(answer.patch)).toString('base64');
      if (answer.rawPatch !== undefined) response.patch = answer.rawPatch;
      if (answer.patchType !== undefined) response.patchType = answer.patchType;
      else if (answer.patch || answer.rawPatch !== undefined) response.patchType = 'JSONPatch';
      if (answer.warnings) response.warnings = answer.warnings;
      if (answer.auditAnnotations) response.auditAnnotations = answer.auditAnnotations;
      const body = JSON.stringify({ apiVersion: answer.apiVersion ?? review.apiVersion, kind: 'AdmissionReview', response });
      const send = () => {
        if (res.destroyed) return;
        res.writeHead(200, { 'Content-Type': 'application/json' });
        res.end(body);
      };
      if (answer.delayMs) setTimeout(send, answer.delayMs);
      else send();
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const port = (server.address() as AddressInfo).port;
  return {
    caBundle: Buffer.from(ca.certPem).toString('base64'),
    port,
    received,
    url: (path) => `https://127.0.0.1:${port}${path}`,
    on: (path, answer) => void handlers.set(path, answer),
    reviews: (path) => received.filter((r) => r.path === path).map((r) => r.review),
    close: async () => {
      for (const res of hanging) res.destroy();
      server.closeAllConnections();
      await new Promise((r) => server.close(r));
    },
  };
}

export const GROUP_PATH = '/apis/admissionregistration.k8s.io/v1';

/** A configuration object of the given kind with these webhooks. */
export function configuration(kind: 'ValidatingWebhookConfiguration' | 'MutatingWebhookConfiguration', name: string, webhooks: Record<string, unknown>[]): Record<string, unknown> {
  return { apiVersion: 'admissionregistration.k8s.io/v1', kind, metadata: { name }, webhooks };
}

/** One webhook calling `path` on the fake webhook, for configmaps in `namespace` by default. */
export function webhook(fake: FakeAdmissionWebhook, name: string, path: string, more: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    name,
    clientConfig: { url: fake.url(path), caBundle: fake.caBundle },
    rules: [{ operations: ['CREATE', 'UPDATE', 'DELETE'], apiGroups: [''], apiVersions: ['v1'], resources: ['configmaps'] }],
    sideEffects: 'None',
    admissionReviewVersions: ['v1'],
    timeoutSeconds: 5,
    ...more,
  };
}

const plural = (kind: string) => (kind === 'ValidatingWebhookConfiguration' ? 'validatingwebhookconfigurations' : 'mutatingwebhookconfigurations');

/**
 * Creates a configuration and waits until the server's plugin calls it: `probe` makes a request the
 * configuration matches and resolves once the webhook saw one (retrying while the watch catches up).
 */
export async function install(api: Api, config: Record<string, unknown>, probe: () => Promise<boolean>): Promise<void> {
  const res = await api.post(`${GROUP_PATH}/${plural(config.kind as string)}`, config);
  if (res.status !== 201) throw new Error(`creating ${(config.metadata as { name: string }).name}: ${res.status} ${res.text}`);
  await waitFor(probe, `${(config.metadata as { name: string }).name} to be called`);
}

/** Deletes a configuration and waits until `probe` says it is gone. */
export async function uninstall(api: Api, kind: string, name: string, gone: () => Promise<boolean>): Promise<void> {
  await api.delete(`${GROUP_PATH}/${plural(kind)}/${name}`);
  await waitFor(gone, `${name} to be gone`);
}

export async function waitFor(check: () => Promise<boolean>, what: string, timeoutMs = 10_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    if (await check()) return;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}
