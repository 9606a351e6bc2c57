import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import { assertStatus } from '../helpers/fixtures.ts';
import { client } from '../helpers/http.ts';
import { startTestServer, type TestServer } from '../helpers/server.ts';
import { defaultAnswer, startFakeWebhook, type FakeWebhook } from './webhook-authz-helper.ts';

const dir = mkdtempSync(path.join(tmpdir(), 'pgkube-webhook-authz-'));
after(() => rmSync(dir, { recursive: true, force: true }));
const tokens = path.join(dir, 'tokens.csv');
writeFileSync(tokens, 'alice-token,alice,uid-alice,"dev,qa"\nbob-token,bob,uid-bob,dev\ncarol-token,carol,uid-carol,\n');

describe('--authorization-mode=Webhook (v1beta1, the legacy flags)', () => {
  let srv: TestServer;
  let webhook: FakeWebhook;
  before(async () => {
    webhook = await startFakeWebhook(dir, 'legacy');
    srv = await startTestServer([
      `--token-auth-file=${tokens}`,
      '--authorization-mode=Webhook',
      `--authorization-webhook-config-file=${webhook.kubeconfig}`,
      '--authorization-webhook-cache-unauthorized-ttl=1s',
    ]);
  });
  after(async () => {
    await srv?.stop();
    await webhook?.close();
  });
  const as = (token: string, p: string) => client(srv.url, srv.anonymousAgent).get(p, { Authorization: `Bearer ${token}` });

  test('allowed is 200, denied is 403 with the reason, no opinion is 403; the review is v1beta1 with `group`', async () => {
    assert.equal((await as('alice-token', '/api/v1/namespaces')).status, 200);
    const review = webhook.received.at(-1);
    assert.equal(review.apiVersion, 'authorization.k8s.io/v1beta1');
    assert.equal(review.kind, 'SubjectAccessReview');
    assert.equal(review.spec.user, 'alice');
    assert.equal(review.spec.uid, 'uid-alice');
    assert.deepEqual(review.spec.group, ['dev', 'qa', 'system:authenticated']);
    assert.equal(review.spec.groups, undefined);
    assert.deepEqual(review.spec.resourceAttributes, { verb: 'list', version: 'v1', resource: 'namespaces' });
    assert.equal(webhook.tokens.at(-1), 'webhook-secret-token');

    assertStatus(await as('bob-token', '/api/v1/namespaces/default/configmaps/x'), 403, 'Forbidden', /bob is blocked by the webhook/);
    assert.deepEqual(webhook.received.at(-1).spec.resourceAttributes, { namespace: 'default', verb: 'get', version: 'v1', resource: 'configmaps', name: 'x' });
    assertStatus(await as('carol-token', '/api/v1/namespaces'), 403, 'Forbidden', /User "carol" cannot list/);
  });

  test('answers are cached: an allow for 5m (default), a deny for --authorization-webhook-cache-unauthorized-ttl', async () => {
    await as('alice-token', '/api/v1/namespaces/kube-system');
    const seen = webhook.received.length;
    assert.equal((await as('alice-token', '/api/v1/namespaces/kube-system')).status, 200);
    assert.equal(webhook.received.length, seen, 'a cached allow does not reach the webhook');

    await as('bob-token', '/api/v1/namespaces/kube-public');
    const afterDeny = webhook.received.length;
    assert.equal((await as('bob-token', '/api/v1/namespaces/kube-public')).status, 403);
    assert.equal(webhook.received.length, afterDeny, 'a cached deny does not reach the webhook within its TTL');
    await new Promise((r) => setTimeout(r, 1200));
    assert.equal((await as('bob-token', '/api/v1/namespaces/kube-public')).status, 403);
    assert.equal(webhook.received.length, afterDeny + 1, 'after the TTL the webhook is asked again');
  });

  test('a webhook answering garbage or an error status is no opinion (403, never 500)', async () => {
    try {
      webhook.answer = () => ({ raw: 'this is not json' });
      assertStatus(await as('alice-token', '/api/v1/namespaces/garbage-1'), 403, 'Forbidden');
      webhook.answer = () => ({ raw: '{"apiVersion":"v1","kind":"Status"}', code: 403 });
      assertStatus(await as('alice-token', '/api/v1/namespaces/garbage-2'), 403, 'Forbidden');
      webhook.answer = () => ({ raw: '{"kind":"Pod","apiVersion":"v1"}' });
      assertStatus(await as('alice-token', '/api/v1/namespaces/garbage-3'), 403, 'Forbidden');
    } finally {
      webhook.answer = defaultAnswer;
    }
  });

  test('a non-resource request sends nonResourceAttributes with the path and the lowercase method', async () => {
    await as('carol-token', '/some/non-resource/path');
    assert.deepEqual(webhook.received.at(-1).spec.nonResourceAttributes, { path: '/some/non-resource/path', verb: 'get' });
    assert.equal(webhook.received.at(-1).spec.resourceAttributes, undefined);
  });
});
