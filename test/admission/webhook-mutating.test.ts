import assert from 'node:assert/strict';
import { rmSync } from 'node:fs';
import { after, before, describe, test } from 'node:test';
import { auditIdOf, eventsOf } from '../audit/helpers.ts';
import { assertStatus, configMap } from '../helpers/fixtures.ts';
import { metadataAuditLog } from '../helpers/audit-log.ts';
import { serveFile } from '../helpers/server.ts';
import { configuration, install, startAdmissionWebhook, webhook, type Answer, type FakeAdmissionWebhook } from './webhook-helper.ts';

// MutatingAdmissionWebhook against a real HTTPS webhook: JSONPatch responses applied in order,
// configurations in name order, reinvocationPolicy IfNeeded, the patch's decoding as the kind's,
// patch failures, v1beta1 patches, dry run, and the mutation audit annotations.

const { dir, auditLog, flags: auditFlags } = metadataAuditLog('pgkube-mwh-');
let fake: FakeAdmissionWebhook;
before(async () => {
  fake = await startAdmissionWebhook('mutating');
});
after(async () => {
  await fake?.close();
  rmSync(dir, { recursive: true, force: true });
});
const t = serveFile(auditFlags);

let counter = 0;
const cms = () => `/api/v1/namespaces/${t.ns}/configmaps`;
const MWC = 'MutatingWebhookConfiguration';

/** A patch adding (or replacing) one label. */
const label = (key: string, value: string) => ({ op: 'add', path: `/metadata/labels/${key.replace(/\//g, '~1')}`, value });
const isProbe = (review: any) => String(review.request.name ?? '').startsWith('probe-');
/** Allows probes untouched; everything else gets `answer`. */
const unlessProbe = (answer: (review: any) => Answer) => (review: any) => (isProbe(review) ? { allowed: true } : answer(review));

/**
 * Installs MutatingWebhookConfigurations (name → webhooks), their webhooks seeing only configmaps
 * labeled `case=<id>`, the last one with a sentinel; waits until they are all in use.
 */
async function setup(configs: (id: string) => Record<string, Record<string, unknown>[]>): Promise<{ id: string; labels: Record<string, string> }> {
  const id = `w${++counter}`;
  const labels = { case: id };
  const selector = { objectSelector: { matchLabels: labels } };
  const entries = Object.entries(configs(id));
  for (const [i, [name, hooks]] of entries.entries()) {
    const sentinel = webhook(fake, `sentinel-${i}.${id}.example.com`, `/sentinel/${id}/${i}`, { ...selector, failurePolicy: 'Ignore' });
    await install(t.api, configuration(MWC, name, [...hooks.map((h) => ({ ...selector, ...h })), sentinel]), async () => {
      await t.api.post(`${cms()}?dryRun=All`, configMap(`probe-${id}-${i}`, {}, { labels }));
      return fake.reviews(`/sentinel/${id}/${i}`).length > 0;
    });
  }
  return { id, labels };
}

const calls = (path: string) => fake.reviews(path).filter((r) => !isProbe(r));

describe('patches', () => {
  test('a JSONPatch response changes what is stored; the webhook sees the body before the server fills it in', async () => {
    const { id, labels } = await setup((id) => {
      fake.on(`/add/${id}`, unlessProbe(() => ({ allowed: true, patch: [label('added-by', 'webhook'), { op: 'add', path: '/data/extra', value: 'yes' }] })));
      return { [`add-${id}`]: [webhook(fake, 'add.example.com', `/add/${id}`)] };
    });
    const res = await t.api.post(cms(), configMap('patched', { a: 'b' }, { labels }));
    assert.equal(res.status, 201, res.text);
    assert.equal(res.json.metadata.labels['added-by'], 'webhook');
    assert.equal(res.json.data.extra, 'yes');
    const stored = await t.api.get(`${cms()}/patched`);
    assert.equal(stored.json.metadata.labels['added-by'], 'webhook');
    const [review] = calls(`/add/${id}`);
    assert.equal(review.request.object.metadata.uid, undefined, 'mutating webhooks run before the server fills in metadata');
    assert.equal(review.request.object.apiVersion, 'v1');
    assert.equal(review.request.object.kind, 'ConfigMap');

    const generated = await t.api.post(cms(), configMap(undefined, {}, { labels, generateName: 'gen-' }));
    assert.equal(generated.status, 201, generated.text);
    assert.match(generated.json.metadata.name, /^gen-[a-z0-9]{5}$/);
    assert.equal(generated.json.metadata.labels['added-by'], 'webhook');
    assert.equal(calls(`/add/${id}`).at(-1).request.name, undefined, 'a generated name is not known yet');
  });

  test('webhooks run one after the other, configurations in name order, each seeing the last one’s changes', async () => {
    const { id, labels } = await setup((id) => {
      const seen = (key: string) => (review: any) => ({ allowed: true, patch: [label(key, String(Object.keys(review.request.object.metadata.labels ?? {}).filter((k) => k.startsWith('step-')).length))] });
      fake.on(`/first/${id}`, unlessProbe(seen('step-first')));
      fake.on(`/second/${id}`, unlessProbe(seen('step-second')));
      fake.on(`/third/${id}`, unlessProbe(seen('step-third')));
      // Created in the opposite order of their names.
      return { [`b-${id}`]: [webhook(fake, 'third.example.com', `/third/${id}`)], [`a-${id}`]: [webhook(fake, 'first.example.com', `/first/${id}`), webhook(fake, 'second.example.com', `/second/${id}`)] };
    });
    const res = await t.api.post(cms(), configMap('ordered', {}, { labels }));
    assert.equal(res.status, 201, res.text);
    const l = res.json.metadata.labels;
    assert.deepEqual([l['step-first'], l['step-second'], l['step-third']], ['0', '1', '2']);
  });

  test('reinvocationPolicy IfNeeded: a webhook is called again after a later webhook changed the object', async () => {
    const { id, labels } = await setup((id) => {
      const sawLater = (review: any) => (review.request.object.metadata.labels?.later === 'done' ? 'yes' : 'no');
      fake.on(`/again/${id}`, unlessProbe((review) => ({ allowed: true, patch: [label('again-saw-later', sawLater(review))] })));
      fake.on(`/once/${id}`, unlessProbe((review) => ({ allowed: true, patch: [label('once-saw-later', sawLater(review))] })));
      fake.on(`/later/${id}`, unlessProbe(() => ({ allowed: true, patch: [label('later', 'done')] })));
      return {
        [`a-${id}`]: [webhook(fake, 'again.example.com', `/again/${id}`, { reinvocationPolicy: 'IfNeeded' }), webhook(fake, 'once.example.com', `/once/${id}`)],
        [`b-${id}`]: [webhook(fake, 'later.example.com', `/later/${id}`)],
      };
    });
    const res = await t.api.post(cms(), configMap('reinvoked', {}, { labels }));
    assert.equal(res.status, 201, res.text);
    assert.equal(calls(`/again/${id}`).length, 2, 'the IfNeeded webhook before the change is called twice');
    assert.equal(calls(`/once/${id}`).length, 1, 'a Never webhook is called once');
    assert.equal(calls(`/later/${id}`).length, 1, 'a Never webhook after the change is called once');
    assert.equal(res.json.metadata.labels['again-saw-later'], 'yes');
    assert.equal(res.json.metadata.labels['once-saw-later'], 'no');

    // Nothing after it changes the object: it is called once.
    fake.on(`/later/${id}`, unlessProbe(() => ({ allowed: true })));
    fake.on(`/once/${id}`, unlessProbe(() => ({ allowed: true })));
    assert.equal((await t.api.post(cms(), configMap('not-reinvoked', {}, { labels }))).status, 201);
    assert.equal(calls(`/again/${id}`).filter((r) => r.request.name === 'not-reinvoked').length, 1);
  });

  test('the patched object is decoded as the kind: unknown fields dropped, wrong types refused', async () => {
    const { id, labels } = await setup((id) => {
      fake.on(`/shape/${id}`, unlessProbe((review) => ({ allowed: true, patch: review.request.name === 'typed' ? [{ op: 'add', path: '/data/n', value: 5 }] : [{ op: 'add', path: '/spec', value: { x: 1 } }, label('shaped', 'yes')] })));
      return { [`shape-${id}`]: [webhook(fake, 'shape.example.com', `/shape/${id}`)] };
    });
    const res = await t.api.post(cms(), configMap('unknown-field', {}, { labels }));
    assert.equal(res.status, 201, res.text);
    assert.equal(res.json.spec, undefined);
    assert.equal(res.json.metadata.labels.shaped, 'yes');
    const typed = await t.api.post(cms(), configMap('typed', {}, { labels }));
    assertStatus(typed, 500, 'InternalError', 'Internal error occurred: json: cannot unmarshal number into Go struct field ConfigMap.data of type string');
  });

  test('a dry run returns the mutated object and stores nothing', async () => {
    const { id, labels } = await setup((id) => {
      fake.on(`/dry/${id}`, unlessProbe(() => ({ allowed: true, patch: [label('dry', 'run')] })));
      return { [`dry-${id}`]: [webhook(fake, 'dry.example.com', `/dry/${id}`)] };
    });
    const res = await t.api.post(`${cms()}?dryRun=All`, configMap('dry', {}, { labels }));
    assert.equal(res.status, 201, res.text);
    assert.equal(res.json.metadata.labels.dry, 'run');
    assert.equal(calls(`/dry/${id}`)[0].request.dryRun, true);
    assert.equal((await t.api.get(`${cms()}/dry`)).status, 404);
  });

  test('v1beta1: a patch without patchType is JSONPatch', async () => {
    const { id, labels } = await setup((id) => {
      fake.on(`/beta/${id}`, unlessProbe((review) => ({ raw: JSON.stringify({ response: { uid: review.request.uid, allowed: true, patch: Buffer.from(JSON.stringify([label('beta', 'yes')])).toString('base64') } }) })));
      return { [`beta-${id}`]: [webhook(fake, 'beta.example.com', `/beta/${id}`, { admissionReviewVersions: ['v1beta1'] })] };
    });
    const res = await t.api.post(cms(), configMap('beta', {}, { labels }));
    assert.equal(res.status, 201, res.text);
    assert.equal(res.json.metadata.labels.beta, 'yes');
    assert.equal(calls(`/beta/${id}`)[0].apiVersion, 'admission.k8s.io/v1beta1');
  });
});

describe('failures', () => {
  test('a refusal stops the chain with the webhook’s message', async () => {
    const { id, labels } = await setup((id) => {
      fake.on(`/no/${id}`, unlessProbe(() => ({ allowed: false, status: { code: 422, reason: 'Invalid', message: 'labels are wrong' } })));
      return { [`no-${id}`]: [webhook(fake, 'no.example.com', `/no/${id}`), webhook(fake, 'after.example.com', `/after/${id}`)] };
    });
    assertStatus(await t.api.post(cms(), configMap('refused', {}, { labels })), 422, 'Invalid', 'admission webhook "no.example.com" denied the request: labels are wrong');
    assert.equal(calls(`/after/${id}`).length, 0, 'later webhooks are not asked');
  });

  test('a patch that does not apply is a 500 whatever the failure policy', async () => {
    const { id, labels } = await setup((id) => {
      fake.on(`/bad/${id}`, unlessProbe(() => ({ allowed: true, patch: [{ op: 'add', path: '/metadata/annotations/x', value: 'y' }] })));
      return { [`bad-${id}`]: [webhook(fake, 'bad.example.com', `/bad/${id}`, { failurePolicy: 'Ignore' })] };
    });
    assertStatus(await t.api.post(cms(), configMap('bad', {}, { labels })), 500, 'InternalError', 'Internal error occurred: add operation does not apply: doc is missing path: "/metadata/annotations/x": missing value');
  });

  test('an undecodable patch or a missing patchType is a failure to call the webhook: Fail refuses, Ignore goes on', async () => {
    const { id, labels } = await setup((id) => {
      fake.on(`/undecodable/${id}`, unlessProbe(() => ({ allowed: true, rawPatch: Buffer.from('{}').toString('base64') })));
      fake.on(`/untyped/${id}`, unlessProbe(() => ({ allowed: true, patch: [label('x', 'y')], patchType: null })));
      return {
        [`undecodable-${id}`]: [webhook(fake, 'undecodable.example.com', `/undecodable/${id}`, { objectSelector: { matchLabels: { case: id, try: 'undecodable' } } })],
        [`untyped-${id}`]: [webhook(fake, 'untyped.example.com', `/untyped/${id}`, { objectSelector: { matchLabels: { case: id, try: 'untyped' } } })],
        [`ignored-${id}`]: [webhook(fake, 'ignored.example.com', `/undecodable/${id}`, { failurePolicy: 'Ignore', objectSelector: { matchLabels: { case: id, try: 'ignored' } } })],
      };
    });
    assertStatus(
      await t.api.post(cms(), configMap('undecodable', {}, { labels: { ...labels, try: 'undecodable' } })),
      500,
      'InternalError',
      'Internal error occurred: failed calling webhook "undecodable.example.com": received undecodable patch in webhook response: json: cannot unmarshal object into Go value of type jsonpatch.Patch',
    );
    assertStatus(
      await t.api.post(cms(), configMap('untyped', {}, { labels: { ...labels, try: 'untyped' } })),
      500,
      'InternalError',
      'Internal error occurred: failed calling webhook "untyped.example.com": received invalid webhook response: webhook returned response.patch but not response.patchType',
    );
    const ignored = await t.api.post(cms(), configMap('ignored', {}, { labels: { ...labels, try: 'ignored' } }));
    assert.equal(ignored.status, 201, ignored.text);
    const events = await eventsOf(auditLog, auditIdOf(ignored), 2);
    const annotations = events.at(-1)?.annotations ?? {};
    const key = Object.keys(annotations).find((k) => k.startsWith('failed-open.mutation.webhook.admission.k8s.io/round_0_index_'));
    assert.ok(key, JSON.stringify(annotations));
    assert.equal(annotations[key], 'ignored.example.com');
  });

  test('a patch on a delete is refused: there is no object to change', async () => {
    const { id, labels } = await setup((id) => {
      fake.on(`/del/${id}`, unlessProbe((review) => (review.request.operation === 'DELETE' ? { allowed: true, patch: [label('x', 'y')] } : { allowed: true })));
      return { [`del-${id}`]: [webhook(fake, 'del.example.com', `/del/${id}`)] };
    });
    assert.equal((await t.api.post(cms(), configMap('doomed', {}, { labels }))).status, 201);
    assertStatus(await t.api.delete(`${cms()}/doomed`), 500, 'InternalError', 'Internal error occurred: admission webhook "del.example.com" attempted to modify the object, which is not supported for this operation');
  });
});

test('audit annotations: whether each webhook mutated, by round and index, and the webhook’s own keys', async () => {
  const { id, labels } = await setup((id) => {
    fake.on(`/m1/${id}`, unlessProbe(() => ({ allowed: true, patch: [label('m1', 'x')], auditAnnotations: { why: 'labelled' } })));
    fake.on(`/m2/${id}`, unlessProbe(() => ({ allowed: true })));
    return { [`audit-${id}`]: [webhook(fake, 'm1.example.com', `/m1/${id}`), webhook(fake, 'm2.example.com', `/m2/${id}`)] };
  });
  const res = await t.api.post(cms(), configMap('audited', {}, { labels }));
  assert.equal(res.status, 201, res.text);
  const events = await eventsOf(auditLog, auditIdOf(res), 2);
  const annotations = events.at(-1)?.annotations ?? {};
  const mutation = Object.entries(annotations)
    .filter(([k]) => k.startsWith('mutation.webhook.admission.k8s.io/round_0_index_'))
    .sort(([a], [b]) => Number(a.split('_').at(-1)) - Number(b.split('_').at(-1)))
    .map(([, v]) => JSON.parse(v));
  assert.deepEqual(
    mutation.filter((m) => !m.webhook.startsWith('sentinel')),
    [
      { configuration: `audit-${id}`, webhook: 'm1.example.com', mutated: true },
      { configuration: `audit-${id}`, webhook: 'm2.example.com', mutated: false },
    ],
  );
  assert.equal(annotations['m1.example.com/why'], 'labelled');
});
