/**
 * Server-side apply across the versions of a custom resource: a manager's fields recorded at one
 * version are compared against the objects converted to that version (here by a real HTTPS conversion
 * webhook that writes v1's `spec.size: n` as v2's `spec.color: "n<n>"`), as upstream's merge.Updater
 * does through the CRD's converter.
 */
import assert from 'node:assert/strict';
import { after, test } from 'node:test';
import { serveFile } from '../helpers/server.ts';
import { startConversionWebhook, success, type FakeConversionWebhook } from './conversion-fixtures.ts';
import { GROUP, cr, crd, establishedCrd, within } from './serving-fixtures.ts';

let hook: FakeConversionWebhook;
const t = serveFile([], async () => {
  hook = await startConversionWebhook();
  hook.answer(convertSizes);
});
after(async () => {
  await hook?.close();
});

const path = (version: string, name = '') => `/apis/${GROUP}/${version}/namespaces/${t.ns}/things${name ? `/${name}` : ''}`;

function convertSizes(review: any) {
  return success(review, (o) => {
    if (review.request.desiredAPIVersion.endsWith('/v2')) return { ...o, spec: { color: `n${o.spec?.size ?? 0}` } };
    return { ...o, spec: { size: Number(String(o.spec?.color ?? 'n0').slice(1)) } };
  });
}

const apply = (version: string, name: string, manager: string, spec: Record<string, unknown>, force = false) =>
  t.api.patch(`${path(version, name)}?fieldManager=${manager}${force ? '&force=true' : ''}`, JSON.stringify(cr('things', name, version, spec)), 'application/apply-patch+yaml');

/** The managedFields entries as [manager, operation, apiVersion, fieldsV1], in stored order. */
const entries = (obj: any) => obj.metadata.managedFields.map((e: any) => [e.manager, e.operation, e.apiVersion, e.fieldsV1]);

test('setup: a two-version CRD with a conversion webhook', async () => {
  const webhook = { strategy: 'Webhook', webhook: { conversionReviewVersions: ['v1'], clientConfig: { url: hook.url, caBundle: hook.caBundle } } };
  await establishedCrd(t.api, crd('things', { conversion: webhook }));
  await within(1000, async () => (await t.api.get(path('v2'))).status === 200, 'things served');
});

test('an apply at v2 conflicts with the field another manager applied at v1, compared at v1', async () => {
  const first = await apply('v1', 'a', 'alpha', { size: 4 });
  assert.equal(first.status, 201, first.text);
  hook.reviews.length = 0;

  const res = await apply('v2', 'a', 'beta', { color: 'n5' });
  assert.equal(res.status, 409, res.text);
  assert.equal(res.json.reason, 'Conflict');
  assert.equal(res.json.message, 'Apply failed with 1 conflict: conflict with "alpha": .spec.size');
  assert.deepEqual(res.json.details.causes, [{ reason: 'FieldManagerConflict', message: 'conflict with "alpha"', field: '.spec.size' }]);
  // The live and the new object were each converted to v1 once (besides the read of the stored object).
  const toV1 = hook.reviews.filter((r) => r.request.desiredAPIVersion === `${GROUP}/v1`);
  assert.deepEqual(toV1.map((r) => r.request.objects[0].spec), [{ color: 'n4' }, { color: 'n5' }]);
  assert.deepEqual((await t.api.get(path('v1', 'a'))).json.spec, { size: 4 });

  // The same value is no conflict: both own it, each at its own version. The object does not change,
  // so beta's entry gets no time (upstream's managedFieldsUpdater) and sorts first.
  const same = await apply('v2', 'a', 'beta', { color: 'n4' });
  assert.equal(same.status, 200, same.text);
  assert.deepEqual(entries(same.json), [
    ['beta', 'Apply', `${GROUP}/v2`, { 'f:spec': { 'f:color': {} } }],
    ['alpha', 'Apply', `${GROUP}/v1`, { 'f:spec': { 'f:size': {} } }],
  ]);
  assert.equal(same.json.metadata.managedFields[0].time, undefined);
});

test('force takes the field: the manager at the other version loses it', async () => {
  assert.equal((await apply('v1', 'b', 'alpha', { size: 4 })).status, 201);
  const res = await apply('v2', 'b', 'beta', { color: 'n6' }, true);
  assert.equal(res.status, 200, res.text);
  assert.deepEqual(res.json.spec, { color: 'n6' });
  assert.deepEqual(entries(res.json), [['beta', 'Apply', `${GROUP}/v2`, { 'f:spec': { 'f:color': {} } }]]);
  assert.deepEqual((await t.api.get(path('v1', 'b'))).json.spec, { size: 6 });
});

test('an update at one version takes a field owned at the other', async () => {
  assert.equal((await apply('v2', 'c', 'beta', { color: 'n2' })).status, 201);
  const res = await t.api.patch(`${path('v1', 'c')}?fieldManager=gamma`, JSON.stringify({ spec: { size: 3 } }), 'application/merge-patch+json');
  assert.equal(res.status, 200, res.text);
  // gamma changed v1's size, which is v2's color: beta's only field is gone, and so is its entry.
  assert.deepEqual(entries(res.json), [['gamma', 'Update', `${GROUP}/v1`, { 'f:spec': { 'f:size': {} } }]]);

  // Now beta's apply of another color conflicts with gamma's size, compared at v1 (an updater's
  // conflict names its version, as upstream's does).
  const again = await apply('v2', 'c', 'beta', { color: 'n7' });
  assert.equal(again.status, 409, again.text);
  assert.equal(again.json.message, `Apply failed with 1 conflict: conflict with "gamma" using ${GROUP}/v1: .spec.size`);
});

test('an applier that moves to the other version is pruned at the version it applied last', async () => {
  assert.equal((await apply('v1', 'f', 'alpha', { size: 2 })).status, 201);
  hook.reviews.length = 0;
  const res = await apply('v2', 'f', 'alpha', { color: 'n3' });
  assert.equal(res.status, 200, res.text);
  assert.deepEqual(res.json.spec, { color: 'n3' });
  assert.deepEqual(entries(res.json), [['alpha', 'Apply', `${GROUP}/v2`, { 'f:spec': { 'f:color': {} } }]]);
  // Pruning ran at v1 (the merged object went there and the result came back to v2).
  const asked = hook.reviews.map((r) => r.request.desiredAPIVersion);
  assert.ok(asked.filter((v) => v === `${GROUP}/v1`).length >= 1 && asked.filter((v) => v === `${GROUP}/v2`).length >= 2, asked.join(', '));
  assert.deepEqual((await t.api.get(path('v1', 'f'))).json.spec, { size: 3 });
});

test('an update that leaves the other version\'s fields as they are keeps them', async () => {
  assert.equal((await apply('v1', 'd', 'alpha', { size: 1 })).status, 201);
  const res = await t.api.patch(`${path('v2', 'd')}?fieldManager=gamma`, JSON.stringify({ metadata: { labels: { x: 'y' } } }), 'application/merge-patch+json');
  assert.equal(res.status, 200, res.text);
  assert.deepEqual(entries(res.json), [
    ['alpha', 'Apply', `${GROUP}/v1`, { 'f:spec': { 'f:size': {} } }],
    ['gamma', 'Update', `${GROUP}/v2`, { 'f:metadata': { 'f:labels': { '.': {}, 'f:x': {} } } }],
  ]);
});

test('a conversion that fails is the apply\'s error, as upstream answers it', async () => {
  assert.equal((await apply('v1', 'e', 'alpha', { size: 1 })).status, 201);
  // The read of the object at v2 converts it too; the failure is only for converting the apply's objects back to v1.
  hook.answer((review) => {
    const toV1 = review.request.desiredAPIVersion === `${GROUP}/v1`;
    const fromApply = review.request.objects.some((o: any) => o.metadata?.name === 'e' && o.apiVersion === `${GROUP}/v2`);
    if (toV1 && fromApply) {
      return { review: { apiVersion: review.apiVersion, kind: 'ConversionReview', response: { uid: review.request.uid, result: { status: 'Failure', message: 'no size for you' } } } };
    }
    return convertSizes(review);
  });
  try {
    const res = await apply('v2', 'e', 'beta', { color: 'n2' });
    assert.equal(res.status, 500, res.text);
    assert.equal(res.json.reason, undefined);
    assert.match(res.json.message, /^failed to convert old object: .*no size for you/);
  } finally {
    hook.answer(convertSizes);
  }
  assert.deepEqual((await t.api.get(path('v1', 'e'))).json.spec, { size: 1 });
});

test('a built-in kind records fields at its one version as before', async () => {
  const res = await t.api.patch(`/api/v1/namespaces/${t.ns}/configmaps/cm?fieldManager=alpha`, JSON.stringify({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'cm' }, data: { a: '1' } }), 'application/apply-patch+yaml');
  assert.equal(res.status, 201, res.text);
  assert.deepEqual(entries(res.json), [['alpha', 'Apply', 'v1', { 'f:data': { 'f:a': {} } }]]);
});
