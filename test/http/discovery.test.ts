import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { assertStatus } from '../helpers/fixtures.ts';
import { client } from '../helpers/http.ts';
import { serveFile } from '../helpers/server.ts';

const t = serveFile();

const ALL = ['create', 'delete', 'deletecollection', 'get', 'list', 'patch', 'update', 'watch'];
const AGGREGATED_V2 = 'application/json;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList';
const AGGREGATED_V2BETA1 = 'application/json;g=apidiscovery.k8s.io;v=v2beta1;as=APIGroupDiscoveryList';

describe('legacy discovery', () => {
  test('/api lists the core version', async () => {
    const res = await t.api.get('/api');
    assert.equal(res.status, 200);
    assert.equal(res.headers['content-type'], 'application/json');
    assert.equal(res.json.kind, 'APIVersions');
    assert.deepEqual(res.json.versions, ['v1']);
    assert.equal(res.json.serverAddressByClientCIDRs[0].clientCIDR, '0.0.0.0/0');
  });

  test('/apis lists the named groups with their preferred versions', async () => {
    const res = await t.api.get('/apis');
    assert.equal(res.status, 200);
    assert.equal(res.headers['content-type'], 'application/json');
    assert.equal(res.json.kind, 'APIGroupList');
    const byName = Object.fromEntries(res.json.groups.map((g: any) => [g.name, g]));
    assert.deepEqual(byName['coordination.k8s.io'], {
      name: 'coordination.k8s.io',
      versions: [{ groupVersion: 'coordination.k8s.io/v1', version: 'v1' }],
      preferredVersion: { groupVersion: 'coordination.k8s.io/v1', version: 'v1' },
    });
    assert.ok(byName['events.k8s.io']);
  });

  test('/api/v1 lists resources with verbs, shortNames, singularName and scope', async () => {
    const res = await t.api.get('/api/v1');
    assert.equal(res.status, 200);
    assert.equal(res.headers['content-type'], 'application/json');
    assert.equal(res.json.kind, 'APIResourceList');
    assert.equal(res.json.groupVersion, 'v1');
    const byName = Object.fromEntries(res.json.resources.map((r: any) => [r.name, r]));
    const cm = byName.configmaps;
    assert.deepEqual({ ...cm, storageVersionHash: undefined }, {
      name: 'configmaps',
      singularName: 'configmap',
      namespaced: true,
      kind: 'ConfigMap',
      verbs: ALL,
      shortNames: ['cm'],
      storageVersionHash: undefined,
    });
    assert.match(cm.storageVersionHash, /^[A-Za-z0-9+/]{11}=$/);
    assert.equal(cm.categories, undefined);
    assert.deepEqual(byName.namespaces.verbs, ['create', 'delete', 'get', 'list', 'patch', 'update', 'watch']);
    assert.equal(byName.namespaces.namespaced, false);
    assert.deepEqual(byName.namespaces.shortNames, ['ns']);
    assert.deepEqual(byName['namespaces/status'].verbs, ['get', 'patch', 'update']);
    assert.deepEqual(byName['namespaces/finalize'].verbs, ['update']);
    assert.equal(byName.secrets.shortNames, undefined);
    assert.deepEqual(byName.serviceaccounts.shortNames, ['sa']);
  });

  test('/apis/<group>/<version> lists the group version resources', async () => {
    const res = await t.api.get('/apis/coordination.k8s.io/v1');
    assert.equal(res.status, 200);
    assert.equal(res.json.kind, 'APIResourceList');
    assert.equal(res.json.apiVersion, 'v1');
    assert.equal(res.json.groupVersion, 'coordination.k8s.io/v1');
    assert.deepEqual(res.json.resources.map((r: any) => [r.name, r.singularName, r.namespaced, r.kind]), [['leases', 'lease', true, 'Lease']]);
    const events = await t.api.get('/apis/events.k8s.io/v1');
    assert.deepEqual(events.json.resources[0].shortNames, ['ev']);
    assert.deepEqual(events.json.resources[0].verbs, ALL);
  });

  test('/apis/<group> describes the group', async () => {
    const res = await t.api.get('/apis/events.k8s.io');
    assert.equal(res.status, 200);
    assert.equal(res.json.kind, 'APIGroup');
    assert.equal(res.json.name, 'events.k8s.io');
    assert.deepEqual(res.json.preferredVersion, { groupVersion: 'events.k8s.io/v1', version: 'v1' });
  });

  test('unknown groups and versions are 404', async () => {
    assertStatus(await t.api.get('/apis/nope.example.com'), 404, 'NotFound');
    assertStatus(await t.api.get('/apis/coordination.k8s.io/v1beta7'), 404, 'NotFound');
    assertStatus(await t.api.get('/api/v2'), 404, 'NotFound');
  });

  test('anonymous users may read /version but not discovery (system:discovery is for authenticated users)', async () => {
    const anon = client(t.srv.url, t.srv.anonymousAgent);
    assert.equal((await anon.get('/version')).status, 200);
    const s = assertStatus(await anon.get('/api'), 403, 'Forbidden', 'forbidden: User "system:anonymous" cannot get path "/api"');
    assert.deepEqual(s.details, {});
    assertStatus(await anon.get('/apis/coordination.k8s.io/v1'), 403, 'Forbidden', 'forbidden: User "system:anonymous" cannot get path "/apis/coordination.k8s.io/v1"');
  });
});

describe('aggregated discovery', () => {
  for (const [accept, apiVersion] of [
    [AGGREGATED_V2, 'apidiscovery.k8s.io/v2'],
    [AGGREGATED_V2BETA1, 'apidiscovery.k8s.io/v2beta1'],
  ] as const) {
    test(`/api and /apis answer ${apiVersion} with the exact content type`, async () => {
      const core = await t.api.get('/api', { Accept: `${accept},application/json` });
      assert.equal(core.status, 200);
      assert.equal(core.headers['content-type'], accept);
      assert.equal(core.json.kind, 'APIGroupDiscoveryList');
      assert.equal(core.json.apiVersion, apiVersion);
      const v1 = core.json.items[0].versions[0];
      assert.equal(v1.version, 'v1');
      assert.equal(v1.freshness, 'Current');
      const byName = Object.fromEntries(v1.resources.map((r: any) => [r.resource, r]));
      assert.deepEqual(byName.configmaps, {
        resource: 'configmaps',
        responseKind: { group: '', version: '', kind: 'ConfigMap' },
        scope: 'Namespaced',
        singularResource: 'configmap',
        verbs: ALL,
        shortNames: ['cm'],
      });
      assert.equal(byName.namespaces.scope, 'Cluster');
      assert.deepEqual(byName.namespaces.subresources.map((s: any) => [s.subresource, s.verbs]), [
        ['finalize', ['update']],
        ['status', ['get', 'patch', 'update']],
      ]);

      const groups = await t.api.get('/apis', { Accept: accept });
      assert.equal(groups.headers['content-type'], accept);
      const names = groups.json.items.map((g: any) => g.metadata.name);
      assert.ok(names.includes('coordination.k8s.io') && names.includes('events.k8s.io'));
      const leases = groups.json.items.find((g: any) => g.metadata.name === 'coordination.k8s.io').versions[0].resources[0];
      assert.equal(leases.resource, 'leases');
      assert.equal(leases.singularResource, 'lease');
    });
  }

  test('an ETag is sent and If-None-Match answers 304', async () => {
    const first = await t.api.get('/apis', { Accept: AGGREGATED_V2 });
    const etag = first.headers.etag as string;
    assert.match(etag, /^"[0-9A-F]+"$/);
    const again = await t.api.get('/apis', { Accept: AGGREGATED_V2, 'If-None-Match': etag });
    assert.equal(again.status, 304);
  });
});

describe('/version and OpenAPI', () => {
  test('/version', async () => {
    const res = await t.api.get('/version');
    assert.equal(res.status, 200);
    assert.equal(res.headers['content-type'], 'application/json');
    assert.equal(res.json.major, '1');
    assert.equal(res.json.minor, '34');
    assert.match(res.json.gitVersion, /^v1\.34\./);
    assert.match(res.json.platform, /^[a-z]+\/[a-z0-9]+$/);
  });

  test('/openapi/v3 indexes the group versions; a document has fieldValidation on PATCH', async () => {
    const index = await t.api.get('/openapi/v3');
    assert.equal(index.status, 200);
    assert.equal(index.headers['content-type'], 'application/json');
    for (const key of ['api/v1', 'apis/coordination.k8s.io/v1', 'apis/events.k8s.io/v1']) {
      assert.match(index.json.paths[key].serverRelativeURL, new RegExp(`^/openapi/v3/${key.replace(/\./g, '\\.')}\\?hash=[0-9A-F]+$`));
    }
    const doc = await t.api.get(index.json.paths['api/v1'].serverRelativeURL);
    assert.equal(doc.status, 200);
    assert.equal(doc.headers['content-type'], 'application/json');
    assert.match(doc.json.openapi, /^3\./);
    const item = doc.json.paths['/api/v1/namespaces/{namespace}/configmaps/{name}'];
    const params = item.patch.parameters.map((p: any) => p.name);
    assert.ok(params.includes('fieldValidation'));
    assert.ok(params.includes('dryRun'));
    assert.ok(item.put.parameters.some((p: any) => p.name === 'fieldValidation'));
    assert.ok(doc.json.components.schemas['io.k8s.api.core.v1.ConfigMap']);
    assertStatus(await t.api.get('/openapi/v3/apis/nope.example.com/v1'), 404, 'NotFound');
  });

  test('/openapi/v2 is Swagger 2.0 JSON with group-version-kinds', async () => {
    const res = await t.api.get('/openapi/v2', { Accept: 'application/json' });
    assert.equal(res.status, 200);
    assert.equal(res.headers['content-type'], 'application/json');
    assert.equal(res.json.swagger, '2.0');
    assert.deepEqual(res.json.definitions['io.k8s.api.core.v1.ConfigMap']['x-kubernetes-group-version-kind'], [{ group: '', kind: 'ConfigMap', version: 'v1' }]);
    assert.ok(res.json.paths['/apis/coordination.k8s.io/v1/namespaces/{namespace}/leases']);
  });
});
