/**
 * Serving a custom resource through the generic registry: scale, Tables from printer columns,
 * field selectors, deprecation warnings, the wire formats a custom resource has (and the 406/415 of
 * those it has not), server-side apply by the schema's list-map keys, and defaults on read.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { customResourceKinds } from '../../src/crd/serving/kinds.ts';
import type { CustomResourceDefinition } from '../../src/crd/validation/types.ts';
import { serveFile } from '../helpers/server.ts';
import { openWatch, type WatchEvent } from '../helpers/watch-stream.ts';
import { GROUP, widget, widgetCrd } from './cr-fixtures.ts';

/** A CRD that keeps whatever its objects hold, beside one typed list-map. */
function gadgetCrd(): CustomResourceDefinition {
  const crd = structuredClone(widgetCrd({ plural: 'gadgets' }));
  const names = { plural: 'gadgets', singular: 'gadget', kind: 'Gadget', listKind: 'GadgetList' };
  crd.spec!.names = names;
  crd.status!.acceptedNames = names;
  const schema = {
    type: 'object',
    'x-kubernetes-preserve-unknown-fields': true,
    properties: {
      spec: {
        type: 'object',
        'x-kubernetes-preserve-unknown-fields': true,
        properties: { items: { type: 'array', 'x-kubernetes-list-type': 'map', 'x-kubernetes-list-map-keys': ['id'], items: { type: 'object', properties: { id: { type: 'string' }, v: { type: 'integer' } } } } },
      },
    },
  };
  crd.spec!.versions = [{ name: 'v1', served: true, storage: true, schema: { openAPIV3Schema: schema } }];
  return crd;
}

let base = '';
let gadgets = '';
const t = serveFile([], (served) => {
  const clustered = customResourceKinds(widgetCrd({ plural: 'clusterwidgets', kind: 'ClusterWidget', scope: 'Cluster' }));
  for (const kind of [...customResourceKinds(widgetCrd()), ...customResourceKinds(gadgetCrd()), ...clustered]) served.srv.server.surface.add(kind);
  base = `/apis/${GROUP}/v1/namespaces/${served.ns}/widgets`;
  gadgets = `/apis/${GROUP}/v1/namespaces/${served.ns}/gadgets`;
});

async function make(name: string, spec: Record<string, unknown> = { replicas: 1 }): Promise<Record<string, any>> {
  const r = await t.api.post(base, widget(name, spec));
  assert.equal(r.status, 201, r.text);
  return r.json;
}

describe('the scale subresource', () => {
  it('reads an autoscaling/v1 Scale from the CRD paths', async () => {
    const obj = await make('sc-get', { replicas: 3 });
    await t.api.patch(`${base}/sc-get/status`, { status: { replicas: 2, selector: 'app=x' } }, 'application/merge-patch+json');
    const r = await t.api.get(`${base}/sc-get/scale`);
    assert.equal(r.status, 200, r.text);
    assert.equal(r.json.kind, 'Scale');
    assert.equal(r.json.apiVersion, 'autoscaling/v1');
    assert.equal(r.json.metadata.name, 'sc-get');
    assert.equal(r.json.metadata.uid, obj.metadata.uid);
    assert.deepEqual(r.json.spec, { replicas: 3 });
    assert.deepEqual(r.json.status, { replicas: 2, selector: 'app=x' });
  });

  it('writes spec replicas back on PUT and on merge and JSON patch, bumping generation', async () => {
    await make('sc-put', { replicas: 1 });
    const scale = (await t.api.get(`${base}/sc-put/scale`)).json;
    const put = await t.api.put(`${base}/sc-put/scale`, { ...scale, spec: { replicas: 4 } });
    assert.equal(put.status, 200, put.text);
    assert.equal(put.json.spec.replicas, 4);
    const merged = await t.api.patch(`${base}/sc-put/scale`, { spec: { replicas: 5 } }, 'application/merge-patch+json');
    assert.equal(merged.status, 200, merged.text);
    assert.equal(merged.json.spec.replicas, 5);
    const json = await t.api.patch(`${base}/sc-put/scale`, [{ op: 'replace', path: '/spec/replicas', value: 6 }], 'application/json-patch+json');
    assert.equal(json.status, 200, json.text);
    const obj = (await t.api.get(`${base}/sc-put`)).json;
    assert.equal(obj.spec.replicas, 6);
    assert.equal(obj.metadata.generation, 4);
    const scaled = obj.metadata.managedFields.find((m: { subresource?: string }) => m.subresource === 'scale');
    assert.deepEqual(scaled?.fieldsV1, { 'f:spec': { 'f:replicas': {} } });
  });

  it('refuses a stale resourceVersion and negative replicas', async () => {
    await make('sc-bad', { replicas: 1 });
    const scale = (await t.api.get(`${base}/sc-bad/scale`)).json;
    const stale = await t.api.put(`${base}/sc-bad/scale`, { ...scale, metadata: { ...scale.metadata, resourceVersion: '1' }, spec: { replicas: 2 } });
    assert.equal(stale.status, 409, stale.text);
    const negative = await t.api.patch(`${base}/sc-bad/scale`, { spec: { replicas: -1 } }, 'application/merge-patch+json');
    assert.equal(negative.status, 422, negative.text);
    assert.equal(negative.json.message, 'Widget.kinds.example.com "sc-bad" is invalid: [spec.replicas: Invalid value: -1: spec.replicas in body should be greater than or equal to 0, .spec.replicas: Invalid value: -1: should be a non-negative integer]');
  });

  it('refuses a body that is not a Scale', async () => {
    await make('sc-kind');
    const r = await t.api.put(`${base}/sc-kind/scale`, widget('sc-kind'));
    assert.equal(r.status, 400, r.text);
  });
});

describe('tables, selectors and names', () => {
  it('answers kubectl Table requests with the printer columns', async () => {
    await make('tbl', { replicas: 7, color: 'red' });
    const r = await t.api.get(`${base}/tbl`, { Accept: 'application/json;as=Table;v=v1;g=meta.k8s.io' });
    assert.equal(r.status, 200, r.text);
    assert.equal(r.json.kind, 'Table');
    assert.deepEqual(r.json.columnDefinitions.map((c: { name: string }) => c.name), ['Name', 'Replicas', 'Color']);
    assert.equal(r.json.columnDefinitions[2].priority, 1);
    assert.deepEqual(r.json.rows[0].cells, ['tbl', 7, 'red']);
    assert.equal(r.json.rows[0].object.kind, 'PartialObjectMetadata');
    const list = await t.api.get(`${base}?fieldSelector=metadata.name=tbl`, { Accept: 'application/json;as=Table;v=v1;g=meta.k8s.io' });
    assert.equal(list.json.rows.length, 1);
  });

  it('selects on selectableFields and refuses other fields', async () => {
    await make('green-one', { replicas: 1, color: 'green' });
    const r = await t.api.get(`${base}?fieldSelector=spec.color=green`);
    assert.equal(r.status, 200, r.text);
    assert.deepEqual(r.json.items.map((i: { metadata: { name: string } }) => i.metadata.name), ['green-one']);
    const bad = await t.api.get(`${base}?fieldSelector=spec.replicas=1`);
    assert.equal(bad.status, 400, bad.text);
    assert.equal(bad.json.message, 'field label not supported: spec.replicas');
  });

  it('warns on every request to a deprecated version', async () => {
    const r = await t.api.get(`/apis/${GROUP}/v1beta1/namespaces/${t.ns}/widgets`);
    assert.equal(r.status, 200, r.text);
    assert.equal(r.headers.warning, `299 - "${GROUP}/v1beta1 Widget is deprecated; use ${GROUP}/v1 Widget"`);
  });
});

describe('scope and watch', () => {
  it('serves a cluster-scoped custom resource at cluster paths only', async () => {
    const path = `/apis/${GROUP}/v1/clusterwidgets`;
    const r = await t.api.post(path, { ...widget('cw'), kind: 'ClusterWidget' });
    assert.equal(r.status, 201, r.text);
    assert.equal(r.json.metadata.namespace, undefined);
    const namespaced = await t.api.get(`/apis/${GROUP}/v1/namespaces/${t.ns}/clusterwidgets`);
    assert.equal(namespaced.status, 404, namespaced.text);
  });

  it('watches deliver objects as read: defaulted by the current schema', async () => {
    const events: WatchEvent[] = [];
    const w = openWatch(t.srv.url, `${base}?watch=1&fieldSelector=metadata.name=watched`, t.srv.adminAgent, (ev) => events.push(ev));
    await new Promise((r) => setTimeout(r, 300));
    await make('watched', { replicas: 4 });
    for (let i = 0; i < 50 && events.length === 0; i++) await new Promise((r) => setTimeout(r, 100));
    w.abort();
    await w.done.catch(() => undefined);
    assert.equal(events[0]?.type, 'ADDED');
    assert.deepEqual(events[0]?.object.spec, { replicas: 4, color: 'blue' });
  });
});

describe('wire formats', () => {
  // CBOR is listed only while the CBORServingAndStorage gate is on (off by default in 1.34).
  it('refuses protobuf bodies and answers with 415', async () => {
    const r = await t.api.post(base, Buffer.from([0x6b, 0x38, 0x73, 0x00]), { 'Content-Type': 'application/vnd.kubernetes.protobuf' });
    assert.equal(r.status, 415, r.text);
    assert.equal(r.json.message, 'the body of the request was in an unknown format - accepted media types include: application/json, application/yaml');
  });

  it('refuses to answer in protobuf with 406', async () => {
    await make('pb');
    const r = await t.api.get(`${base}/pb`, { Accept: 'application/vnd.kubernetes.protobuf' });
    assert.equal(r.status, 406, r.text);
    assert.equal(r.json.message, 'only the following media types are accepted: application/json, application/yaml');
  });

  it('refuses strategic merge patch with 415', async () => {
    await make('smp');
    const r = await t.api.patch(`${base}/smp`, { spec: { replicas: 2 } }, 'application/strategic-merge-patch+json');
    assert.equal(r.status, 415, r.text);
    assert.equal(r.json.message, 'the body of the request was in an unknown format - accepted media types include: application/json-patch+json, application/merge-patch+json, application/apply-patch+yaml');
  });

  it('takes YAML bodies', async () => {
    const yaml = `apiVersion: ${GROUP}/v1\nkind: Widget\nmetadata:\n  name: yml\nspec:\n  replicas: 2\n  foo: 1\n`;
    const r = await t.api.post(`${base}?fieldValidation=Strict`, yaml, { 'Content-Type': 'application/yaml' });
    assert.equal(r.status, 400, r.text);
    assert.equal(r.json.message, 'Widget in version "v1" cannot be handled as a Widget: strict decoding error: unknown field "spec.foo"');
    const ok = await t.api.post(base, yaml.replace('  foo: 1\n', ''), { 'Content-Type': 'application/yaml' });
    assert.equal(ok.status, 201, ok.text);
    assert.equal(ok.json.spec.color, 'blue');
  });
});

describe('reading', () => {
  it('fills the defaults of the current schema into objects read from storage', async () => {
    await make('later', { replicas: 1 });
    const crd = structuredClone(widgetCrd());
    const spec = (crd.spec!.versions![0]!.schema!.openAPIV3Schema!.properties!.spec!.properties!);
    spec.shape = { type: 'string', default: 'round' };
    const surface = t.srv.server.surface;
    surface.remove(GROUP, 'v1', 'widgets');
    surface.add(customResourceKinds(crd)[0]!);
    const got = await t.api.get(`${base}/later`);
    assert.equal(got.json.spec.shape, 'round');
    const list = await t.api.get(`${base}?fieldSelector=metadata.name=later`);
    assert.equal(list.json.items[0].spec.shape, 'round');
  });
});

describe('server-side apply', () => {
  it('merges list-map items by their keys and records managedFields', async () => {
    const apply = (manager: string, ports: unknown[]) =>
      t.api.patch(`${base}/ssa?fieldManager=${manager}`, JSON.stringify({ apiVersion: `${GROUP}/v1`, kind: 'Widget', metadata: { name: 'ssa' }, spec: { replicas: 1, ports } }), 'application/apply-patch+yaml');
    const first = await apply('one', [{ name: 'http', port: 80 }]);
    assert.equal(first.status, 201, first.text);
    const second = await t.api.patch(
      `${base}/ssa?fieldManager=two`,
      JSON.stringify({ apiVersion: `${GROUP}/v1`, kind: 'Widget', metadata: { name: 'ssa' }, spec: { ports: [{ name: 'https', port: 443 }] } }),
      'application/apply-patch+yaml',
    );
    assert.equal(second.status, 200, second.text);
    assert.deepEqual(second.json.spec.ports, [{ name: 'http', port: 80 }, { name: 'https', port: 443 }]);
    const managers = second.json.metadata.managedFields.map((m: { manager: string }) => m.manager);
    assert.deepEqual(managers, ['one', 'two']);
    assert.deepEqual(second.json.metadata.managedFields[1].fieldsV1, { 'f:spec': { 'f:ports': { 'k:{"name":"https"}': { '.': {}, 'f:name': {}, 'f:port': {} } } } });
    const conflict = await apply('two-rival', [{ name: 'http', port: 8080 }]);
    assert.equal(conflict.status, 409, conflict.text);
  });

  it('applies to the status subresource: status only, recorded as the status subresource', async () => {
    await make('ssa-status', { replicas: 1 });
    const r = await t.api.patch(
      `${base}/ssa-status/status?fieldManager=ctl`,
      JSON.stringify({ apiVersion: `${GROUP}/v1`, kind: 'Widget', metadata: { name: 'ssa-status' }, spec: { replicas: 9 }, status: { phase: 'Ready' } }),
      'application/apply-patch+yaml',
    );
    assert.equal(r.status, 200, r.text);
    assert.equal(r.json.status.phase, 'Ready');
    assert.equal(r.json.spec.replicas, 1);
    const entry = r.json.metadata.managedFields.find((m: { manager: string }) => m.manager === 'ctl');
    assert.equal(entry.subresource, 'status');
    assert.deepEqual(entry.fieldsV1, { 'f:status': { 'f:phase': {} } });
  });

  it('keeps and tracks unknown fields where the schema preserves them, merging typed lists inside by key', async () => {
    const apply = (manager: string, body: Record<string, unknown>) =>
      t.api.patch(`${gadgets}/g?fieldManager=${manager}`, JSON.stringify({ apiVersion: `${GROUP}/v1`, kind: 'Gadget', metadata: { name: 'g' }, ...body }), 'application/apply-patch+yaml');
    const first = await apply('a', { spec: { free: { x: 1 }, items: [{ id: 'one', v: 1 }] }, top: 'level' });
    assert.equal(first.status, 201, first.text);
    assert.deepEqual(first.json.spec, { free: { x: 1 }, items: [{ id: 'one', v: 1 }] });
    assert.equal(first.json.top, 'level');
    const second = await apply('b', { spec: { items: [{ id: 'two', v: 2 }] } });
    assert.equal(second.status, 200, second.text);
    assert.deepEqual(second.json.spec.items, [{ id: 'one', v: 1 }, { id: 'two', v: 2 }]);
    const entry = first.json.metadata.managedFields[0];
    assert.deepEqual(entry.fieldsV1, { 'f:spec': { 'f:free': { '.': {}, 'f:x': {} }, 'f:items': { 'k:{"id":"one"}': { '.': {}, 'f:id': {}, 'f:v': {} } } }, 'f:top': {} });
  });
});
