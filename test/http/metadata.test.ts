import assert from 'node:assert/strict';
import { before, describe, test } from 'node:test';
import { assertStatus, configMap, create, createNamespace, namespace, removeFinalizers, secret, uniqueName } from '../helpers/fixtures.ts';
import { client } from '../helpers/http.ts';
import { serveFile } from '../helpers/server.ts';

let cms: string;
const t = serveFile([], async () => {
  cms = `/api/v1/namespaces/${t.ns}/configmaps`;
});

const SUBDOMAIN =
  "a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character (e.g. 'example.com', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')";
const LABEL =
  "a lowercase RFC 1123 label must consist of lower case alphanumeric characters or '-', and must start and end with an alphanumeric character (e.g. 'my-name',  or '123-abc', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?')";

describe('server-set metadata', () => {
  test('generateName gets a five-character suffix from the real alphabet', async () => {
    const res = await t.api.post(cms, configMap(undefined, {}, { generateName: 'gen-' }));
    assert.equal(res.status, 201, res.text);
    assert.match(res.json.metadata.name, /^gen-[bcdfghjklmnpqrstvwxz2456789]{5}$/);
    assert.equal(res.json.metadata.generateName, 'gen-');
    assert.equal((await t.api.get(`${cms}/${res.json.metadata.name}`)).status, 200);
  });

  test('a generateName that cannot begin a valid name is refused', async () => {
    const res = await t.api.post(cms, configMap(undefined, {}, { generateName: 'Gen_' }));
    const s = assertStatus(res, 422, 'Invalid');
    assert.deepEqual(s.details.causes.map((c: any) => c.field), ['metadata.name', 'metadata.generateName']);
    assert.match(s.message, /metadata.generateName: Invalid value: "Gen_": a lowercase RFC 1123 subdomain/);
    // Trailing dashes are fine: the suffix follows them.
    assert.equal((await t.api.post(cms, configMap(undefined, {}, { generateName: 'ok--' }))).status, 201);
  });

  test('an explicit name wins over generateName', async () => {
    const res = await t.api.post(cms, configMap('explicit', {}, { generateName: 'gen-' }));
    assert.equal(res.status, 201);
    assert.equal(res.json.metadata.name, 'explicit');
  });

  test('uid, creationTimestamp and resourceVersion are set by the server, whatever the client sends', async () => {
    const body = configMap('sysfields');
    (body.metadata as any).uid = 'client-uid';
    (body.metadata as any).creationTimestamp = '2000-01-01T00:00:00Z';
    const res = await t.api.post(cms, body);
    assert.equal(res.status, 201, res.text);
    const m = res.json.metadata;
    assert.match(m.uid, /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/);
    assert.match(m.creationTimestamp, /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/);
    assert.ok(Math.abs(Date.parse(m.creationTimestamp) - Date.now()) < 60_000);
    assert.match(m.resourceVersion, /^\d+$/);
  });

  test('an update cannot change uid or creationTimestamp, and resourceVersion grows', async () => {
    const created = await create(t.api, cms, configMap('immutable-meta', { a: '1' }));
    const body = { ...created, metadata: { ...created.metadata, uid: created.metadata.uid }, data: { a: '2' } };
    const res = await t.api.put(`${cms}/immutable-meta`, body);
    assert.equal(res.status, 200, res.text);
    assert.equal(res.json.metadata.uid, created.metadata.uid);
    assert.equal(res.json.metadata.creationTimestamp, created.metadata.creationTimestamp);
    assert.ok(Number(res.json.metadata.resourceVersion) > Number(created.metadata.resourceVersion));
    const { uid: _u, creationTimestamp: _c, ...rest } = res.json.metadata;
    const again = await t.api.put(`${cms}/immutable-meta`, { ...res.json, metadata: rest, data: { a: '3' } });
    assert.equal(again.status, 200, again.text);
    assert.equal(again.json.metadata.uid, created.metadata.uid);
    assert.equal(again.json.metadata.creationTimestamp, created.metadata.creationTimestamp);
  });

  test('a PUT naming another uid is a 409 precondition failure', async () => {
    const created = await create(t.api, cms, configMap('uid-pre'));
    const body = { ...created, metadata: { ...created.metadata, uid: '00000000-0000-0000-0000-000000000000' } };
    assertStatus(
      await t.api.put(`${cms}/uid-pre`, body),
      409,
      'Conflict',
      `Operation cannot be fulfilled on configmaps "uid-pre": Precondition failed: UID in precondition: 00000000-0000-0000-0000-000000000000, UID in object meta: ${created.metadata.uid}`,
    );
  });

  test('generation is not tracked by configmaps, secrets, namespaces or leases', async () => {
    const created = await create(t.api, cms, configMap('gen-track', { a: '1' }));
    assert.equal(created.metadata.generation, undefined);
    const updated = await t.api.put(`${cms}/gen-track`, { ...created, data: { a: '2' } });
    assert.equal(updated.json.metadata.generation, undefined);
    const s = await create(t.api, `/api/v1/namespaces/${t.ns}/secrets`, secret('gen-secret', { stringData: { a: 'b' } }));
    assert.equal(s.metadata.generation, undefined);
    const n = (await t.api.get(`/api/v1/namespaces/${t.ns}`)).json;
    assert.equal(n.metadata.generation, undefined);
  });
});

describe('name validation', () => {
  test('configmap names must be DNS subdomains', async () => {
    const s = assertStatus(
      await t.api.post(cms, configMap('Bad_Name')),
      422,
      'Invalid',
      `ConfigMap "Bad_Name" is invalid: metadata.name: Invalid value: "Bad_Name": ${SUBDOMAIN}`,
    );
    assert.deepEqual(s.details, {
      name: 'Bad_Name',
      kind: 'ConfigMap',
      causes: [{ reason: 'FieldValueInvalid', message: `Invalid value: "Bad_Name": ${SUBDOMAIN}`, field: 'metadata.name' }],
    });
    assert.equal((await t.api.post(cms, configMap('dotted.name.ok'))).status, 201);
  });

  test('namespace names must be DNS labels', async () => {
    assertStatus(await t.api.post('/api/v1/namespaces', namespace('has.dot')), 422, 'Invalid', `Namespace "has.dot" is invalid: metadata.name: Invalid value: "has.dot": ${LABEL}`);
    const long = 'a'.repeat(64);
    assertStatus(
      await t.api.post('/api/v1/namespaces', namespace(long)),
      422,
      'Invalid',
      // The name label is defaulted from the name, so it fails too (as upstream's defaulting does).
      `Namespace "${long}" is invalid: [metadata.name: Invalid value: "${long}": must be no more than 63 characters, metadata.labels: Invalid value: "${long}": must be no more than 63 characters]`,
    );
  });

  test('a name is required', async () => {
    const s = assertStatus(await t.api.post(cms, configMap(undefined)), 422, 'Invalid', 'ConfigMap "" is invalid: metadata.name: Required value: name or generateName is required');
    assert.deepEqual(s.details.causes, [{ reason: 'FieldValueRequired', message: 'Required value: name or generateName is required', field: 'metadata.name' }]);
  });

  test('lease names in a named group qualify the kind with the group', async () => {
    assertStatus(
      await t.api.post(`/apis/coordination.k8s.io/v1/namespaces/${t.ns}/leases`, { apiVersion: 'coordination.k8s.io/v1', kind: 'Lease', metadata: { name: 'UPPER' } }),
      422,
      'Invalid',
      `Lease.coordination.k8s.io "UPPER" is invalid: metadata.name: Invalid value: "UPPER": ${SUBDOMAIN}`,
    );
  });
});

describe('namespace and name of the body', () => {
  test('a namespaced create needs an existing namespace', async () => {
    const s = assertStatus(await t.api.post('/api/v1/namespaces/no-such-ns/configmaps', configMap('x')), 404, 'NotFound', 'namespaces "no-such-ns" not found');
    assert.deepEqual(s.details, { name: 'no-such-ns', kind: 'namespaces' });
  });

  test('the namespace check comes before validation, as admission does', async () => {
    assertStatus(await t.api.post('/api/v1/namespaces/no-such-ns/configmaps', configMap('Bad_Name')), 404, 'NotFound', 'namespaces "no-such-ns" not found');
  });

  test('a namespaced create in a terminating namespace is 403 with the NamespaceTerminating cause', async () => {
    const doomed = await createNamespace(t.api);
    await create(t.api, `/api/v1/namespaces/${doomed}/configmaps`, configMap('holder', {}, { finalizers: ['example.com/hold'] }));
    const del = await t.api.delete(`/api/v1/namespaces/${doomed}`);
    assert.equal(del.status, 200, del.text);
    const s = assertStatus(
      await t.api.post(`/api/v1/namespaces/${doomed}/configmaps`, configMap('late')),
      403,
      'Forbidden',
      `configmaps "late" is forbidden: unable to create new content in namespace ${doomed} because it is being terminated`,
    );
    assert.deepEqual(s.details, {
      name: 'late',
      kind: 'configmaps',
      causes: [{ reason: 'NamespaceTerminating', message: `namespace ${doomed} is being terminated`, field: 'metadata.namespace' }],
    });
    // Release the namespace so the controller can finish.
    const released = await removeFinalizers(t.api, `/api/v1/namespaces/${doomed}/configmaps/holder`);
    assert.equal(released.status, 200, released.text);
  });

  test('a body namespace that differs from the path is 400', async () => {
    const other = uniqueName('other');
    assertStatus(
      await t.api.post(cms, configMap('ns-mismatch', {}, { namespace: other })),
      400,
      'BadRequest',
      'the namespace of the provided object does not match the namespace sent on the request',
    );
    const created = await create(t.api, cms, configMap('ns-mismatch-put'));
    assertStatus(
      await t.api.put(`${cms}/ns-mismatch-put`, { ...created, metadata: { ...created.metadata, namespace: other } }),
      400,
      'BadRequest',
      'the namespace of the provided object does not match the namespace sent on the request',
    );
  });

  test('a body without a namespace takes the namespace of the path', async () => {
    const res = await t.api.post(cms, configMap('ns-defaulted'));
    assert.equal(res.json.metadata.namespace, t.ns);
  });

  test('a body name that differs from the URL on PUT is 400', async () => {
    const created = await create(t.api, cms, configMap('name-a'));
    assertStatus(
      await t.api.put(`${cms}/name-b`, { ...created }),
      400,
      'BadRequest',
      'the name of the object (name-a) does not match the name on the URL (name-b)',
    );
  });

  test('a PUT body without a name is 400', async () => {
    const created = await create(t.api, cms, configMap('nameless-put'));
    const { name: _n, ...meta } = created.metadata;
    assertStatus(
      await t.api.put(`${cms}/nameless-put`, { ...created, metadata: meta }),
      400,
      'BadRequest',
      'the name of the object (nameless-put based on URL) was undeterminable: name must be provided',
    );
  });
});
