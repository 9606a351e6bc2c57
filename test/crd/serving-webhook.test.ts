import assert from 'node:assert/strict';
import { after, test } from 'node:test';
import { assertStatus } from '../helpers/fixtures.ts';
import { serveFile } from '../helpers/server.ts';
import { openWatch, type WatchEvent } from '../helpers/watch-stream.ts';
import { startConversionWebhook, success, type FakeConversionWebhook } from './conversion-fixtures.ts';
import { GROUP, cr, crd, establishedCrd, storedRow, within } from './serving-fixtures.ts';

let hook: FakeConversionWebhook;
const t = serveFile([], async () => {
  hook = await startConversionWebhook();
  hook.answer(convertSizes);
});
after(async () => {
  await hook?.close();
});

const path = (version: string, name = '') => `/apis/${GROUP}/${version}/namespaces/${t.ns}/things${name ? `/${name}` : ''}`;

/** v1 keeps `spec.size`, v2 writes it as `spec.color: n<size>`: a conversion that shows it ran. */
function convertSizes(review: any) {
  return success(review, (o) => {
    if (review.request.desiredAPIVersion.endsWith('/v2')) return { ...o, spec: { color: `n${o.spec?.size ?? 0}` } };
    return { ...o, spec: { size: Number(String(o.spec?.color ?? 'n0').slice(1)) } };
  });
}

/** The reviews that carried an object of this name (other watchers of the kind may cause more). */
const reviewsOf = (name: string) => hook.reviews.filter((r) => r.request.objects.some((o: any) => o.metadata?.name === name));

test('with a conversion webhook, objects are stored in the storage version and read in the version asked', async () => {
  const webhook = { strategy: 'Webhook', webhook: { conversionReviewVersions: ['v1'], clientConfig: { url: hook.url, caBundle: hook.caBundle } } };
  await establishedCrd(t.api, crd('things', { conversion: webhook }));
  await within(1000, async () => (await t.api.get(path('v2'))).status === 200, 'things served');

  const created = await t.api.post(path('v2'), cr('things', 'a', 'v2', { color: 'n4' }));
  assert.equal(created.status, 201, created.text);
  assert.equal(created.json.apiVersion, `${GROUP}/v2`);
  assert.deepEqual(created.json.spec, { color: 'n4' });
  const row = await storedRow(t.srv.db.url, 'things', t.ns, 'a');
  assert.equal(row.apiVersion, `${GROUP}/v1`);
  assert.deepEqual(row.spec, { size: 4 });
  // To storage (v1) and back (v2), each through the webhook.
  assert.deepEqual(reviewsOf('a').map((r) => r.request.desiredAPIVersion), [`${GROUP}/v1`, `${GROUP}/v2`]);

  // A read in the storage version needs no call.
  const before = reviewsOf('a').length;
  const asV1 = await t.api.get(path('v1', 'a'));
  assert.deepEqual(asV1.json.spec, { size: 4 });
  assert.equal(reviewsOf('a').length, before);
  const asV2 = await t.api.get(path('v2', 'a'));
  assert.deepEqual(asV2.json.spec, { color: 'n4' });
  assert.equal(reviewsOf('a').length, before + 1);
});

test('a list is converted in one ConversionReview', async () => {
  for (const name of ['l1', 'l2']) assert.equal((await t.api.post(path('v1'), cr('things', name, 'v1', { size: 7 }))).status, 201);
  hook.reviews.length = 0;
  const list = await t.api.get(path('v2'));
  assert.equal(list.status, 200, list.text);
  assert.deepEqual(
    list.json.items.map((o: any) => [o.metadata.name, o.apiVersion, o.spec]),
    [
      ['a', `${GROUP}/v2`, { color: 'n4' }],
      ['l1', `${GROUP}/v2`, { color: 'n7' }],
      ['l2', `${GROUP}/v2`, { color: 'n7' }],
    ],
  );
  const together = hook.reviews.filter((r) => ['a', 'l1', 'l2'].every((n) => r.request.objects.some((o: any) => o.metadata.name === n)));
  assert.equal(together.length, 1);
});

test('a watch in another version gets every change converted, in order', async () => {
  const start = (await t.api.get(path('v2'))).json.metadata.resourceVersion;
  const events: WatchEvent[] = [];
  const watch = openWatch(t.srv.url, `${path('v2')}?watch=true&resourceVersion=${start}`, t.srv.adminAgent, (ev) => events.push(ev));
  try {
    for (let i = 1; i <= 3; i++) assert.equal((await t.api.post(path('v1'), cr('things', `w${i}`, 'v1', { size: i }))).status, 201);
    await within(5000, async () => events.length >= 3, 'three events');
  } finally {
    watch.abort();
  }
  assert.deepEqual(
    events.map((e) => [e.type, e.object.metadata.name, e.object.apiVersion, e.object.spec]),
    [1, 2, 3].map((i) => ['ADDED', `w${i}`, `${GROUP}/v2`, { color: `n${i}` }]),
  );
});

test('a failing webhook makes reads in another version 500 with the converter text; nothing is stored by a failed write', async () => {
  hook.answer(() => ({ raw: 'no', code: 500, contentType: 'text/plain' }));
  try {
    const res = await t.api.get(path('v2', 'a'));
    // ErrorToAPIStatus of the converter's error: 500, no reason, the text as the message.
    const status = assertStatus(res, 500, undefined as unknown as string, 'conversion webhook for stable.example.com/v1, Kind=Thing failed: an error on the server ("no") has prevented the request from succeeding');
    assert.equal(status.details, undefined);
    // The storage version still reads.
    assert.equal((await t.api.get(path('v1', 'a'))).status, 200);
    const list = await t.api.get(path('v2'));
    assert.equal(list.status, 500, list.text);
    // The batch failed; the error names the stored object, as upstream's per-object decoding does.
    assert.match(list.json.message, /^conversion webhook for stable\.example\.com\/v1, Kind=Thing failed: /);
    const write = await t.api.post(path('v2'), cr('things', 'never', 'v2', { color: 'n1' }));
    assert.equal(write.status, 500, write.text);
    assert.match(write.json.message, /^conversion webhook for stable\.example\.com\/v2, Kind=Thing failed: /);
    assert.equal(await storedRow(t.srv.db.url, 'things', t.ns, 'never'), undefined);
  } finally {
    hook.answer(convertSizes);
  }
});

test('a watch whose change cannot be converted ends, as upstream stops at an event it cannot encode', async () => {
  const start = (await t.api.get(path('v1'))).json.metadata.resourceVersion;
  const events: WatchEvent[] = [];
  const watch = openWatch(t.srv.url, `${path('v2')}?watch=true&resourceVersion=${start}`, t.srv.adminAgent, (ev) => events.push(ev));
  hook.answer(() => ({ raw: 'no', code: 500, contentType: 'text/plain' }));
  try {
    assert.equal((await t.api.post(path('v1'), cr('things', 'unwatchable', 'v1', { size: 1 }))).status, 201);
    const ended = await Promise.race([watch.done.then(() => true), new Promise((r) => setTimeout(() => r(false), 5000))]);
    assert.equal(ended, true);
    assert.deepEqual(events, []);
  } finally {
    hook.answer(convertSizes);
    watch.abort();
  }
});
