import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { statusSubresource } from '../../src/registry/subresources.ts';
import { assertStatus, configMap } from '../helpers/fixtures.ts';
import { type Reply } from '../helpers/http.ts';
import { serveFile } from '../helpers/server.ts';
import { gadgetKind } from '../helpers/test-kinds.ts';
import { openWatch, type WatchEvent } from '../helpers/watch-stream.ts';

const t = serveFile();

function warnings(res: Reply): string[] {
  const raw = res.headers.warning;
  return raw === undefined ? [] : Array.isArray(raw) ? raw : raw.split(/, (?=299 )/);
}

describe('immortal namespaces', () => {
  for (const name of ['default', 'kube-system', 'kube-public']) {
    test(`DELETE /api/v1/namespaces/${name} is refused`, async () => {
      assertStatus(await t.api.delete(`/api/v1/namespaces/${name}`), 403, 'Forbidden', `namespaces "${name}" is forbidden: this namespace may not be deleted`);
      const still = await t.api.get(`/api/v1/namespaces/${name}`);
      assert.equal(still.status, 200);
      assert.equal(still.json.status.phase, 'Active');
    });
  }
});

describe('the legacy watch path of one object', () => {
  test('/api/v1/watch/namespaces/<ns>/configmaps/<name> streams that object only', async () => {
    for (const name of ['watched', 'other']) assert.equal((await t.api.post(`/api/v1/namespaces/${t.ns}/configmaps`, configMap(name))).status, 201);
    const events: WatchEvent[] = [];
    const watch = openWatch(t.srv.url, `/api/v1/watch/namespaces/${t.ns}/configmaps/watched?timeoutSeconds=2`, t.srv.adminAgent, (ev) => events.push(ev));
    await new Promise((r) => setTimeout(r, 300));
    await t.api.put(`/api/v1/namespaces/${t.ns}/configmaps/other`, { ...configMap('other', { x: '1' }) });
    await t.api.put(`/api/v1/namespaces/${t.ns}/configmaps/watched`, { ...configMap('watched', { x: '1' }) });
    await watch.done;
    assert.deepEqual(events.map((e) => `${e.type} ${e.object.metadata.name}`), ['ADDED watched', 'MODIFIED watched']);
  });

  test('a field selector naming another object is a 400', async () => {
    assertStatus(
      await t.api.get(`/api/v1/watch/namespaces/${t.ns}/configmaps/watched?fieldSelector=metadata.name%3Dother`),
      400,
      'BadRequest',
      "fieldSelector metadata.name doesn't match requested name",
    );
  });
});

describe('a kind added while the server runs', () => {
  const gadgets = gadgetKind({
    returnDeletedObject: true,
    subresources: [statusSubresource()],
    strategy: { warningsOnCreate: () => ['gadgets are for tests'] },
  });
  const path = () => `/apis/test.example.com/v1/namespaces/${t.ns}/gadgets`;

  test('is served, discovered and described from the moment it is added, and gone once removed', async () => {
    assertStatus(await t.api.get(path()), 404, 'NotFound');
    assert.equal((await t.api.get('/apis/test.example.com/v1')).status, 404);
    const openapiBefore = (await t.api.get('/openapi/v3')).json;
    assert.equal(openapiBefore.paths['apis/test.example.com/v1'], undefined);

    t.srv.server.surface.add(gadgets);
    try {
      const discovery = await t.api.get('/apis/test.example.com/v1');
      assert.equal(discovery.status, 200);
      assert.deepEqual(discovery.json.resources.map((r: { name: string; verbs: string[] }) => `${r.name}:${r.verbs.join(',')}`), [
        'gadgets:create,delete,deletecollection,get,list,patch,update,watch',
        'gadgets/status:get,patch,update',
      ]);
      const aggregated = await t.api.get('/apis', { Accept: 'application/json;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList' });
      assert.ok(aggregated.json.items.some((g: { metadata: { name: string } }) => g.metadata.name === 'test.example.com'));
      assert.ok((await t.api.get('/openapi/v3')).json.paths['apis/test.example.com/v1']);

      const created = await t.api.post(path(), { apiVersion: 'test.example.com/v1', kind: 'Gadget', metadata: { name: 'g1' } });
      assert.equal(created.status, 201, created.text);
      // The kind's warning hook reaches the Warning header.
      assert.deepEqual(warnings(created), ['299 - "gadgets are for tests"']);
      // Subresources serve the verbs they declare only.
      assertStatus(await t.api.delete(`${path()}/g1/status`), 405, 'MethodNotAllowed');
      assertStatus(await t.api.get(`${path()}/g1/scale`), 404, 'NotFound');
      // This kind answers a delete with the deleted object.
      const deleted = await t.api.delete(`${path()}/g1`);
      assert.equal(deleted.status, 200, deleted.text);
      assert.equal(deleted.json.kind, 'Gadget');
      assert.equal(deleted.json.metadata.name, 'g1');
    } finally {
      assert.equal(t.srv.server.surface.remove('test.example.com', 'v1', 'gadgets'), true);
    }
    assertStatus(await t.api.get(path()), 404, 'NotFound');
    assert.equal((await t.api.get('/apis/test.example.com/v1')).status, 404);
    assert.equal((await t.api.get('/openapi/v3')).json.paths['apis/test.example.com/v1'], undefined);
  });
});

describe('wire capabilities of a kind', () => {
  // As a custom resource: no protobuf form, no strategic merge patch.
  const plain = gadgetKind({ plural: 'plaingadgets', kind: 'PlainGadget', wire: { protobuf: false, strategicMergePatch: false, cbor: false } });
  const path = () => `/apis/test.example.com/v1/namespaces/${t.ns}/plaingadgets`;

  test('a kind without strategic merge patch answers it 415 and does not advertise it; without protobuf it is not offered', async () => {
    t.srv.server.surface.add(plain);
    try {
      const created = await t.api.post(path(), { apiVersion: 'test.example.com/v1', kind: 'PlainGadget', metadata: { name: 'p1' } });
      assert.equal(created.status, 201, created.text);
      assertStatus(
        await t.api.patch(`${path()}/p1`, { data: { a: '1' } }, 'application/strategic-merge-patch+json'),
        415,
        'UnsupportedMediaType',
        'the body of the request was in an unknown format - accepted media types include: application/json-patch+json, application/merge-patch+json, application/apply-patch+yaml',
      );
      const merged = await t.api.patch(`${path()}/p1`, { data: { a: '1' } }, 'application/merge-patch+json');
      assert.equal(merged.status, 200, merged.text);
      // Protobuf alone is not acceptable; with JSON beside it, JSON it is (kubectl asks that way).
      assertStatus(await t.api.get(`${path()}/p1`, { Accept: 'application/vnd.kubernetes.protobuf' }), 406, 'NotAcceptable');
      const fallback = await t.api.get(`${path()}/p1`, { Accept: 'application/vnd.kubernetes.protobuf, application/json' });
      assert.equal(fallback.status, 200);
      assert.match(String(fallback.headers['content-type']), /^application\/json/);
      const doc = (await t.api.get('/openapi/v3/apis/test.example.com/v1')).json;
      const consumes = Object.keys(doc.paths['/apis/test.example.com/v1/namespaces/{namespace}/plaingadgets/{name}'].patch.requestBody.content);
      assert.deepEqual(consumes.sort(), ['application/apply-patch+yaml', 'application/json-patch+json', 'application/merge-patch+json']);
    } finally {
      t.srv.server.surface.remove('test.example.com', 'v1', 'plaingadgets');
    }
  });
});

describe('storage.k8s.io CSIDriver', () => {
  test('is served cluster-wide with its defaults, and a delete answers with the deleted driver', async () => {
    const path = '/apis/storage.k8s.io/v1/csidrivers';
    const created = await t.api.post(path, { apiVersion: 'storage.k8s.io/v1', kind: 'CSIDriver', metadata: { name: 'csi.example.com' }, spec: {} });
    assert.equal(created.status, 201, created.text);
    assert.equal(created.json.spec.fsGroupPolicy, 'ReadWriteOnceWithFSType');
    const deleted = await t.api.delete(`${path}/csi.example.com`);
    assert.equal(deleted.status, 200, deleted.text);
    assert.equal(deleted.json.kind, 'CSIDriver');
    assert.equal(deleted.json.metadata.name, 'csi.example.com');
  });
});

describe('v1 ComponentStatus', () => {
  test('lists the database and the API server as healthy; get and list only', async () => {
    const list = await t.api.get('/api/v1/componentstatuses');
    assert.equal(list.status, 200, list.text);
    assert.equal(list.json.kind, 'ComponentStatusList');
    assert.deepEqual(
      list.json.items.map((c: { metadata: { name: string }; conditions: { type: string; status: string }[] }) => `${c.metadata.name} ${c.conditions[0]!.type}=${c.conditions[0]!.status}`),
      ['apiserver Healthy=True', 'database Healthy=True'],
    );
    const one = await t.api.get('/api/v1/componentstatuses/database');
    assert.equal(one.json.kind, 'ComponentStatus');
    assertStatus(await t.api.get('/api/v1/componentstatuses/scheduler'), 404, 'NotFound', 'componentstatuses "scheduler" not found');
    assertStatus(await t.api.post('/api/v1/componentstatuses', { metadata: { name: 'x' } }), 405, 'MethodNotAllowed');
    assertStatus(await t.api.delete('/api/v1/componentstatuses/database'), 405, 'MethodNotAllowed');
    const table = await t.api.get('/api/v1/componentstatuses', { Accept: 'application/json;as=Table;g=meta.k8s.io;v=v1' });
    assert.deepEqual(table.json.rows.map((r: { cells: unknown[] }) => r.cells), [
      ['apiserver', 'Healthy', 'ok', ''],
      ['database', 'Healthy', 'ok', ''],
    ]);
  });
});
