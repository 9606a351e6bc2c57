import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { rmSync } from 'node:fs';
import { after, before, describe, test } from 'node:test';
import { assertStatus, configMap } from '../helpers/fixtures.ts';
import { freePort } from '../helpers/free-port.ts';
import { metadataAuditLog } from '../helpers/audit-log.ts';
import { serveFile } from '../helpers/server.ts';
import { auditIdOf, eventsOf } from '../audit/helpers.ts';
import { configuration, install, startAdmissionWebhook, webhook, type FakeAdmissionWebhook } from './webhook-helper.ts';

// ValidatingAdmissionWebhook against a real HTTPS webhook: upstream's texts for refusals and for
// failures under each failure policy, the response checks, warnings, audit annotations, dry run,
// AdmissionReview versions, and webhooks asked in parallel.

const { dir, auditLog, flags: auditFlags } = metadataAuditLog('pgkube-vwh-');
let fake: FakeAdmissionWebhook;
before(async () => {
  fake = await startAdmissionWebhook('validating');
});
after(async () => {
  await fake?.close();
  rmSync(dir, { recursive: true, force: true });
});
const t = serveFile(auditFlags);

let counter = 0;
const cms = () => `/api/v1/namespaces/${t.ns}/configmaps`;

/**
 * Installs a ValidatingWebhookConfiguration whose webhooks see only configmaps labeled `case=<id>`,
 * with a sentinel webhook that tells when the configuration is in use. Returns the case's label.
 */
async function setup(hooks: (id: string) => Record<string, unknown>[]): Promise<{ id: string; labels: Record<string, string> }> {
  const id = `v${++counter}`;
  const labels = { case: id };
  const selector = { objectSelector: { matchLabels: labels } };
  const sentinel = webhook(fake, `sentinel.${id}.example.com`, `/sentinel/${id}`, { ...selector, failurePolicy: 'Ignore' });
  const config = configuration('ValidatingWebhookConfiguration', `case-${id}`, [...hooks(id).map((h) => ({ ...selector, ...h })), sentinel]);
  await install(t.api, config, async () => {
    await t.api.post(`${cms()}?dryRun=All`, configMap(`probe-${id}`, {}, { labels }));
    return fake.reviews(`/sentinel/${id}`).length > 0;
  });
  return { id, labels };
}

describe('refusals and acceptance', () => {
  test('an allowing webhook lets the write through and sees an AdmissionReview v1 of it', async () => {
    const { id, labels } = await setup((id) => [webhook(fake, 'allow.example.com', `/allow/${id}`)]);
    const res = await t.api.post(cms(), configMap('allowed', { a: 'b' }, { labels }));
    assert.equal(res.status, 201, res.text);
    const review = fake.reviews(`/allow/${id}`).find((r) => r.request.name === 'allowed');
    assert.ok(review, 'the webhook was called');
    assert.equal(review.apiVersion, 'admission.k8s.io/v1');
    assert.equal(review.kind, 'AdmissionReview');
    const r = review.request;
    assert.match(r.uid, /^[0-9a-f-]{36}$/);
    assert.deepEqual(r.kind, { group: '', version: 'v1', kind: 'ConfigMap' });
    assert.deepEqual(r.resource, { group: '', version: 'v1', resource: 'configmaps' });
    assert.deepEqual(r.requestKind, r.kind);
    assert.deepEqual(r.requestResource, r.resource);
    assert.equal(r.namespace, t.ns);
    assert.equal(r.operation, 'CREATE');
    assert.equal(r.dryRun, false);
    assert.equal(r.object.data.a, 'b');
    assert.equal(r.object.apiVersion, 'v1');
    assert.ok(r.object.metadata.uid, 'validating webhooks see the object as it will be stored');
    assert.equal(r.oldObject, null);
    assert.equal(r.options.kind, 'CreateOptions');
    assert.ok(r.userInfo.username, 'the user is named');
    assert.ok(r.userInfo.groups.includes('system:authenticated'));
  });

  test("a refusal carries the webhook's code and reason, its message prefixed with the webhook's name", async () => {
    await setup((id) => {
      fake.on(`/deny/${id}`, () => ({ allowed: false, status: { code: 403, reason: 'Forbidden', message: 'no configmaps today' } }));
      return [webhook(fake, 'deny.example.com', `/deny/${id}`)];
    }).then(async ({ labels }) => {
      const res = await t.api.post(cms(), configMap('refused', {}, { labels }));
      assertStatus(res, 403, 'Forbidden', 'admission webhook "deny.example.com" denied the request: no configmaps today');
      assert.equal((await t.api.get(`${cms()}/refused`)).status, 404, 'nothing was stored');
    });
  });

  test('a refusal without a status is 400 without a reason, "without explanation"; a reason alone is the message', async () => {
    const { id, labels } = await setup((id) => {
      fake.on(`/bare/${id}`, () => ({ allowed: false }));
      return [webhook(fake, 'bare.example.com', `/bare/${id}`)];
    });
    const res = await t.api.post(cms(), configMap('bare', {}, { labels }));
    assert.equal(res.status, 400, res.text);
    assert.equal(res.json.message, 'admission webhook "bare.example.com" denied the request without explanation');
    assert.equal(res.json.reason, undefined);
    assert.equal(res.json.code, 400);

    fake.on(`/bare/${id}`, () => ({ allowed: false, status: { code: 200, reason: 'TooBig' } }));
    const res2 = await t.api.post(cms(), configMap('bare2', {}, { labels }));
    assert.equal(res2.status, 400, 'a code below 400 becomes 400');
    assert.equal(res2.json.message, 'admission webhook "bare.example.com" denied the request: TooBig');
    assert.equal(res2.json.reason, 'TooBig');
  });

  test('updates and deletes are reviewed with the old object; warnings reach the client', async () => {
    const { id, labels } = await setup((id) => {
      fake.on(`/warn/${id}`, (review) => ({ allowed: true, warnings: [`${review.request.operation.toLowerCase()} looks odd`] }));
      return [webhook(fake, 'warn.example.com', `/warn/${id}`)];
    });
    const created = await t.api.post(cms(), configMap('warned', { v: '1' }, { labels }));
    assert.equal(created.status, 201, created.text);
    assert.match(String(created.headers.warning), /299 - "create looks odd"/);
    const updated = await t.api.put(`${cms()}/warned`, { ...created.json, data: { v: '2' } });
    assert.equal(updated.status, 200, updated.text);
    assert.match(String(updated.headers.warning), /update looks odd/);
    const update = fake.reviews(`/warn/${id}`).find((r) => r.request.operation === 'UPDATE');
    assert.equal(update.request.oldObject.data.v, '1');
    assert.equal(update.request.object.data.v, '2');
    assert.equal(update.request.options.kind, 'UpdateOptions');
    const deleted = await t.api.delete(`${cms()}/warned`);
    assert.equal(deleted.status, 200, deleted.text);
    const del = fake.reviews(`/warn/${id}`).find((r) => r.request.operation === 'DELETE');
    assert.equal(del.request.object, null);
    assert.equal(del.request.oldObject.data.v, '2');
    assert.equal(del.request.options.kind, 'DeleteOptions');
    assert.equal(del.request.name, 'warned');
  });

  test('audit annotations are keyed <webhook name>/<key> in the audit event', async () => {
    const { id, labels } = await setup((id) => {
      fake.on(`/audit/${id}`, () => ({ allowed: true, auditAnnotations: { decision: 'fine', reviewer: 'bot' } }));
      return [webhook(fake, 'audit.example.com', `/audit/${id}`)];
    });
    const res = await t.api.post(cms(), configMap('audited', {}, { labels }));
    assert.equal(res.status, 201, res.text);
    const events = await eventsOf(auditLog, auditIdOf(res), 2);
    const annotations = events.at(-1)?.annotations ?? {};
    assert.equal(annotations['audit.example.com/decision'], 'fine');
    assert.equal(annotations['audit.example.com/reviewer'], 'bot');
  });

  test('webhooks are asked in parallel; the first refusal to come back is the answer', async () => {
    const { labels } = await setup((id) => {
      fake.on(`/slow-a/${id}`, () => ({ allowed: true, delayMs: 800 }));
      fake.on(`/slow-b/${id}`, () => ({ allowed: true, delayMs: 800 }));
      fake.on(`/slow-c/${id}`, () => ({ allowed: false, status: { message: 'c says no' }, delayMs: 800 }));
      return [webhook(fake, 'slow-a.example.com', `/slow-a/${id}`), webhook(fake, 'slow-b.example.com', `/slow-b/${id}`), webhook(fake, 'slow-c.example.com', `/slow-c/${id}`)];
    });
    const started = Date.now();
    const res = await t.api.post(cms(), configMap('parallel', {}, { labels }));
    const took = Date.now() - started;
    assert.equal(res.status, 400, res.text);
    assert.equal(res.json.message, 'admission webhook "slow-c.example.com" denied the request: c says no');
    assert.ok(took < 2000, `three 800 ms webhooks took ${took} ms: they were not asked in parallel`);
  });
});

describe('failures and the failure policy', () => {
  test('an unreachable webhook fails the request (Fail, the default) with 500 and the transport error', async () => {
    const port = await freePort();
    const { labels } = await setup(() => [{ ...webhook(fake, 'down.example.com', '/down'), clientConfig: { url: `https://127.0.0.1:${port}/down`, caBundle: fake.caBundle } }]);
    const res = await t.api.post(cms(), configMap('down', {}, { labels }));
    assertStatus(
      res,
      500,
      'InternalError',
      `Internal error occurred: failed calling webhook "down.example.com": failed to call webhook: Post "https://127.0.0.1:${port}/down?timeout=5s": dial tcp 127.0.0.1:${port}: connect: connection refused`,
    );
    assert.equal(res.json.details.causes[0].message, res.json.message.replace('Internal error occurred: ', ''));
  });

  test('under failurePolicy Ignore the request goes on, with the failed-open audit annotation', async () => {
    const port = await freePort();
    const { labels } = await setup(() => [{ ...webhook(fake, 'ignored.example.com', '/ignored'), failurePolicy: 'Ignore', clientConfig: { url: `https://127.0.0.1:${port}/x`, caBundle: fake.caBundle } }]);
    const res = await t.api.post(cms(), configMap('ignored', {}, { labels }));
    assert.equal(res.status, 201, res.text);
    const events = await eventsOf(auditLog, auditIdOf(res), 2);
    const annotations = events.at(-1)?.annotations ?? {};
    const key = Object.keys(annotations).find((k) => k.startsWith('failed-open.validating.webhook.admission.k8s.io/round_0_index_'));
    assert.ok(key, `a failed-open annotation: ${JSON.stringify(annotations)}`);
    assert.equal(annotations[key], 'ignored.example.com');
  });

  test('a webhook that does not answer within timeoutSeconds fails with context deadline exceeded', async () => {
    const { id, labels } = await setup((id) => {
      fake.on(`/hang/${id}`, (review) => (review.request.name === 'slow' ? { hang: true } : { allowed: true }));
      return [webhook(fake, 'hang.example.com', `/hang/${id}`, { timeoutSeconds: 1 })];
    });
    const started = Date.now();
    const res = await t.api.post(cms(), configMap('slow', {}, { labels }));
    assert.ok(Date.now() - started < 4000, 'the timeout ended the call');
    assertStatus(res, 500, 'InternalError', `Internal error occurred: failed calling webhook "hang.example.com": failed to call webhook: Post "${fake.url(`/hang/${id}`)}?timeout=1s": context deadline exceeded`);
  });

  test('a certificate the caBundle does not sign is refused as Go refuses it', async () => {
    const { labels } = await setup(() => [{ ...webhook(fake, 'untrusted.example.com', '/untrusted'), clientConfig: { url: fake.url('/untrusted') } }]);
    const res = await t.api.post(cms(), configMap('untrusted', {}, { labels }));
    assertStatus(
      res,
      500,
      'InternalError',
      `Internal error occurred: failed calling webhook "untrusted.example.com": failed to call webhook: Post "${fake.url('/untrusted')}?timeout=5s": tls: failed to verify certificate: x509: certificate signed by unknown authority`,
    );
  });

  test('a caBundle without a certificate cannot make a client', async () => {
    const { labels } = await setup(() => [{ ...webhook(fake, 'badca.example.com', '/badca'), clientConfig: { url: fake.url('/badca'), caBundle: Buffer.from('not a certificate').toString('base64') } }]);
    const res = await t.api.post(cms(), configMap('badca', {}, { labels }));
    assertStatus(res, 500, 'InternalError', 'Internal error occurred: failed calling webhook "badca.example.com": could not get REST client: unable to load root certificates: unable to parse bytes as PEM block');
  });

  test('a service reference fails as upstream fails for a Service that does not exist (there are none here)', async () => {
    const { labels } = await setup(() => [{ ...webhook(fake, 'svc.example.com', '/svc'), clientConfig: { service: { namespace: 'webhooks', name: 'checker', path: '/check' } } }]);
    const res = await t.api.post(cms(), configMap('svc', {}, { labels }));
    assertStatus(
      res,
      500,
      'InternalError',
      'Internal error occurred: failed calling webhook "svc.example.com": failed to call webhook: Post "https://checker.webhooks.svc:443/check?timeout=5s": service "checker" not found',
    );
  });

  test('invalid responses: wrong uid, wrong type, a patch, not JSON, an error status', async () => {
    const { id, labels } = await setup((id) => [webhook(fake, 'odd.example.com', `/odd/${id}`)]);
    const prefix = 'Internal error occurred: failed calling webhook "odd.example.com": ';
    const cases: [Parameters<FakeAdmissionWebhook['on']>[1], string | RegExp][] = [
      [() => ({ allowed: true, uid: 'other' }), /^received invalid webhook response: expected response.uid="[0-9a-f-]{36}", got "other"$/],
      [() => ({ allowed: true, apiVersion: 'admission.k8s.io/v1beta1' }), 'received invalid webhook response: expected webhook response of admission.k8s.io/v1, Kind=AdmissionReview, got admission.k8s.io/v1beta1, Kind=AdmissionReview'],
      [(review) => ({ raw: JSON.stringify({ response: { uid: review.request.uid, allowed: true } }) }), 'received invalid webhook response: expected webhook response of admission.k8s.io/v1, Kind=AdmissionReview, got /, Kind='],
      [() => ({ allowed: true, patch: [{ op: 'add', path: '/x', value: 1 }] }), 'received invalid webhook response: validating webhook may not return response.patch'],
      [() => ({ raw: 'hello' }), "failed to call webhook: couldn't get version/kind; json parse error: invalid character 'h' looking for beginning of value"],
      [() => ({ raw: '{"apiVersion":"admission.k8s.io/v1","kind":"AdmissionReview"}' }), 'received invalid webhook response: webhook response was absent'],
      [() => ({ raw: 'boom', code: 500, contentType: 'text/plain' }), 'failed to call webhook: an error on the server ("boom") has prevented the request from succeeding'],
      [() => ({ raw: 'nope', code: 404, contentType: 'text/plain' }), 'failed to call webhook: the server could not find the requested resource'],
    ];
    for (const [i, [answer, expected]] of cases.entries()) {
      fake.on(`/odd/${id}`, answer);
      const res = await t.api.post(cms(), configMap(`odd-${i}`, {}, { labels }));
      assert.equal(res.status, 500, `case ${i}: ${res.text}`);
      assert.ok(res.json.message.startsWith(prefix), `case ${i}: ${res.json.message}`);
      const rest = res.json.message.slice(prefix.length);
      if (typeof expected === 'string') assert.equal(rest, expected, `case ${i}`);
      else assert.match(rest, expected, `case ${i}`);
    }
  });
});

describe('dry run and review versions', () => {
  test('a dry run calls webhooks without side effects, telling them dryRun; nothing is stored', async () => {
    const { id, labels } = await setup((id) => [webhook(fake, 'dry.example.com', `/dry/${id}`, { sideEffects: 'NoneOnDryRun' })]);
    const res = await t.api.post(`${cms()}?dryRun=All`, configMap('dry', {}, { labels }));
    assert.equal(res.status, 201, res.text);
    const review = fake.reviews(`/dry/${id}`).find((r) => r.request.name === 'dry');
    assert.equal(review.request.dryRun, true);
    assert.deepEqual(review.request.options.dryRun, ['All']);
    assert.equal((await t.api.get(`${cms()}/dry`)).status, 404);
  });

  test('a dry run is refused by a webhook whose side effects are Some (stored before the rule)', async () => {
    const { labels } = await setup(() => []);
    // The API refuses sideEffects Some on create; such objects come from older servers, so it is written to storage.
    const config = configuration('ValidatingWebhookConfiguration', 'legacy-side-effects', [webhook(fake, 'legacy.example.com', '/legacy', { sideEffects: 'Some', objectSelector: { matchLabels: labels } })]);
    const storage = t.srv.server.storage;
    await storage.create({ group: 'admissionregistration.k8s.io', resource: 'validatingwebhookconfigurations', namespace: '', name: 'legacy-side-effects' }, { ...config, metadata: { name: 'legacy-side-effects', uid: randomUUID(), creationTimestamp: new Date().toISOString().replace(/\.\d+Z$/, 'Z') } } as never, {
      requireNamespace: false,
    });
    let res;
    for (let i = 0; i < 100; i++) {
      res = await t.api.post(`${cms()}?dryRun=All`, configMap('dry-some', {}, { labels }));
      if (res.status !== 201) break;
      await new Promise((r) => setTimeout(r, 50));
    }
    assertStatus(res!, 400, 'BadRequest', 'admission webhook "legacy.example.com" does not support dry run');
    // Outside a dry run it is called as any other.
    assert.equal((await t.api.post(cms(), configMap('wet-some', {}, { labels }))).status, 201);
    assert.ok(fake.reviews('/legacy').some((r) => r.request.name === 'wet-some'));
    await t.api.delete('/apis/admissionregistration.k8s.io/v1/validatingwebhookconfigurations/legacy-side-effects');
  });

  test('a webhook that names only v1beta1 gets an admission.k8s.io/v1beta1 review, its answer taken as it comes', async () => {
    const { id, labels } = await setup((id) => {
      fake.on(`/beta/${id}`, (review) => (review.request.name === 'beta-no' ? { raw: JSON.stringify({ response: { uid: 'whatever', allowed: false, status: { message: 'beta says no' } } }) } : { allowed: true }));
      return [webhook(fake, 'beta.example.com', `/beta/${id}`, { admissionReviewVersions: ['v1beta1'] })];
    });
    assert.equal((await t.api.post(cms(), configMap('beta-yes', {}, { labels }))).status, 201);
    assert.equal(fake.reviews(`/beta/${id}`).find((r) => r.request.name === 'beta-yes').apiVersion, 'admission.k8s.io/v1beta1');
    const res = await t.api.post(cms(), configMap('beta-no', {}, { labels }));
    assert.equal(res.status, 400, res.text);
    assert.equal(res.json.message, 'admission webhook "beta.example.com" denied the request: beta says no');
  });

  test('webhook configurations themselves are never sent to webhooks', async () => {
    const { id } = await setup((id) => {
      fake.on(`/all/${id}`, () => ({ allowed: false, status: { message: 'locked' } }));
      return [{ ...webhook(fake, 'all.example.com', `/all/${id}`), objectSelector: {}, rules: [{ operations: ['*'], apiGroups: ['admissionregistration.k8s.io'], apiVersions: ['*'], resources: ['*'] }] }];
    });
    const res = await t.api.delete(`/apis/admissionregistration.k8s.io/v1/validatingwebhookconfigurations/case-${id}`);
    assert.equal(res.status, 200, res.text);
    assert.equal(fake.reviews(`/all/${id}`).length, 0);
  });
});
