import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { Attributes } from '../../src/auth/authz/authorizer.ts';
import { compileMatcher } from '../../src/auth/authz/webhook/match-conditions.ts';
import { WebhookAuthorizer, type WebhookAuthorizerOptions } from '../../src/auth/authz/webhook/webhook-authorizer.ts';
import type { WebhookClient } from '../../src/auth/authz/webhook/webhook-client.ts';
import { parseRequestInfo } from '../../src/api/request-info.ts';

const attrs = (name: string, extra?: Record<string, string[]>): Attributes => ({
  user: { name, groups: ['g'], ...(extra ? { extra } : {}) },
  request: parseRequestInfo('GET', '/apis/apps/v1/namespaces/ns/deployments/d/scale', new URLSearchParams()),
});

/** A client whose answers the test scripts; counts calls. */
function scripted(reply: (body: any) => { status: number; text: string } | Error) {
  const bodies: any[] = [];
  const c: WebhookClient = {
    post: async (body) => {
      bodies.push(JSON.parse(body));
      const r = reply(JSON.parse(body));
      if (r instanceof Error) throw r;
      return r;
    },
    close: () => undefined,
  };
  return { client: c, bodies };
}
const ok = (status: Record<string, unknown>) => ({ status: 200, text: JSON.stringify({ apiVersion: 'authorization.k8s.io/v1', kind: 'SubjectAccessReview', status }) });
const options = (client: WebhookClient, more: Partial<WebhookAuthorizerOptions> = {}): WebhookAuthorizerOptions => ({
  name: 'w', client, version: 'v1', authorizedTtlMs: 60_000, unauthorizedTtlMs: 60_000, timeoutMs: 1000, failurePolicy: 'NoOpinion', retryDelaysMs: [1, 1], ...more,
});

test('decisions: allowed, denied, both (deny with an error), neither (no opinion with the reason)', async () => {
  for (const [status, want] of [
    [{ allowed: true, reason: 'r' }, { decision: 'allow', reason: 'r' }],
    [{ allowed: false, denied: true, reason: 'no' }, { decision: 'deny', reason: 'no' }],
    [{ allowed: true, denied: true }, { decision: 'deny', evaluationError: 'webhook subject access review returned both allow and deny response' }],
    [{ allowed: false, reason: 'dunno', evaluationError: 'e' }, { decision: 'noOpinion', reason: 'dunno', evaluationError: 'e' }],
  ] as const) {
    const { client } = scripted(() => ok(status));
    assert.deepEqual(await new WebhookAuthorizer(options(client)).authorize(attrs('u')), want);
  }
});

test('the v1 spec: resourceAttributes with group, version, subresource; extra passed through', async () => {
  const { client, bodies } = scripted(() => ok({ allowed: true }));
  await new WebhookAuthorizer(options(client)).authorize(attrs('u', { scopes: ['a'] }));
  assert.deepEqual(bodies[0].spec, {
    user: 'u', groups: ['g'], extra: { scopes: ['a'] },
    resourceAttributes: { namespace: 'ns', verb: 'get', group: 'apps', version: 'v1', resource: 'deployments', subresource: 'scale', name: 'd' },
  });
});

test('failed calls are retried, then decided by the policy; a 4xx is not retried', async () => {
  let n = 0;
  const { client } = scripted(() => (++n < 3 ? new Error('connect ECONNREFUSED') : ok({ allowed: true })));
  assert.equal((await new WebhookAuthorizer(options(client)).authorize(attrs('u'))).decision, 'allow');
  assert.equal(n, 3);
  const down = scripted(() => new Error('connect ECONNREFUSED'));
  const denied = await new WebhookAuthorizer(options(down.client, { failurePolicy: 'Deny' })).authorize(attrs('u'));
  assert.equal(denied.decision, 'deny');
  assert.match(denied.evaluationError!, /ECONNREFUSED/);
  assert.equal(down.bodies.length, 3, 'one attempt and two retries');
  const forbidden = scripted(() => ({ status: 403, text: '{}' }));
  assert.equal((await new WebhookAuthorizer(options(forbidden.client)).authorize(attrs('u'))).decision, 'noOpinion');
  assert.equal(forbidden.bodies.length, 1);
});

test('failures are not cached; answers are, keyed by the whole spec', async () => {
  const { client, bodies } = scripted(() => ok({ allowed: true }));
  const w = new WebhookAuthorizer(options(client));
  await w.authorize(attrs('u'));
  await w.authorize(attrs('u'));
  assert.equal(bodies.length, 1);
  await w.authorize(attrs('v'));
  assert.equal(bodies.length, 2);
});

test('matchConditions: any false skips even with errors; all true calls; an error alone follows the policy', async () => {
  const { client, bodies } = scripted(() => ok({ allowed: true }));
  const matcher = compileMatcher([{ expression: "request.extra['k'][0] == 'v'" }, { expression: "request.user != 'skip'" }]);
  const w = (failurePolicy: 'Deny' | 'NoOpinion') => new WebhookAuthorizer(options(client, { matcher, failurePolicy }));
  assert.deepEqual(await w('Deny').authorize(attrs('skip')), { decision: 'noOpinion' });
  assert.equal(bodies.length, 0);
  assert.equal((await w('Deny').authorize(attrs('u', { k: ['v'] }))).decision, 'allow');
  assert.equal(bodies.length, 1);
  assert.equal((await w('Deny').authorize(attrs('u'))).decision, 'deny');
  assert.equal((await w('NoOpinion').authorize(attrs('u'))).decision, 'noOpinion');
  assert.equal(bodies.length, 1);
});
