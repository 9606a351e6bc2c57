import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { WebhookClients } from '../../src/admission/webhook/client.ts';
import { convertObject, convertObjects, ConversionError } from '../../src/crd/conversion/index.ts';
import { startConversionWebhook, success, widget, widgetCrd, type FakeConversionWebhook, type Reply } from './conversion-fixtures.ts';

let hook: FakeConversionWebhook;
const clients = new WebhookClients();
before(async () => {
  hook = await startConversionWebhook();
});
after(async () => {
  clients.close();
  await hook.close();
});

const GVK = 'stable.example.com/v1, Kind=Widget';
const LIST_GVK = 'stable.example.com/v2, Kind=WidgetList';
const webhookCrd = (versions = ['v1'], clientConfig?: Record<string, unknown>) =>
  widgetCrd({ strategy: 'Webhook', webhook: { conversionReviewVersions: versions, clientConfig: clientConfig ?? { url: hook.url, caBundle: hook.caBundle } } });

/** The single-object conversion's refusal when the webhook answers with `reply`. */
async function refusal(reply: (review: any) => Reply, versions = ['v1']): Promise<string> {
  hook.answer(reply);
  const err = await convertObject(webhookCrd(versions), widget('a'), 'v2', { clients }).then(
    () => assert.fail('conversion succeeded'),
    (e: unknown) => e,
  );
  assert.ok(err instanceof ConversionError);
  return err.message;
}

/** The same for a list of two objects at v1. */
async function listRefusal(reply: (review: any) => Reply): Promise<string> {
  hook.answer(reply);
  const err = await convertObjects(webhookCrd(), [widget('a'), widget('b')], 'v2', { clients }).then(
    () => assert.fail('conversion succeeded'),
    (e: unknown) => e,
  );
  return (err as Error).message;
}

/** A successful answer with the response (or review) adjusted. */
const tweaked = (change: (review: any) => void) => (r: any): Reply => {
  const reply = success(r) as { review: any };
  change(reply.review);
  return reply;
};

test('a v1 answer with another uid is refused', async () => {
  const msg = await refusal(tweaked((rv) => (rv.response.uid = 'not-mine')));
  assert.match(msg, new RegExp(`^conversion webhook for ${GVK} failed: expected response.uid="[0-9a-f-]{36}", got "not-mine"$`));
});

test('a v1 answer of another type is refused', async () => {
  const msg = await refusal(tweaked((rv) => (rv.apiVersion = 'apiextensions.k8s.io/v1beta1')));
  assert.equal(msg, `conversion webhook for ${GVK} failed: expected webhook response of apiextensions.k8s.io/v1, Kind=ConversionReview, got apiextensions.k8s.io/v1beta1, Kind=ConversionReview`);
});

test('an answer without a response is refused', async () => {
  assert.equal(await refusal(tweaked((rv) => delete rv.response)), `conversion webhook for ${GVK} failed: no response provided`);
  assert.equal(await refusal(tweaked((rv) => delete rv.response), ['v1beta1']), `conversion webhook for ${GVK} failed: no response provided`);
});

test('a result other than Success is refused with its message, or the status when there is none', async () => {
  const withMessage = await refusal(tweaked((rv) => (rv.response.result = { status: 'Failure', message: 'cannot convert size' })));
  assert.equal(withMessage, `conversion webhook for ${GVK} failed: cannot convert size`);
  const bare = await refusal(tweaked((rv) => (rv.response.result = { status: 'Failure' })));
  assert.equal(bare, `conversion webhook for ${GVK} failed: response.result.status was 'Failure', not 'Success'`);
  const none = await refusal(tweaked((rv) => delete rv.response.result), ['v1beta1']);
  assert.equal(none, `conversion webhook for ${GVK} failed: response.result.status was '', not 'Success'`);
});

test('the wrong number of converted objects is refused', async () => {
  assert.equal(await refusal(tweaked((rv) => (rv.response.convertedObjects = []))), `conversion webhook for ${GVK} returned 0 objects, expected 1`);
  assert.equal(await listRefusal(tweaked((rv) => rv.response.convertedObjects.pop())), `conversion webhook for ${LIST_GVK} returned 1 objects, expected 2`);
});

test('a converted object at the wrong version or of another kind is refused', async () => {
  const gv = await refusal(tweaked((rv) => (rv.response.convertedObjects[0].apiVersion = 'stable.example.com/v1')));
  assert.equal(gv, `conversion webhook for ${GVK} returned invalid object at index 0: invalid groupVersion (expected stable.example.com/v2, received stable.example.com/v1)`);
  const kind = await refusal(tweaked((rv) => (rv.response.convertedObjects[0].kind = 'Gadget')));
  assert.equal(kind, `conversion webhook for ${GVK} returned invalid object at index 0: invalid kind (expected Widget, received Gadget)`);
  // In a list upstream reports the position one past the entry's.
  const listGv = await listRefusal(tweaked((rv) => (rv.response.convertedObjects[1].apiVersion = 'stable.example.com/v1')));
  assert.equal(listGv, `conversion webhook for ${LIST_GVK} returned invalid converted object at index 2: invalid groupVersion (expected stable.example.com/v2, received stable.example.com/v1)`);
  const listKind = await listRefusal(tweaked((rv) => (rv.response.convertedObjects[0].kind = 'Gadget')));
  assert.equal(listKind, `conversion webhook for ${LIST_GVK} returned invalid converted object at index 1: invalid kind (expected Widget, received Gadget)`);
  const missingKind = await listRefusal(tweaked((rv) => delete rv.response.convertedObjects[0].kind));
  assert.match(missingKind, new RegExp(`^conversion webhook for ${LIST_GVK} returned invalid converted object at index 0: Object 'Kind' is missing in '\\{`));
});

test('a converted object with another name, namespace or uid is refused', async () => {
  const name = await refusal(tweaked((rv) => (rv.response.convertedObjects[0].metadata.name = 'b')));
  assert.equal(name, `conversion webhook for ${GVK} returned invalid object: must have the same name: a != b`);
  const ns = await refusal(tweaked((rv) => delete rv.response.convertedObjects[0].metadata.namespace));
  assert.equal(ns, `conversion webhook for ${GVK} returned invalid object: must have the same namespace: default != `);
  const uid = await refusal(tweaked((rv) => (rv.response.convertedObjects[0].metadata.uid = 'other')));
  assert.equal(uid, `conversion webhook for ${GVK} returned invalid object: must have the same UID: uid-a != other`);
  const listName = await listRefusal(tweaked((rv) => (rv.response.convertedObjects[1].metadata.name = 'z')));
  assert.equal(listName, `conversion webhook for ${LIST_GVK} returned invalid converted object at index 2: must have the same name: b != z`);
});

test('metadata the webhook broke is refused', async () => {
  const missing = await refusal(tweaked((rv) => delete rv.response.convertedObjects[0].metadata));
  // Without metadata the name differs first, as upstream compares identity before restoring metadata.
  assert.equal(missing, `conversion webhook for ${GVK} returned invalid object: must have the same name: a != `);
  const notString = await refusal(tweaked((rv) => (rv.response.convertedObjects[0].metadata.labels = { app: 3 })));
  assert.equal(notString, `conversion webhook for ${GVK} returned invalid metadata: metadata.labels[app] must be a string, but is int64 in converted object`);
  const notMap = await refusal(tweaked((rv) => (rv.response.convertedObjects[0].metadata.annotations = ['x'])));
  assert.equal(notMap, `conversion webhook for ${GVK} returned invalid metadata: invalid metadata.annotations of type []interface {} in converted object`);
  const badLabel = await refusal(tweaked((rv) => (rv.response.convertedObjects[0].metadata.labels = { app: 'not valid!' })));
  assert.match(badLabel, new RegExp(`^conversion webhook for ${GVK} returned invalid metadata: metadata.labels: Invalid value: "not valid!": a valid label must be`));
  const badAnnotation = await refusal(tweaked((rv) => (rv.response.convertedObjects[0].metadata.annotations = { 'bad key!': 'v' })));
  assert.match(badAnnotation, new RegExp(`^conversion webhook for ${GVK} returned invalid metadata: metadata.annotation: Invalid value: "bad key!": name part must consist of`));
  const listMeta = await listRefusal(tweaked((rv) => (rv.response.convertedObjects[0].metadata.labels = { app: true })));
  assert.equal(listMeta, `conversion webhook for ${LIST_GVK} returned invalid metadata in object at index 1: metadata.labels[app] must be a string, but is bool in converted object`);
});

test('unchanged labels are not re-validated, so stored oddities do not block conversion', async () => {
  hook.answer((r) => success(r));
  const odd = widget('a');
  odd.metadata.labels = { 'bad key!': 'v' };
  const out = await convertObject(webhookCrd(), odd, 'v2', { clients });
  assert.deepEqual((out.metadata as any).labels, { 'bad key!': 'v' });
});

test('an HTTP error or a body that is not a review is refused', async () => {
  const status = await refusal(() => ({ raw: JSON.stringify({ kind: 'Status', apiVersion: 'v1', status: 'Failure', message: 'converter is down', code: 503 }), code: 503 }));
  assert.equal(status, `conversion webhook for ${GVK} failed: converter is down`);
  const notJson = await refusal(() => ({ raw: 'hello', contentType: 'text/plain' }));
  assert.equal(notJson, `conversion webhook for ${GVK} failed: couldn't get version/kind; json parse error: invalid character 'h' looking for beginning of value`);
});

test('a CRD naming no review version this server speaks is refused before any call', async () => {
  hook.reviews.length = 0;
  assert.equal(await refusal(() => success({}), ['v2']), 'no supported conversion review versions');
  assert.equal(hook.reviews.length, 0);
});

test('a server whose certificate the caBundle does not sign is refused', async () => {
  const other = await startConversionWebhook();
  try {
    const crd = webhookCrd(['v1'], { url: hook.url, caBundle: other.caBundle });
    await assert.rejects(convertObject(crd, widget('a'), 'v2', { clients }), {
      message: `conversion webhook for ${GVK} failed: Post "https://127.0.0.1:${hook.port}/convert?timeout=30s": tls: failed to verify certificate: x509: certificate signed by unknown authority`,
    });
  } finally {
    await other.close();
  }
});

test('a webhook that does not answer in time is refused', async () => {
  hook.answer(() => ({ hang: true }));
  const started = Date.now();
  await assert.rejects(convertObject(webhookCrd(), widget('a'), 'v2', { clients, timeoutSeconds: 1 }), {
    message: `conversion webhook for ${GVK} failed: Post "https://127.0.0.1:${hook.port}/convert?timeout=1s": context deadline exceeded`,
  });
  assert.ok(Date.now() - started >= 900);
});

test('a Service that cannot be resolved is refused', async () => {
  const crd = webhookCrd(['v1'], { service: { name: 'converter', namespace: 'webhooks', port: 443 }, caBundle: hook.caBundle });
  await assert.rejects(convertObject(crd, widget('a'), 'v2', { clients }), {
    message: `conversion webhook for ${GVK} failed: Post "https://converter.webhooks.svc:443/?timeout=30s": service "converter" not found`,
  });
});
