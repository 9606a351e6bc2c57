/**
 * Admission of custom resources: a ValidatingAdmissionPolicy and a validating webhook matching one
 * version of a CRD through matchPolicy Equivalent judge an object written in another version,
 * converted by the CRD's real HTTPS conversion webhook (upstream's ConvertToGVK through the CR
 * converter); and a mutating webhook's patch of a custom resource, decoded as upstream's dispatcher
 * decodes it (plain unstructured JSON: the fields the schema does not know stay for the validating
 * phase and are pruned when the object is stored, by the storage codec's schema coercion).
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { serveFile } from '../helpers/server.ts';
import { configuration, install as installWebhook, startAdmissionWebhook, webhook, type FakeAdmissionWebhook } from '../admission/webhook-helper.ts';
import { binding, install as installPolicy, policy, until } from '../admission/policy-fixtures.ts';
import { startConversionWebhook, success, type FakeConversionWebhook } from './conversion-fixtures.ts';
import { GROUP, cr, crd, establishedCrd, storedRow, within } from './serving-fixtures.ts';

let converter: FakeConversionWebhook;
let admission: FakeAdmissionWebhook;
before(async () => {
  converter = await startConversionWebhook();
  converter.answer(convertSizes);
  admission = await startAdmissionWebhook('followup');
});
after(async () => {
  await converter?.close();
  await admission?.close();
});
const t = serveFile();

/** v1 keeps `spec.size`, v2 writes it as `spec.color: n<size>`: a conversion that shows it ran. */
function convertSizes(review: any) {
  return success(review, (o) => {
    if (review.request.desiredAPIVersion.endsWith('/v2')) return { ...o, spec: { color: `n${o.spec?.size ?? 0}` } };
    return { ...o, spec: { size: Number(String(o.spec?.color ?? 'n0').slice(1)) } };
  });
}

const path = (plural: string, version: string, name = '') => `/apis/${GROUP}/${version}/namespaces/${t.ns}/${plural}${name ? `/${name}` : ''}`;
const v1Rule = (plural: string) => ({ apiGroups: [GROUP], apiVersions: ['v1'], resources: [plural], operations: ['CREATE', 'UPDATE'] });

describe('admission across versions of a CRD with Webhook conversion', () => {
  before(async () => {
    const conversion = { strategy: 'Webhook', webhook: { conversionReviewVersions: ['v1'], clientConfig: { url: converter.url, caBundle: converter.caBundle } } };
    await establishedCrd(t.api, crd('gizmos', { conversion }));
    await within(5000, async () => (await t.api.get(path('gizmos', 'v2'))).status === 200, 'gizmos served');
  });

  it('a ValidatingAdmissionPolicy matching v1 judges an object written in v2 as its v1 form', async () => {
    await installPolicy(
      t.api,
      policy('gizmo-size', {
        matchConstraints: { resourceRules: [v1Rule('gizmos')], matchPolicy: 'Equivalent' },
        validations: [{ expression: "object.apiVersion == 'stable.example.com/v1' && object.spec.size <= 10", message: 'too big' }],
      }),
      binding('gizmo-size-binding', 'gizmo-size'),
    );
    const refused = await until(
      () => t.api.post(`${path('gizmos', 'v2')}?dryRun=All`, cr('gizmos', 'big', 'v2', { color: 'n42' })),
      (r) => r.status !== 201,
      'the policy in force',
    );
    assert.equal(refused.status, 422, refused.text);
    assert.equal(
      refused.json.message,
      `gizmos.${GROUP} "big" is forbidden: ValidatingAdmissionPolicy 'gizmo-size' with binding 'gizmo-size-binding' denied request: too big`,
    );
    // The conversion webhook was asked for the v1 form of the object being admitted.
    assert.ok(converter.reviews.some((r) => r.request.desiredAPIVersion === `${GROUP}/v1` && r.request.objects.some((o: any) => o.metadata?.name === 'big' && o.spec?.color === 'n42')));
    const small = await t.api.post(path('gizmos', 'v2'), cr('gizmos', 'small', 'v2', { color: 'n3' }));
    assert.equal(small.status, 201, small.text);
    assert.deepEqual(small.json.spec, { color: 'n3' });
    await t.api.delete(`/apis/admissionregistration.k8s.io/v1/validatingadmissionpolicybindings/gizmo-size-binding`);
    await t.api.delete(`/apis/admissionregistration.k8s.io/v1/validatingadmissionpolicies/gizmo-size`);
    await until(() => t.api.post(`${path('gizmos', 'v2')}?dryRun=All`, cr('gizmos', 'big', 'v2', { color: 'n42' })), (r) => r.status === 201, 'the policy gone');
  });

  it('a validating webhook matching v1 gets the v1 form of an object written in v2', async () => {
    admission.on('/gizmos', (review) => {
      const size = review.request.object?.spec?.size;
      return typeof size === 'number' && size <= 10 ? { allowed: true } : { allowed: false, status: { code: 403, message: `size ${String(size)} is too big` } };
    });
    const hook = webhook(admission, 'gizmos.followup.example.com', '/gizmos', { rules: [v1Rule('gizmos')], matchPolicy: 'Equivalent' });
    await installWebhook(t.api, configuration('ValidatingWebhookConfiguration', 'gizmo-check', [hook]), async () => {
      await t.api.post(`${path('gizmos', 'v2')}?dryRun=All`, cr('gizmos', 'probe', 'v2', { color: 'n1' }));
      return admission.reviews('/gizmos').length > 0;
    });
    const refused = await t.api.post(path('gizmos', 'v2'), cr('gizmos', 'huge', 'v2', { color: 'n99' }));
    assert.equal(refused.status, 403, refused.text);
    assert.equal(refused.json.message, 'admission webhook "gizmos.followup.example.com" denied the request: size 99 is too big');
    const ok = await t.api.post(path('gizmos', 'v2'), cr('gizmos', 'fine', 'v2', { color: 'n7' }));
    assert.equal(ok.status, 201, ok.text);
    const review = admission.reviews('/gizmos').find((r) => r.request.name === 'fine' || r.request.object?.metadata?.name === 'fine');
    assert.ok(review, 'the webhook saw the object');
    assert.deepEqual(review.request.kind, { group: GROUP, version: 'v1', kind: 'Gizmo' });
    assert.deepEqual(review.request.requestKind, { group: GROUP, version: 'v2', kind: 'Gizmo' });
    assert.equal(review.request.object.apiVersion, `${GROUP}/v1`);
    assert.deepEqual(review.request.object.spec, { size: 7 });
    // An update in v2 is converted too, old object included.
    const updated = await t.api.put(path('gizmos', 'v2', 'fine'), { ...ok.json, spec: { color: 'n8' } });
    assert.equal(updated.status, 200, updated.text);
    const last = admission.reviews('/gizmos').at(-1);
    assert.deepEqual([last.request.object.spec, last.request.oldObject.spec], [{ size: 8 }, { size: 7 }]);
    await t.api.delete('/apis/admissionregistration.k8s.io/v1/validatingwebhookconfigurations/gizmo-check');
  });

  it('a failing conversion refuses the request with the converter text, as a webhook error', async () => {
    const hook = webhook(admission, 'gizmos2.followup.example.com', '/gizmos2', { rules: [v1Rule('gizmos')], matchPolicy: 'Equivalent' });
    await installWebhook(t.api, configuration('ValidatingWebhookConfiguration', 'gizmo-check2', [hook]), async () => {
      await t.api.post(`${path('gizmos', 'v2')}?dryRun=All`, cr('gizmos', 'probe', 'v2', { color: 'n1' }));
      return admission.reviews('/gizmos2').length > 0;
    });
    converter.answer(() => ({ raw: 'no', code: 500, contentType: 'text/plain' }));
    try {
      const r = await t.api.post(`${path('gizmos', 'v2')}?dryRun=All`, cr('gizmos', 'unconvertible', 'v2', { color: 'n1' }));
      assert.equal(r.status, 500, r.text);
      assert.match(r.json.message, /conversion webhook for stable\.example\.com\/v2, Kind=Gizmo failed/);
    } finally {
      converter.answer(convertSizes);
      await t.api.delete('/apis/admissionregistration.k8s.io/v1/validatingwebhookconfigurations/gizmo-check2');
    }
  });
});

describe("a mutating webhook's patch of a custom resource", () => {
  before(async () => {
    await establishedCrd(t.api, crd('doodads'));
    await within(5000, async () => (await t.api.get(path('doodads', 'v1'))).status === 200, 'doodads served');
  });

  it('keeps the known field and the unknown one through admission, and stores only the known one', async () => {
    admission.on('/doodad-mutate', (review) => {
      if (review.request.object?.metadata?.name === 'probe') return { allowed: true };
      return {
        allowed: true,
        patch: [
          { op: 'add', path: '/spec/color', value: 'green' },
          { op: 'add', path: '/spec/unknownField', value: 'x' },
          { op: 'add', path: '/topLevelUnknown', value: { a: 1 } },
        ],
      };
    });
    const rule = { apiGroups: [GROUP], apiVersions: ['v1'], resources: ['doodads'], operations: ['CREATE'] };
    await installWebhook(t.api, configuration('ValidatingWebhookConfiguration', 'doodad-see', [webhook(admission, 'doodad-see.followup.example.com', '/doodad-see', { rules: [rule] })]), async () => {
      await t.api.post(`${path('doodads', 'v1')}?dryRun=All`, cr('doodads', 'probe', 'v1'));
      return admission.reviews('/doodad-see').length > 0;
    });
    await installWebhook(t.api, configuration('MutatingWebhookConfiguration', 'doodad-mutate', [webhook(admission, 'doodad-mutate.followup.example.com', '/doodad-mutate', { rules: [rule] })]), async () => {
      await t.api.post(`${path('doodads', 'v1')}?dryRun=All`, cr('doodads', 'probe', 'v1'));
      return admission.reviews('/doodad-mutate').length > 0;
    });

    const created = await t.api.post(path('doodads', 'v1'), cr('doodads', 'patched', 'v1', { size: 2 }));
    assert.equal(created.status, 201, created.text);
    assert.deepEqual(created.json.spec, { size: 2, color: 'green' });
    assert.equal(created.json.topLevelUnknown, undefined);
    // The validating phase saw the object as the webhook left it, unknown fields included.
    const seen = admission.reviews('/doodad-see').find((r) => r.request.object?.metadata?.name === 'patched');
    assert.deepEqual(seen.request.object.spec, { size: 2, color: 'green', unknownField: 'x' });
    assert.deepEqual(seen.request.object.topLevelUnknown, { a: 1 });
    // Storage holds the pruned object.
    const row = await storedRow(t.srv.db.url, 'doodads', t.ns, 'patched');
    assert.deepEqual(row.spec, { size: 2, color: 'green' });
    assert.equal(row.topLevelUnknown, undefined);
    const read = await t.api.get(path('doodads', 'v1', 'patched'));
    assert.deepEqual(read.json.spec, { size: 2, color: 'green' });
    // The patch changed the object: the mutation annotation in the audit would say so; the response has no trace of the unknown fields.
    assert.doesNotMatch(created.text, /unknownField|topLevelUnknown/);
  });
});
