import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { WebhookClients } from '../../src/admission/webhook/client.ts';
import { convertObject, convertObjects } from '../../src/crd/conversion/index.ts';
import { startConversionWebhook, success, widget, widgetCrd, type FakeConversionWebhook } from './conversion-fixtures.ts';

let hook: FakeConversionWebhook;
const clients = new WebhookClients();
before(async () => {
  hook = await startConversionWebhook();
});
after(async () => {
  clients.close();
  await hook.close();
});

const webhookCrd = (versions = ['v1'], clientConfig?: Record<string, unknown>) =>
  widgetCrd({ strategy: 'Webhook', webhook: { conversionReviewVersions: versions, clientConfig: clientConfig ?? { url: hook.url, caBundle: hook.caBundle } } });

test('a v1 ConversionReview carries uid, desiredAPIVersion and the objects; the answer is used', async () => {
  hook.reviews.length = 0;
  hook.answer((r) => success(r, (o) => ({ ...o, spec: { replicas: o.spec.size } })));
  const out = await convertObject(webhookCrd(['v1', 'v1beta1']), widget('a'), 'v2', { clients });
  assert.deepEqual(out, { ...widget('a', 'v2'), spec: { replicas: 3 } });
  assert.equal(hook.reviews.length, 1);
  const review = hook.reviews[0];
  assert.equal(review.apiVersion, 'apiextensions.k8s.io/v1');
  assert.equal(review.kind, 'ConversionReview');
  assert.match(review.request.uid, /^[0-9a-f-]{36}$/);
  assert.equal(review.request.desiredAPIVersion, 'stable.example.com/v2');
  assert.deepEqual(review.request.objects, [widget('a')]);
  // client-go's REST client adds the client timeout to the URL.
  assert.equal(review.path, '/convert?timeout=30s');
});

test('a CRD listing only v1beta1 gets a v1beta1 review, whose answer skips the uid and type checks', async () => {
  hook.reviews.length = 0;
  hook.answer((r) => {
    const reply = success(r) as { review: any };
    reply.review.response.uid = 'whatever';
    reply.review.apiVersion = 'something/else';
    return reply;
  });
  const out = await convertObject(webhookCrd(['v1beta1']), widget('a'), 'v2', { clients });
  assert.equal(out.apiVersion, 'stable.example.com/v2');
  assert.equal(hook.reviews[0].apiVersion, 'apiextensions.k8s.io/v1beta1');
});

test('the first review version this server speaks wins', async () => {
  hook.reviews.length = 0;
  hook.answer((r) => success(r));
  await convertObject(webhookCrd(['v9', 'v1beta1', 'v1']), widget('a'), 'v2', { clients });
  assert.equal(hook.reviews[0].apiVersion, 'apiextensions.k8s.io/v1beta1');
});

test('a list sends only the items not at the desired version, and puts the answers back in place', async () => {
  hook.reviews.length = 0;
  hook.answer((r) => success(r, (o) => ({ ...o, converted: true })));
  const out = await convertObjects(webhookCrd(), [widget('a', 'v1'), widget('b', 'v2'), widget('c', 'v1')], 'v2', { clients });
  assert.deepEqual(hook.reviews[0].request.objects.map((o: any) => o.metadata.name), ['a', 'c']);
  assert.deepEqual(out.map((o) => [(o.metadata as any).name, o.apiVersion, o.converted]), [
    ['a', 'stable.example.com/v2', true],
    ['b', 'stable.example.com/v2', undefined],
    ['c', 'stable.example.com/v2', true],
  ]);
});

test('nothing to convert makes no call: objects already there, or an empty object', async () => {
  hook.reviews.length = 0;
  const same = await convertObject(webhookCrd(), widget('a', 'v2'), 'v2', { clients });
  assert.deepEqual(same, widget('a', 'v2'));
  const list = await convertObjects(webhookCrd(), [widget('a', 'v2')], 'v2', { clients });
  assert.deepEqual(list, [widget('a', 'v2')]);
  const empty = await convertObject(webhookCrd(), { apiVersion: 'stable.example.com/v1', kind: 'Widget' }, 'v2', { clients });
  assert.deepEqual(empty, { apiVersion: 'stable.example.com/v2', kind: 'Widget' });
  assert.equal(hook.reviews.length, 0);
});

test('labels and annotations from the webhook are kept; any other metadata change is undone', async () => {
  hook.answer((r) =>
    success(r, (o) => ({
      ...o,
      metadata: { ...o.metadata, resourceVersion: '99', generation: 5, finalizers: ['x/y'], labels: { app: 'w', tier: 'v2' }, annotations: undefined },
    })),
  );
  const out = await convertObject(webhookCrd(), widget('a'), 'v2', { clients });
  const { annotations: _dropped, ...meta } = widget('a').metadata;
  assert.deepEqual(out.metadata, { ...meta, labels: { app: 'w', tier: 'v2' } });
});

test('a Service reference is called at <name>.<namespace>.svc through the injected resolver', async () => {
  hook.reviews.length = 0;
  hook.answer((r) => success(r));
  const resolved: unknown[] = [];
  const viaService = new WebhookClients({
    resolveService: async (svc) => {
      resolved.push(svc);
      return { host: '127.0.0.1', port: hook.port };
    },
  });
  try {
    const crd = webhookCrd(['v1'], { service: { name: 'converter', namespace: 'webhooks', path: '/convert', port: 8443 }, caBundle: hook.caBundle });
    const out = await convertObject(crd, widget('a'), 'v2', { clients: viaService });
    assert.equal(out.apiVersion, 'stable.example.com/v2');
    assert.deepEqual(resolved, [{ name: 'converter', namespace: 'webhooks', port: 8443 }]);
    assert.equal(hook.reviews[0].host, 'converter.webhooks.svc:8443');
    assert.equal(hook.reviews[0].path, '/convert?timeout=30s');
  } finally {
    viaService.close();
  }
});
