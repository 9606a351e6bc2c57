import assert from 'node:assert/strict';
import { before, describe, test } from 'node:test';
import { assertStatus, configMap, create, createNamespace, event, lease, namespace, uniqueName } from '../helpers/fixtures.ts';
import { serveFile } from '../helpers/server.ts';

const t = serveFile();

const NOT_FOUND = 'the server could not find the requested resource';
const NOT_ALLOWED = 'the server does not allow this method on the requested resource';

describe('path shapes', () => {
  test('core namespaced resources are served under /api/v1/namespaces/<ns>/<resource>', async () => {
    await create(t.api, `/api/v1/namespaces/${t.ns}/configmaps`, configMap('core-one', { a: '1' }));
    const res = await t.api.get(`/api/v1/namespaces/${t.ns}/configmaps/core-one`);
    assert.equal(res.status, 200);
    assert.equal(res.json.kind, 'ConfigMap');
    assert.equal(res.json.apiVersion, 'v1');
    assert.equal(res.json.metadata.namespace, t.ns);
    assert.deepEqual(res.json.data, { a: '1' });
  });

  test('named groups are served under /apis/<group>/<version> (leases and events.k8s.io events)', async () => {
    const l = await create(t.api, `/apis/coordination.k8s.io/v1/namespaces/${t.ns}/leases`, lease('named-lease', 'me'));
    assert.equal(l.apiVersion, 'coordination.k8s.io/v1');
    assert.equal(l.kind, 'Lease');
    assert.equal(l.spec.holderIdentity, 'me');
    const e = await create(t.api, `/apis/events.k8s.io/v1/namespaces/${t.ns}/events`, event('named-event'));
    assert.equal(e.apiVersion, 'events.k8s.io/v1');
    assert.equal(e.kind, 'Event');
    const list = await t.api.get(`/apis/coordination.k8s.io/v1/namespaces/${t.ns}/leases`);
    assert.equal(list.status, 200);
    assert.equal(list.json.kind, 'LeaseList');
    assert.equal(list.json.apiVersion, 'coordination.k8s.io/v1');
    assert.deepEqual(list.json.items.map((i: any) => i.metadata.name), ['named-lease']);
  });

  test('cluster-scoped namespaces are served under /api/v1/namespaces', async () => {
    const res = await t.api.get(`/api/v1/namespaces/${t.ns}`);
    assert.equal(res.status, 200);
    assert.equal(res.json.kind, 'Namespace');
    assert.equal(res.json.metadata.name, t.ns);
    assert.equal(res.json.metadata.namespace, undefined);
  });

  test('a list without a namespace spans every namespace', async () => {
    const other = await createNamespace(t.api);
    await create(t.api, `/api/v1/namespaces/${t.ns}/configmaps`, configMap('spread', {}, { labels: { spread: 'yes' } }));
    await create(t.api, `/api/v1/namespaces/${other}/configmaps`, configMap('spread', {}, { labels: { spread: 'yes' } }));
    const res = await t.api.get('/api/v1/configmaps?labelSelector=spread%3Dyes');
    assert.equal(res.status, 200);
    assert.equal(res.json.kind, 'ConfigMapList');
    const keys = res.json.items.map((i: any) => `${i.metadata.namespace}/${i.metadata.name}`).sort();
    assert.deepEqual(keys, [`${t.ns}/spread`, `${other}/spread`].sort());
    const leases = await t.api.get('/apis/coordination.k8s.io/v1/leases');
    assert.equal(leases.status, 200);
    assert.equal(leases.json.kind, 'LeaseList');
  });

  for (const path of [
    '/apis/nope.example.com/v1/things',
    '/apis/coordination.k8s.io/v9/leases',
    '/api/v2/configmaps',
    '/api/v1/foos',
    '/api/v1/namespaces/default/foos',
    '/apis/coordination.k8s.io/v1/namespaces/default/configmaps',
    '/api/v1/namespaces/default/configmaps/x/status',
    '/api/v1/namespaces/default/configmaps/x/y/z',
  ]) {
    test(`unknown group, version, resource or subresource is a 404 NotFound Status: GET ${path}`, async () => {
      const s = assertStatus(await t.api.get(path), 404, 'NotFound', NOT_FOUND);
      assert.deepEqual(s.details, {});
    });
  }

  test('escapes in the path are decoded; a malformed escape is 400', async () => {
    await create(t.api, `/api/v1/namespaces/${t.ns}/configmaps`, configMap('escaped-name'));
    const res = await t.api.get(`/api/v1/namespaces/${t.ns}/configmaps/escaped%2Dname`);
    assert.equal(res.status, 200, res.text);
    assert.equal(res.json.metadata.name, 'escaped-name');
    assertStatus(await t.api.get(`/api/v1/namespaces/${t.ns}/configmaps/bad%zzescape`), 400, 'BadRequest');
  });

  test('a namespaced object on a cluster path is a 404', async () => {
    assertStatus(await t.api.get('/api/v1/configmaps/some-name'), 404, 'NotFound', NOT_FOUND);
  });

  test('a cluster-scoped kind under a namespace path is a 404', async () => {
    assertStatus(await t.api.get(`/api/v1/namespaces/${t.ns}/namespaces`), 404, 'NotFound', NOT_FOUND);
    assertStatus(await t.api.get(`/api/v1/namespaces/${t.ns}/namespaces/${t.ns}`), 404, 'NotFound', NOT_FOUND);
    assertStatus(await t.api.post(`/api/v1/namespaces/${t.ns}/namespaces`, namespace(uniqueName('nested'))), 404, 'NotFound', NOT_FOUND);
  });

  for (const [method, path] of [
    ['POST', '/api/v1/namespaces/default/configmaps/named'],
    ['PUT', '/api/v1/namespaces/default/configmaps'],
    ['POST', '/api/v1/configmaps'],
    ['DELETE', '/api/v1/configmaps'],
    ['GET', '/api/v1/namespaces/default/finalize'],
    ['DELETE', '/api/v1/namespaces/default/status'],
    ['DELETE', '/api/v1/namespaces'],
    ['PATCH', '/api/v1/namespaces/default/configmaps'],
  ] as const) {
    test(`a verb the path does not serve is a 405 MethodNotAllowed: ${method} ${path}`, async () => {
      const body = method === 'DELETE' ? undefined : configMap('named');
      const res =
        method === 'POST'
          ? await t.api.post(path, body)
          : method === 'PUT'
            ? await t.api.put(path, body)
            : method === 'PATCH'
              ? await t.api.patch(path, { data: {} }, 'application/merge-patch+json')
              : method === 'DELETE'
                ? await t.api.delete(path)
                : await t.api.get(path);
      assert.deepEqual(assertStatus(res, 405, 'MethodNotAllowed', NOT_ALLOWED).details, {});
    });
  }
});

describe('namespace subresources', () => {
  test('GET /status reads the namespace', async () => {
    const res = await t.api.get(`/api/v1/namespaces/${t.ns}/status`);
    assert.equal(res.status, 200);
    assert.equal(res.json.kind, 'Namespace');
    assert.equal(res.json.status.phase, 'Active');
  });

  // Upstream's status strategy resets only spec: a label sent along is kept (it was silently dropped before).
  test('PUT /status changes status and metadata, not spec', async () => {
    const name = await createNamespace(t.api);
    const current = (await t.api.get(`/api/v1/namespaces/${name}`)).json;
    const condition = { type: 'Custom', status: 'True', reason: 'Test', message: 'hi', lastTransitionTime: '2025-01-01T00:00:00Z' };
    const body = { ...current, metadata: { ...current.metadata, labels: { ...current.metadata.labels, sneaky: 'yes' } }, status: { phase: 'Active', conditions: [condition] } };
    const res = await t.api.put(`/api/v1/namespaces/${name}/status`, body);
    assert.equal(res.status, 200, res.text);
    assert.deepEqual(res.json.status.conditions, [condition]);
    assert.equal(res.json.metadata.labels.sneaky, 'yes');
    assert.notEqual(res.json.metadata.resourceVersion, current.metadata.resourceVersion);
    const read = (await t.api.get(`/api/v1/namespaces/${name}`)).json;
    assert.deepEqual(read.status.conditions, [condition]);
    assert.equal(read.metadata.labels.sneaky, 'yes');
    // spec comes from the stored object, whatever the body says.
    const specChange = await t.api.put(`/api/v1/namespaces/${name}/status`, { ...read, spec: { finalizers: [] } });
    assert.equal(specChange.status, 200, specChange.text);
    assert.deepEqual(specChange.json.spec.finalizers, ['kubernetes']);
  });

  test('status.phase must agree with deletion', async () => {
    const name = await createNamespace(t.api);
    const current = (await t.api.get(`/api/v1/namespaces/${name}`)).json;
    assertStatus(
      await t.api.put(`/api/v1/namespaces/${name}/status`, { ...current, status: { phase: 'Terminating' } }),
      422,
      'Invalid',
      `Namespace "${name}" is invalid: status.Phase: Invalid value: "Terminating": may only be 'Active' if \`deletionTimestamp\` is empty`,
    );
  });

  test('PUT on the namespace ignores status', async () => {
    const name = await createNamespace(t.api);
    const current = (await t.api.get(`/api/v1/namespaces/${name}`)).json;
    const body = { ...current, metadata: { ...current.metadata, labels: { ...current.metadata.labels, team: 'a' } }, status: { phase: 'Terminating' } };
    const res = await t.api.put(`/api/v1/namespaces/${name}`, body);
    assert.equal(res.status, 200, res.text);
    assert.equal(res.json.metadata.labels.team, 'a');
    assert.equal(res.json.status.phase, 'Active');
  });

  // Upstream's finalize strategy keeps status only: spec and metadata come from the body.
  test('PUT /finalize replaces spec.finalizers and metadata, not status', async () => {
    const name = await createNamespace(t.api);
    const current = (await t.api.get(`/api/v1/namespaces/${name}`)).json;
    assert.deepEqual(current.spec.finalizers, ['kubernetes']);
    const body = { ...current, metadata: { ...current.metadata, labels: { other: 'x' } }, spec: { finalizers: ['kubernetes', 'example.com/extra'] } };
    const res = await t.api.put(`/api/v1/namespaces/${name}/finalize`, body);
    assert.equal(res.status, 200, res.text);
    assert.deepEqual(res.json.spec.finalizers, ['kubernetes', 'example.com/extra']);
    assert.equal(res.json.metadata.labels.other, 'x');
    // The name label is the namespace's own on every write.
    assert.equal(res.json.metadata.labels['kubernetes.io/metadata.name'], name);
    assert.equal(res.json.status.phase, 'Active');
    const cleared = await t.api.put(`/api/v1/namespaces/${name}/finalize`, { ...res.json, spec: { finalizers: [] } });
    assert.equal(cleared.status, 200, cleared.text);
    assert.deepEqual(cleared.json.spec?.finalizers ?? [], []);
  });

  test('PUT on the namespace does not change spec.finalizers', async () => {
    const name = await createNamespace(t.api);
    const current = (await t.api.get(`/api/v1/namespaces/${name}`)).json;
    const res = await t.api.put(`/api/v1/namespaces/${name}`, { ...current, spec: { finalizers: [] } });
    assert.equal(res.status, 200, res.text);
    assert.deepEqual(res.json.spec.finalizers, ['kubernetes']);
  });
});
