import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { assertStatus, configMap, create, createNamespace, event, lease, uniqueName } from '../helpers/fixtures.ts';
import { serveFile } from '../helpers/server.ts';

let cms: string;
const t = serveFile([], async () => {
  cms = `/api/v1/namespaces/${t.ns}/configmaps`;
});

const CONFLICT = 'the object has been modified; please apply your changes to the latest version and try again';

describe('get, list, create, update, delete', () => {
  test('create answers 201 with the stored object; get reads it back', async () => {
    const res = await t.api.post(cms, configMap('crud', { k: 'v' }));
    assert.equal(res.status, 201);
    assert.equal(res.headers['content-type'], 'application/json');
    const got = await t.api.get(`${cms}/crud`);
    assert.equal(got.status, 200);
    assert.deepEqual(got.json, res.json);
  });

  test('create of an existing name is 409 AlreadyExists', async () => {
    await create(t.api, cms, configMap('twice'));
    const s = assertStatus(await t.api.post(cms, configMap('twice')), 409, 'AlreadyExists', 'configmaps "twice" already exists');
    assert.deepEqual(s.details, { name: 'twice', kind: 'configmaps' });
  });

  test('get of a missing object is 404 NotFound naming the resource', async () => {
    const s = assertStatus(await t.api.get(`${cms}/missing`), 404, 'NotFound', 'configmaps "missing" not found');
    assert.deepEqual(s.details, { name: 'missing', kind: 'configmaps' });
    const l = assertStatus(await t.api.get(`/apis/coordination.k8s.io/v1/namespaces/${t.ns}/leases/missing`), 404, 'NotFound', 'leases.coordination.k8s.io "missing" not found');
    assert.deepEqual(l.details, { name: 'missing', group: 'coordination.k8s.io', kind: 'leases' });
  });

  test('list answers a <Kind>List with the list resourceVersion', async () => {
    await create(t.api, cms, configMap('listed'));
    const res = await t.api.get(cms);
    assert.equal(res.status, 200);
    assert.equal(res.json.kind, 'ConfigMapList');
    assert.equal(res.json.apiVersion, 'v1');
    assert.match(res.json.metadata.resourceVersion, /^\d+$/);
    assert.ok(res.json.items.some((i: any) => i.metadata.name === 'listed'));
    assert.ok(res.json.items.every((i: any) => i.kind === 'ConfigMap' && i.apiVersion === 'v1'));
  });

  test('update replaces the object and moves resourceVersion forward', async () => {
    const created = await create(t.api, cms, configMap('upd', { a: '1' }));
    const res = await t.api.put(`${cms}/upd`, { ...created, data: { a: '2' } });
    assert.equal(res.status, 200);
    assert.deepEqual(res.json.data, { a: '2' });
    assert.equal(res.json.metadata.uid, created.metadata.uid);
    assert.equal(res.json.metadata.creationTimestamp, created.metadata.creationTimestamp);
    assert.ok(Number(res.json.metadata.resourceVersion) > Number(created.metadata.resourceVersion));
  });

  test('an update that changes nothing keeps the resourceVersion', async () => {
    const created = await create(t.api, cms, configMap('noop', { a: '1' }));
    const res = await t.api.put(`${cms}/noop`, created);
    assert.equal(res.status, 200);
    assert.equal(res.json.metadata.resourceVersion, created.metadata.resourceVersion);
  });

  test('delete of an object without finalizers answers a Success Status and it is gone', async () => {
    const created = await create(t.api, cms, configMap('gone'));
    const res = await t.api.delete(`${cms}/gone`);
    assert.equal(res.status, 200);
    assert.deepEqual(res.json, {
      kind: 'Status',
      apiVersion: 'v1',
      metadata: {},
      status: 'Success',
      details: { name: 'gone', kind: 'configmaps', uid: created.metadata.uid },
    });
    assertStatus(await t.api.get(`${cms}/gone`), 404, 'NotFound', 'configmaps "gone" not found');
    assertStatus(await t.api.delete(`${cms}/gone`), 404, 'NotFound', 'configmaps "gone" not found');
  });
});

describe('deletecollection', () => {
  test('deletes what the label selector matches and answers the deleted list', async () => {
    const space = await createNamespace(t.api);
    const path = `/api/v1/namespaces/${space}/configmaps`;
    await create(t.api, path, configMap('a', {}, { labels: { tier: 'x' } }));
    await create(t.api, path, configMap('b', {}, { labels: { tier: 'x' } }));
    await create(t.api, path, configMap('c', {}, { labels: { tier: 'y' } }));
    const res = await t.api.delete(`${path}?labelSelector=tier%3Dx`);
    assert.equal(res.status, 200, res.text);
    assert.equal(res.json.kind, 'ConfigMapList');
    assert.deepEqual(res.json.items.map((i: any) => i.metadata.name).sort(), ['a', 'b']);
    const left = await t.api.get(path);
    assert.deepEqual(left.json.items.map((i: any) => i.metadata.name), ['c']);
  });

  test('deletes what the field selector matches, only in the request namespace', async () => {
    const space = await createNamespace(t.api);
    const other = await createNamespace(t.api);
    await create(t.api, `/api/v1/namespaces/${space}/configmaps`, configMap('target'));
    await create(t.api, `/api/v1/namespaces/${space}/configmaps`, configMap('keep'));
    await create(t.api, `/api/v1/namespaces/${other}/configmaps`, configMap('target'));
    const res = await t.api.delete(`/api/v1/namespaces/${space}/configmaps?fieldSelector=metadata.name%3Dtarget`);
    assert.equal(res.status, 200, res.text);
    assert.deepEqual(res.json.items.map((i: any) => i.metadata.name), ['target']);
    assert.equal((await t.api.get(`/api/v1/namespaces/${space}/configmaps/target`)).status, 404);
    assert.equal((await t.api.get(`/api/v1/namespaces/${space}/configmaps/keep`)).status, 200);
    assert.equal((await t.api.get(`/api/v1/namespaces/${other}/configmaps/target`)).status, 200);
  });

  test('a bad selector is a 400 and deletes nothing', async () => {
    const space = await createNamespace(t.api);
    await create(t.api, `/api/v1/namespaces/${space}/configmaps`, configMap('stay'));
    assertStatus(await t.api.delete(`/api/v1/namespaces/${space}/configmaps?fieldSelector=spec.nope%3D1`), 400, 'BadRequest', 'field label not supported: spec.nope');
    assert.equal((await t.api.get(`/api/v1/namespaces/${space}/configmaps/stay`)).status, 200);
  });

  test('with dryRun=All nothing is deleted', async () => {
    const space = await createNamespace(t.api);
    await create(t.api, `/api/v1/namespaces/${space}/configmaps`, configMap('dry'));
    const res = await t.api.delete(`/api/v1/namespaces/${space}/configmaps?dryRun=All`);
    assert.equal(res.status, 200, res.text);
    assert.deepEqual(res.json.items.map((i: any) => i.metadata.name), ['dry']);
    assert.equal((await t.api.get(`/api/v1/namespaces/${space}/configmaps/dry`)).status, 200);
  });
});

describe('dryRun', () => {
  test('create with dryRun=All answers 201 with the object and stores nothing', async () => {
    const res = await t.api.post(`${cms}?dryRun=All`, configMap('dry-create', { a: '1' }));
    assert.equal(res.status, 201, res.text);
    assert.equal(res.json.metadata.name, 'dry-create');
    assert.match(res.json.metadata.uid, /^[0-9a-f-]{36}$/);
    assert.ok(res.json.metadata.creationTimestamp);
    assert.equal(res.json.metadata.resourceVersion, undefined);
    assertStatus(await t.api.get(`${cms}/dry-create`), 404, 'NotFound');
  });

  test('create with dryRun=All still validates and still sees existing names', async () => {
    assertStatus(await t.api.post(`${cms}?dryRun=All`, configMap('Bad_Name')), 422, 'Invalid');
    await create(t.api, cms, configMap('dry-exists'));
    assertStatus(await t.api.post(`${cms}?dryRun=All`, configMap('dry-exists')), 409, 'AlreadyExists', 'configmaps "dry-exists" already exists');
  });

  test('a bare ?dryRun counts as unset', async () => {
    const res = await t.api.post(`${cms}?dryRun`, configMap('bare-dry'));
    assert.equal(res.status, 201);
    assert.equal((await t.api.get(`${cms}/bare-dry`)).status, 200);
  });

  test('an unsupported dryRun value is 422 naming the options kind', async () => {
    assertStatus(
      await t.api.post(`${cms}?dryRun=Yes`, configMap('dry-bad')),
      422,
      'Invalid',
      'CreateOptions.meta.k8s.io "" is invalid: dryRun: Unsupported value: []string{"Yes"}: supported values: "All"',
    );
    assertStatus(await t.api.get(`${cms}/dry-bad`), 404, 'NotFound');
    const created = await create(t.api, cms, configMap('dry-bad'));
    assertStatus(
      await t.api.put(`${cms}/dry-bad?dryRun=Yes`, created),
      422,
      'Invalid',
      'UpdateOptions.meta.k8s.io "" is invalid: dryRun: Unsupported value: []string{"Yes"}: supported values: "All"',
    );
    assertStatus(
      await t.api.delete(`${cms}/dry-bad?dryRun=Yes`),
      422,
      'Invalid',
      'DeleteOptions.meta.k8s.io "" is invalid: dryRun: Unsupported value: []string{"Yes"}: supported values: "All"',
    );
    assert.equal((await t.api.get(`${cms}/dry-bad`)).status, 200);
  });

  test('update with dryRun=All answers the new object and stores nothing', async () => {
    const created = await create(t.api, cms, configMap('dry-update', { a: '1' }));
    const res = await t.api.put(`${cms}/dry-update?dryRun=All`, { ...created, data: { a: '2' } });
    assert.equal(res.status, 200, res.text);
    assert.deepEqual(res.json.data, { a: '2' });
    const read = await t.api.get(`${cms}/dry-update`);
    assert.deepEqual(read.json.data, { a: '1' });
    assert.equal(read.json.metadata.resourceVersion, created.metadata.resourceVersion);
  });

  test('update with dryRun=All still checks the resourceVersion', async () => {
    const created = await create(t.api, cms, configMap('dry-conflict', { a: '1' }));
    await t.api.put(`${cms}/dry-conflict`, { ...created, data: { a: '2' } });
    assertStatus(await t.api.put(`${cms}/dry-conflict?dryRun=All`, { ...created, data: { a: '3' } }), 409, 'Conflict', `Operation cannot be fulfilled on configmaps "dry-conflict": ${CONFLICT}`);
  });

  test('delete with dryRun=All answers Success and keeps the object', async () => {
    const created = await create(t.api, cms, configMap('dry-delete'));
    const res = await t.api.delete(`${cms}/dry-delete?dryRun=All`);
    assert.equal(res.status, 200);
    assert.equal(res.json.status, 'Success');
    assert.equal(res.json.details.uid, created.metadata.uid);
    assert.equal((await t.api.get(`${cms}/dry-delete`)).status, 200);
  });

  test('delete with dryRun in the DeleteOptions body keeps the object', async () => {
    await create(t.api, cms, configMap('dry-body'));
    const res = await t.api.delete(`${cms}/dry-body`, { kind: 'DeleteOptions', apiVersion: 'v1', dryRun: ['All'] });
    assert.equal(res.status, 200, res.text);
    assert.equal(res.json.status, 'Success');
    assert.equal((await t.api.get(`${cms}/dry-body`)).status, 200);
  });

  test('patch with dryRun=All answers the patched object and stores nothing', async () => {
    const created = await create(t.api, cms, configMap('dry-patch', { a: '1' }));
    const res = await t.api.patch(`${cms}/dry-patch?dryRun=All`, { data: { a: '2' } }, 'application/merge-patch+json');
    assert.equal(res.status, 200, res.text);
    assert.deepEqual(res.json.data, { a: '2' });
    const read = await t.api.get(`${cms}/dry-patch`);
    assert.deepEqual(read.json.data, { a: '1' });
    assert.equal(read.json.metadata.resourceVersion, created.metadata.resourceVersion);
    assertStatus(
      await t.api.patch(`${cms}/dry-patch?dryRun=Yes`, { data: { a: '2' } }, 'application/merge-patch+json'),
      422,
      'Invalid',
      'PatchOptions.meta.k8s.io "" is invalid: dryRun: Unsupported value: []string{"Yes"}: supported values: "All"',
    );
  });

  test('a PUT that would create, with dryRun=All, answers 201 and stores nothing', async () => {
    const events = `/apis/events.k8s.io/v1/namespaces/${t.ns}/events`;
    const res = await t.api.put(`${events}/dry-put-create?dryRun=All`, event('dry-put-create'));
    assert.equal(res.status, 201, res.text);
    assert.equal(res.json.metadata.name, 'dry-put-create');
    assertStatus(await t.api.get(`${events}/dry-put-create`), 404, 'NotFound');
  });

  test('a status update with dryRun=All stores nothing', async () => {
    const name = await createNamespace(t.api);
    const current = (await t.api.get(`/api/v1/namespaces/${name}`)).json;
    const condition = { type: 'Dry', status: 'True', lastTransitionTime: '2025-01-01T00:00:00Z' };
    const res = await t.api.put(`/api/v1/namespaces/${name}/status?dryRun=All`, { ...current, status: { phase: 'Active', conditions: [condition] } });
    assert.equal(res.status, 200, res.text);
    assert.deepEqual(res.json.status.conditions, [condition]);
    assert.equal((await t.api.get(`/api/v1/namespaces/${name}`)).json.status.conditions, undefined);
  });

  test('namespace create with dryRun=All stores nothing', async () => {
    const name = uniqueName('dryns');
    const res = await t.api.post('/api/v1/namespaces?dryRun=All', { apiVersion: 'v1', kind: 'Namespace', metadata: { name } });
    assert.equal(res.status, 201, res.text);
    assert.equal(res.json.status.phase, 'Active');
    assert.equal((await t.api.get(`/api/v1/namespaces/${name}`)).status, 404);
  });
});

describe('optimistic concurrency', () => {
  test('PUT with a stale resourceVersion is 409 Conflict', async () => {
    const created = await create(t.api, cms, configMap('stale', { a: '1' }));
    const first = await t.api.put(`${cms}/stale`, { ...created, data: { a: '2' } });
    assert.equal(first.status, 200);
    const s = assertStatus(await t.api.put(`${cms}/stale`, { ...created, data: { a: '3' } }), 409, 'Conflict', `Operation cannot be fulfilled on configmaps "stale": ${CONFLICT}`);
    assert.deepEqual(s.details, { name: 'stale', kind: 'configmaps' });
    assert.deepEqual((await t.api.get(`${cms}/stale`)).json.data, { a: '2' });
  });

  test('PUT without resourceVersion is unconditional for kinds that allow it', async () => {
    const created = await create(t.api, cms, configMap('uncond', { a: '1' }));
    await t.api.put(`${cms}/uncond`, { ...created, data: { a: '2' } });
    const { resourceVersion: _rv, ...meta } = created.metadata;
    const res = await t.api.put(`${cms}/uncond`, { ...created, metadata: meta, data: { a: '3' } });
    assert.equal(res.status, 200, res.text);
    assert.deepEqual(res.json.data, { a: '3' });
  });

  test('PUT without resourceVersion is 422 for leases, which require it', async () => {
    const leases = `/apis/coordination.k8s.io/v1/namespaces/${t.ns}/leases`;
    await create(t.api, leases, lease('cond-lease'));
    assertStatus(
      await t.api.put(`${leases}/cond-lease`, lease('cond-lease', 'other')),
      422,
      'Invalid',
      'Lease.coordination.k8s.io "cond-lease" is invalid: metadata.resourceVersion: Invalid value: 0x0: must be specified for an update',
    );
  });

  test('PUT on a missing object is 404 for kinds without create-on-update', async () => {
    assertStatus(await t.api.put(`${cms}/absent`, configMap('absent')), 404, 'NotFound', 'configmaps "absent" not found');
    assertStatus(await t.api.get(`${cms}/absent`), 404, 'NotFound');
  });

  test('PUT on a missing object creates it (201) for events.k8s.io Events and Leases', async () => {
    const events = `/apis/events.k8s.io/v1/namespaces/${t.ns}/events`;
    const res = await t.api.put(`${events}/put-created`, event('put-created'));
    assert.equal(res.status, 201, res.text);
    assert.equal(res.json.metadata.name, 'put-created');
    assert.ok(res.json.metadata.uid);
    assert.equal((await t.api.get(`${events}/put-created`)).status, 200);
    const leases = `/apis/coordination.k8s.io/v1/namespaces/${t.ns}/leases`;
    const l = await t.api.put(`${leases}/put-lease`, lease('put-lease'));
    assert.equal(l.status, 201, l.text);
  });
});

describe('patch', () => {
  test('merge, JSON and strategic merge patches change the object', async () => {
    await create(t.api, cms, configMap('patched', { a: '1' }));
    const merge = await t.api.patch(`${cms}/patched`, { data: { b: '2' } }, 'application/merge-patch+json');
    assert.equal(merge.status, 200, merge.text);
    assert.deepEqual(merge.json.data, { a: '1', b: '2' });
    const json = await t.api.patch(`${cms}/patched`, [{ op: 'remove', path: '/data/a' }], 'application/json-patch+json');
    assert.equal(json.status, 200, json.text);
    assert.deepEqual(json.json.data, { b: '2' });
    const smp = await t.api.patch(`${cms}/patched`, { metadata: { labels: { x: 'y' } } }, 'application/strategic-merge-patch+json');
    assert.equal(smp.status, 200, smp.text);
    assert.deepEqual(smp.json.metadata.labels, { x: 'y' });
    assert.ok(Number(smp.json.metadata.resourceVersion) > Number(merge.json.metadata.resourceVersion));
  });

  test('a patch whose result has a field of the wrong type is 422 on the field "patch"', async () => {
    await create(t.api, cms, configMap('patch-typed', { a: '1' }));
    const s = assertStatus(
      await t.api.patch(`${cms}/patch-typed`, { data: { a: 5 } }, 'application/merge-patch+json'),
      422,
      'Invalid',
      /^ "" is invalid: patch: Invalid value: "\{.*\}": json: cannot unmarshal number into Go struct field ConfigMap.data of type string$/,
    );
    assert.equal(s.details.causes[0].field, 'patch');
    assert.deepEqual((await t.api.get(`${cms}/patch-typed`)).json.data, { a: '1' });
  });

  test('a patch naming a stale resourceVersion is 409', async () => {
    const created = await create(t.api, cms, configMap('patch-stale', { a: '1' }));
    await t.api.patch(`${cms}/patch-stale`, { data: { a: '2' } }, 'application/merge-patch+json');
    assertStatus(
      await t.api.patch(`${cms}/patch-stale`, { metadata: { resourceVersion: created.metadata.resourceVersion }, data: { a: '3' } }, 'application/merge-patch+json'),
      409,
      'Conflict',
      `Operation cannot be fulfilled on configmaps "patch-stale": ${CONFLICT}`,
    );
  });

  test('a patch of a missing object is 404', async () => {
    assertStatus(await t.api.patch(`${cms}/patch-missing`, { data: { a: '1' } }, 'application/merge-patch+json'), 404, 'NotFound', 'configmaps "patch-missing" not found');
  });

  test('a patch with a content type that is not a patch type is 415', async () => {
    await create(t.api, cms, configMap('patch-415'));
    assertStatus(await t.api.patch(`${cms}/patch-415`, { data: { a: '1' } }, 'application/json'), 415, 'UnsupportedMediaType', /^the body of the request was in an unknown format - accepted media types include: application\/json-patch\+json, application\/merge-patch\+json, application\/strategic-merge-patch\+json/);
  });
});
