import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import { assertStatus, eventually } from '../helpers/fixtures.ts';
import { client } from '../helpers/http.ts';
import { startTestServer, type TestServer } from '../helpers/server.ts';
import { defaultAnswer, startFakeWebhook, type FakeWebhook } from './webhook-authz-helper.ts';

const dir = mkdtempSync(path.join(tmpdir(), 'pgkube-authz-config-http-'));
after(() => rmSync(dir, { recursive: true, force: true }));
const tokens = path.join(dir, 'tokens.csv');
writeFileSync(tokens, 'alice-token,alice,uid-alice,"dev,qa"\nbob-token,bob,uid-bob,dev\ncarol-token,carol,uid-carol,\n');
const configFile = path.join(dir, 'authz.yaml');
/** A kubeconfig for a webhook nobody listens on. */
const downKubeconfig = path.join(dir, 'down.kubeconfig');
writeFileSync(
  downKubeconfig,
  JSON.stringify({ apiVersion: 'v1', kind: 'Config', clusters: [{ name: 'c', cluster: { server: 'https://127.0.0.1:1/authorize' } }], users: [{ name: 'u', user: {} }], contexts: [{ name: 'x', context: { cluster: 'c', user: 'u' } }], 'current-context': 'x' }),
);

function entry(name: string, kubeConfigFile: string, fields: Record<string, unknown> = {}) {
  return {
    type: 'Webhook',
    name,
    webhook: {
      timeout: '2s',
      subjectAccessReviewVersion: 'v1',
      matchConditionSubjectAccessReviewVersion: 'v1',
      failurePolicy: 'NoOpinion',
      authorizedTTL: '1ms',
      unauthorizedTTL: '1ms',
      connectionInfo: { type: 'KubeConfigFile', kubeConfigFile },
      ...fields,
    },
  };
}
const write = (authorizers: unknown[]) => writeFileSync(configFile, JSON.stringify({ apiVersion: 'apiserver.config.k8s.io/v1', kind: 'AuthorizationConfiguration', authorizers }));

describe('--authorization-config with webhooks', () => {
  let srv: TestServer;
  let main: FakeWebhook;
  /** Allows everyone: shows whether the chain went past the first webhook. */
  let fallback: FakeWebhook;
  before(async () => {
    main = await startFakeWebhook(dir, 'main');
    fallback = await startFakeWebhook(dir, 'fallback');
    fallback.answer = () => ({ status: { allowed: true } });
    write([entry('main', main.kubeconfig)]);
    srv = await startTestServer([`--token-auth-file=${tokens}`, `--authorization-config=${configFile}`]);
  });
  after(async () => {
    await srv?.stop();
    await main?.close();
    await fallback?.close();
  });
  const as = (token: string, p = '/api/v1/namespaces') => client(srv.url, srv.anonymousAgent).get(p, { Authorization: `Bearer ${token}` });
  /** Rewrites the file and waits until the server behaves as `probe` expects. */
  async function reconfigure(authorizers: unknown[], probe: () => Promise<boolean>, what: string): Promise<void> {
    write(authorizers);
    await eventually(probe, what, 10_000);
  }

  test('v1 reviews: allow, deny with the reason, no opinion; the spec carries groups, uid and the attributes', async () => {
    assert.equal((await as('alice-token')).status, 200);
    const review = main.received.at(-1);
    assert.equal(review.apiVersion, 'authorization.k8s.io/v1');
    assert.deepEqual(review.spec.groups, ['dev', 'qa', 'system:authenticated']);
    assert.equal(review.spec.group, undefined);
    assert.equal(review.spec.uid, 'uid-alice');
    assertStatus(await as('bob-token'), 403, 'Forbidden', /bob is blocked by the webhook/);
    assertStatus(await as('carol-token'), 403, 'Forbidden');
  });

  test('reload: a new file is used within seconds; a broken file keeps the previous authorizers', async () => {
    // carol has no opinion from main; the fallback allows her.
    await reconfigure([entry('main', main.kubeconfig), entry('fallback', fallback.kubeconfig)], async () => (await as('carol-token')).status === 200, 'the fallback webhook in use');
    writeFileSync(configFile, 'apiVersion: apiserver.config.k8s.io/v1\nkind: AuthorizationConfiguration\nauthorizers: [{type: Webhook, name: BAD}]\n');
    await new Promise((r) => setTimeout(r, 1500));
    assert.equal((await as('carol-token')).status, 200, 'the broken file did not replace the chain');
    assertStatus(await as('bob-token'), 403, 'Forbidden', /bob is blocked/);
  });

  test('failurePolicy: a webhook that is down is skipped under NoOpinion and denies under Deny (never 500)', async () => {
    await reconfigure([entry('down', downKubeconfig), entry('fallback', fallback.kubeconfig)], async () => (await as('bob-token')).status === 200, 'the down webhook skipped');
    await reconfigure(
      [entry('down', downKubeconfig, { failurePolicy: 'Deny' }), entry('fallback', fallback.kubeconfig)],
      async () => (await as('alice-token', '/api/v1/namespaces/default')).status === 403,
      'the down webhook denying',
    );
  });

  test('failurePolicy: garbage answers and timeouts follow the policy', async () => {
    main.answer = (review) => (review.spec.user === 'alice' ? { raw: '<html>oops</html>' } : { hang: true });
    try {
      await reconfigure(
        [entry('main', main.kubeconfig, { failurePolicy: 'Deny', timeout: '1s' }), entry('fallback', fallback.kubeconfig)],
        async () => (await as('alice-token', '/api/v1/namespaces/kube-system')).status === 403,
        'garbage denied',
      );
      await reconfigure(
        [entry('main', main.kubeconfig, { failurePolicy: 'NoOpinion', timeout: '1s' }), entry('fallback', fallback.kubeconfig)],
        async () => (await as('alice-token', '/api/v1/namespaces/kube-public')).status === 200,
        'garbage skipped',
      );
      const started = Date.now();
      // bob's review hangs: after the timeout (and retries) the fallback decides.
      assert.equal((await as('bob-token', '/api/v1/namespaces/default')).status, 200);
      assert.ok(Date.now() - started >= 1000, 'waited for the timeout');
    } finally {
      main.answer = defaultAnswer;
    }
  });

  test('matchConditions: false skips the webhook, true calls it, an error follows the failure policy', async () => {
    const conditions = (expression: string, failurePolicy = 'NoOpinion') => [
      entry('main', main.kubeconfig, { failurePolicy, matchConditions: [{ expression: 'has(request.resourceAttributes)' }, { expression }] }),
      entry('fallback', fallback.kubeconfig),
    ];
    // bob is denied by main unless the conditions skip it.
    await reconfigure(conditions("request.user != 'bob'"), async () => (await as('bob-token')).status === 200, 'bob skipped by a false condition');
    const seen = main.received.length;
    assert.equal((await as('bob-token')).status, 200);
    assert.equal(main.received.length, seen, 'a false condition does not call the webhook');
    await reconfigure(conditions("'dev' in request.groups"), async () => (await as('bob-token')).status === 403, 'bob reaches main through true conditions');
    // request.extra is absent: the condition errs.
    await reconfigure(conditions("request.extra['x'][0] == 'y'"), async () => (await as('bob-token')).status === 200, 'an erring condition skipped under NoOpinion');
    await reconfigure(conditions("request.extra['x'][0] == 'y'", 'Deny'), async () => (await as('alice-token')).status === 403, 'an erring condition denies under Deny');
  });
});

describe('--authorization-config start errors', () => {
  test('an invalid file stops the start with upstream\'s messages', async () => {
    const bad = path.join(dir, 'bad.yaml');
    writeFileSync(bad, JSON.stringify({ apiVersion: 'apiserver.config.k8s.io/v1', kind: 'AuthorizationConfiguration', authorizers: [{ type: 'Webhook', name: 'w', webhook: { failurePolicy: 'Allow' } }] }));
    await assert.rejects(startTestServer([`--authorization-config=${bad}`]), (err: Error) => {
      assert.match(err.message, /authorizers\[0\]\.timeout: Required value/);
      assert.match(err.message, /authorizers\[0\]\.failurePolicy: Unsupported value: "Allow": supported values: "NoOpinion", "Deny"/);
      return true;
    });
    await assert.rejects(startTestServer([`--authorization-config=${path.join(dir, 'missing.yaml')}`]), /missing\.yaml/);
  });
});
