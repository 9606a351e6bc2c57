/**
 * Server-side apply on a custom resource's scale subresource, as apiextensions-apiserver serves it
 * (customresource/etcd.go scaleUpdatedObjectInfo with apimachinery's managedfields ScaleHandler):
 * the Scale's field manager sees the parent's owners of the replicas path, conflicts with them, and
 * its entries go back to the parent at the replicas path; and the deprecation warning of a
 * deprecated custom resource version on its subresources.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { customResourceKinds } from '../../src/crd/serving/kinds.ts';
import { serveFile } from '../helpers/server.ts';
import { GROUP, widget, widgetCrd } from './cr-fixtures.ts';

const APPLY = 'application/apply-patch+yaml';
const WARNING = `299 - "${GROUP}/v1beta1 Widget is deprecated; use ${GROUP}/v1 Widget"`;

let base = '';
const t = serveFile([], (served) => {
  for (const kind of customResourceKinds(widgetCrd())) served.srv.server.surface.add(kind);
  base = `/apis/${GROUP}/v1/namespaces/${served.ns}/widgets`;
});

interface Entry {
  manager: string;
  operation: string;
  apiVersion: string;
  time?: string;
  fieldsV1: Record<string, unknown>;
  subresource?: string;
}

function scaleConfig(name: string, replicas: number): string {
  return JSON.stringify({ apiVersion: 'autoscaling/v1', kind: 'Scale', metadata: { name }, spec: { replicas } });
}

async function entries(name: string): Promise<Entry[]> {
  const r = await t.api.get(`${base}/${name}`);
  assert.equal(r.status, 200, r.text);
  return r.json.metadata.managedFields;
}

function entryOf(list: Entry[], manager: string): Entry | undefined {
  return list.find((e) => e.manager === manager);
}

describe('server-side apply on a custom resource scale', () => {
  it('applies replicas through the scale as its own manager, recorded on the parent at the replicas path', async () => {
    const created = await t.api.post(`${base}?fieldManager=creator`, widget('sa-plain', { replicas: 1 }));
    assert.equal(created.status, 201, created.text);
    // Same value as the creator's: no conflict, the scale applier co-owns the field.
    const r = await t.api.patch(`${base}/sa-plain/scale?fieldManager=scaler`, scaleConfig('sa-plain', 1), APPLY);
    assert.equal(r.status, 200, r.text);
    assert.equal(r.json.kind, 'Scale');
    assert.deepEqual(r.json.spec, { replicas: 1 });
    assert.equal(r.json.metadata.managedFields, undefined);
    const list = await entries('sa-plain');
    const scaler = entryOf(list, 'scaler');
    // Upstream's ScaleHandler gives a manager new to the parent no time.
    assert.deepEqual(scaler, { manager: 'scaler', operation: 'Apply', apiVersion: `${GROUP}/v1`, fieldsType: 'FieldsV1', fieldsV1: { 'f:spec': { 'f:replicas': {} } }, subresource: 'scale' });
    // The creator co-owns replicas on the Scale, under the Scale's version: upstream's ScaleHandler
    // does not find it under its parent identifier, so the parent entry loses the path and the
    // replicas come back as a second Update entry of the creator (without time).
    const creators = list.filter((e) => e.manager === 'creator');
    assert.deepEqual(
      creators.map((e) => [e.fieldsV1, e.time === undefined]),
      [
        [{ 'f:spec': { 'f:replicas': {} } }, true],
        [{ 'f:spec': { '.': {}, 'f:color': {} } }, false],
      ],
    );
    // Appliers come first in upstream's order.
    assert.equal(list[0]!.manager, 'scaler');
  });

  it('conflicts with the main resource owner of replicas, and takes the field when forced', async () => {
    const applied = await t.api.patch(`${base}/sa-owned?fieldManager=owner`, JSON.stringify({ ...widget('sa-owned', { replicas: 2, color: 'red' }) }), APPLY);
    assert.equal(applied.status, 201, applied.text);
    const refused = await t.api.patch(`${base}/sa-owned/scale?fieldManager=scaler`, scaleConfig('sa-owned', 5), APPLY);
    assert.equal(refused.status, 409, refused.text);
    assert.equal(refused.json.reason, 'Conflict');
    assert.equal(refused.json.message, 'Apply failed with 1 conflict: conflict with "owner": .spec.replicas');
    assert.deepEqual(refused.json.details.causes, [{ reason: 'FieldManagerConflict', message: 'conflict with "owner"', field: '.spec.replicas' }]);
    assert.equal((await t.api.get(`${base}/sa-owned`)).json.spec.replicas, 2);

    const forced = await t.api.patch(`${base}/sa-owned/scale?fieldManager=scaler&force=true`, scaleConfig('sa-owned', 5), APPLY);
    assert.equal(forced.status, 200, forced.text);
    assert.deepEqual(forced.json.spec, { replicas: 5 });
    const obj = (await t.api.get(`${base}/sa-owned`)).json;
    assert.equal(obj.spec.replicas, 5);
    assert.equal(obj.metadata.generation, 2);
    const list: Entry[] = obj.metadata.managedFields;
    // The owner lost replicas (stolen by the scale's manager) and keeps the rest.
    assert.deepEqual(entryOf(list, 'owner')?.fieldsV1, { 'f:spec': { 'f:color': {} } });
    assert.deepEqual(entryOf(list, 'scaler')?.fieldsV1, { 'f:spec': { 'f:replicas': {} } });
    assert.equal(entryOf(list, 'scaler')?.subresource, 'scale');

    // The owner applying its old replicas again now conflicts with the scale's manager.
    const back = await t.api.patch(`${base}/sa-owned?fieldManager=owner`, JSON.stringify(widget('sa-owned', { replicas: 2, color: 'red' })), APPLY);
    assert.equal(back.status, 409, back.text);
    assert.equal(back.json.message, 'Apply failed with 1 conflict: conflict with "scaler" with subresource "scale": .spec.replicas');
  });

  it('names an updater of the replicas by the Scale version it is seen with', async () => {
    assert.equal((await t.api.post(`${base}?fieldManager=creator`, widget('sa-upd', { replicas: 1 }))).status, 201);
    const r = await t.api.patch(`${base}/sa-upd/scale?fieldManager=scaler`, scaleConfig('sa-upd', 4), APPLY);
    assert.equal(r.status, 409, r.text);
    assert.equal(r.json.message, 'Apply failed with 1 conflict: conflict with "creator" using autoscaling/v1: .spec.replicas');
  });

  it('refuses a configuration of another kind, without fieldManager, or with a stale resourceVersion', async () => {
    assert.equal((await t.api.post(base, widget('sa-bad', { replicas: 1 }))).status, 201);
    const kind = await t.api.patch(`${base}/sa-bad/scale?fieldManager=scaler`, JSON.stringify(widget('sa-bad', { replicas: 1 })), APPLY);
    assert.equal(kind.status, 400, kind.text);
    assert.equal(kind.json.message, `invalid object type: ${GROUP}/v1, Kind=Widget`);
    const noManager = await t.api.patch(`${base}/sa-bad/scale`, scaleConfig('sa-bad', 1), APPLY);
    assert.equal(noManager.status, 422, noManager.text);
    const stale = await t.api.patch(
      `${base}/sa-bad/scale?fieldManager=scaler&force=true`,
      JSON.stringify({ apiVersion: 'autoscaling/v1', kind: 'Scale', metadata: { name: 'sa-bad', resourceVersion: '1' }, spec: { replicas: 2 } }),
      APPLY,
    );
    assert.equal(stale.status, 409, stale.text);
  });

  it('tracks PUT and merge patches of the scale the same way (an Update entry without time)', async () => {
    assert.equal((await t.api.post(`${base}?fieldManager=creator`, widget('sa-put', { replicas: 1 }))).status, 201);
    const r = await t.api.patch(`${base}/sa-put/scale?fieldManager=kubectl-scale`, { spec: { replicas: 3 } }, 'application/merge-patch+json');
    assert.equal(r.status, 200, r.text);
    const list = await entries('sa-put');
    assert.deepEqual(entryOf(list, 'kubectl-scale'), {
      manager: 'kubectl-scale',
      operation: 'Update',
      apiVersion: `${GROUP}/v1`,
      fieldsType: 'FieldsV1',
      fieldsV1: { 'f:spec': { 'f:replicas': {} } },
      subresource: 'scale',
    });
    // The creator lost the replicas it no longer set.
    assert.deepEqual(entryOf(list, 'creator')?.fieldsV1, { 'f:spec': { '.': {}, 'f:color': {} } });
  });

  it('takes no strategic merge patch (the parent custom resource has none), and lists apply among the types', async () => {
    assert.equal((await t.api.post(base, widget('sa-smp', { replicas: 1 }))).status, 201);
    const r = await t.api.patch(`${base}/sa-smp/scale`, { spec: { replicas: 2 } }, 'application/strategic-merge-patch+json');
    assert.equal(r.status, 415, r.text);
    assert.match(r.json.message, /application\/apply-patch\+yaml/);
    assert.doesNotMatch(r.json.message, /strategic/);
  });
});

describe('deprecated custom resource versions', () => {
  it('warns on the status and scale subresources of a deprecated version', async () => {
    const beta = `/apis/${GROUP}/v1beta1/namespaces/${t.ns}/widgets`;
    assert.equal((await t.api.post(beta, widget('dep', { replicas: 1 }, 'v1beta1'))).status, 201);
    for (const [path, method] of [
      [`${beta}/dep/status`, 'get'],
      [`${beta}/dep/scale`, 'get'],
    ] as const) {
      const r = await t.api[method](path);
      assert.equal(r.status, 200, r.text);
      assert.equal(r.headers.warning, WARNING, path);
    }
    const scaled = await t.api.patch(`${beta}/dep/scale`, { spec: { replicas: 2 } }, 'application/merge-patch+json');
    assert.equal(scaled.status, 200, scaled.text);
    assert.equal(scaled.headers.warning, WARNING);
    const status = await t.api.patch(`${beta}/dep/status`, { status: { replicas: 1 } }, 'application/merge-patch+json');
    assert.equal(status.status, 200, status.text);
    assert.equal(status.headers.warning, WARNING);
    // The served version that is not deprecated warns of nothing.
    const current = await t.api.get(`${base}/dep/scale`);
    assert.equal(current.status, 200, current.text);
    assert.equal(current.headers.warning, undefined);
  });

  it('warns on requests the deprecated version refuses, as the CRD handler warns before routing', async () => {
    const beta = `/apis/${GROUP}/v1beta1/namespaces/${t.ns}/widgets`;
    const r = await t.api.get(`${beta}/dep/nosuch`);
    assert.equal(r.status, 404, r.text);
    assert.equal(r.headers.warning, WARNING);
  });
});
