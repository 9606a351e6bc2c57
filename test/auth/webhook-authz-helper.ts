/**
 * A real HTTPS authorization webhook for tests: it records every SubjectAccessReview it receives
 * and answers with what the test's `answer` function returns (a status object, or a raw reply).
 */
import { writeFileSync } from 'node:fs';
import https from 'node:https';
import path from 'node:path';
import type { AddressInfo } from 'node:net';
import { makeTestCa } from '../helpers/test-ca.ts';

export type Answer = { status: Record<string, unknown> } | { raw: string; code?: number } | { hang: true };

export interface FakeWebhook {
  readonly url: string;
  /** A kubeconfig for the webhook (trusting its CA, sending `token`). */
  readonly kubeconfig: string;
  /** Review bodies received, oldest first. */
  readonly received: any[];
  /** Bearer tokens the requests carried. */
  readonly tokens: (string | undefined)[];
  answer: (review: any) => Answer;
  close(): Promise<void>;
}

/** user → answer: alice allowed, bob denied with a reason, anyone else no opinion. */
export function defaultAnswer(review: any): Answer {
  const user = review.spec?.user;
  if (user === 'alice') return { status: { allowed: true, reason: 'alice may' } };
  if (user === 'bob') return { status: { allowed: false, denied: true, reason: 'bob is blocked by the webhook' } };
  return { status: { allowed: false, reason: 'no opinion about carol' } };
}

export async function startFakeWebhook(dir: string, name: string, token = 'webhook-secret-token'): Promise<FakeWebhook> {
  const ca = await makeTestCa(`${name}-ca`);
  const leaf = await ca.issue({ commonName: name, ipAddresses: ['127.0.0.1'], usage: 'server' });
  const received: any[] = [];
  const tokens: (string | undefined)[] = [];
  const hanging = new Set<import('node:http').ServerResponse>();
  const fake: FakeWebhook = {
    url: '',
    kubeconfig: path.join(dir, `${name}.kubeconfig`),
    received,
    tokens,
    answer: defaultAnswer,
    close: async () => {
      for (const res of hanging) res.destroy();
      server.closeAllConnections();
      await new Promise((r) => server.close(r));
    },
  };
  const server = https.createServer({ cert: leaf.certPem, key: leaf.keyPem }, (req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const review = JSON.parse(Buffer.concat(chunks).toString('utf8'));
      received.push(review);
      tokens.push(req.headers.authorization?.replace(/^Bearer /, ''));
      const answer = fake.answer(review);
      if ('hang' in answer) return void hanging.add(res);
      if ('raw' in answer) {
        res.writeHead(answer.code ?? 200, { 'Content-Type': 'application/json' });
        return void res.end(answer.raw);
      }
      res.writeHead(200, { 'Content-Type': 'application/json' });
      res.end(JSON.stringify({ apiVersion: review.apiVersion, kind: 'SubjectAccessReview', status: answer.status }));
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const url = `https://127.0.0.1:${(server.address() as AddressInfo).port}/authorize`;
  (fake as { url: string }).url = url;
  const b64 = (s: string) => Buffer.from(s).toString('base64');
  writeFileSync(
    fake.kubeconfig,
    JSON.stringify({
      apiVersion: 'v1',
      kind: 'Config',
      clusters: [{ name: 'webhook', cluster: { server: url, 'certificate-authority-data': b64(ca.certPem) } }],
      users: [{ name: 'apiserver', user: { token } }],
      contexts: [{ name: 'webhook', context: { cluster: 'webhook', user: 'apiserver' } }],
      'current-context': 'webhook',
    }),
  );
  return fake;
}
