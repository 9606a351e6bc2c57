import assert from 'node:assert/strict';
import https from 'node:https';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { describe, test } from 'node:test';
import pg from 'pg';
import { ensurePki } from '../../src/auth/pki/ensure-pki.ts';
import { assertStatus, configMap, create, createNamespace } from '../helpers/fixtures.ts';
import { client, request } from '../helpers/http.ts';
import { serveFile } from '../helpers/server.ts';

let cms: string;
const t = serveFile([], async () => {
  cms = `/api/v1/namespaces/${t.ns}/configmaps`;
});

const TYPE_PROBE = 'struct { APIVersion string "json:\\"apiVersion,omitempty\\""; Kind string "json:\\"kind,omitempty\\"" }';
const SCHEME = 'pkg/api/legacyscheme/scheme.go:30';

describe('400 BadRequest for bodies that cannot be decoded', () => {
  test('malformed JSON', async () => {
    assertStatus(
      await t.api.post(cms, '{"metadata":'),
      400,
      'BadRequest',
      `the object provided is unrecognized (must be of type ConfigMap): couldn't get version/kind; json parse error: unexpected end of JSON input ({"metadata":)`,
    );
  });

  test('a body that is not an object', async () => {
    assertStatus(
      await t.api.post(cms, '[1,2]'),
      400,
      'BadRequest',
      `the object provided is unrecognized (must be of type ConfigMap): couldn't get version/kind; json parse error: json: cannot unmarshal array into Go value of type ${TYPE_PROBE} (5b312c325d)`,
    );
    assertStatus(await t.api.post(cms, '"text"'), 400, 'BadRequest', /json: cannot unmarshal string into Go value of type/);
    assertStatus(await t.api.post(cms, 'null'), 400, 'BadRequest', "Object 'Kind' is missing in 'null'");
  });

  test('an empty body', async () => {
    assertStatus(await t.api.post(cms, ''), 400, 'BadRequest', /^the object provided is unrecognized \(must be of type ConfigMap\)/);
  });

  test('a kind the endpoint does not serve', async () => {
    assertStatus(
      await t.api.post(cms, { apiVersion: 'v1', kind: 'Foo', metadata: { name: 'x' } }),
      400,
      'BadRequest',
      `Foo in version "v1" cannot be handled as a ConfigMap: no kind "Foo" is registered for version "v1" in scheme "${SCHEME}"`,
    );
    assertStatus(
      await t.api.post(cms, { apiVersion: 'v1', kind: 'Secret', metadata: { name: 'x' } }),
      400,
      'BadRequest',
      /^Secret in version "v1" cannot be handled as a ConfigMap: /,
    );
  });

  test('an apiVersion the endpoint does not serve', async () => {
    assertStatus(
      await t.api.post(cms, { apiVersion: 'v2', kind: 'ConfigMap', metadata: { name: 'x' } }),
      400,
      'BadRequest',
      `ConfigMap in version "v2" cannot be handled as a ConfigMap: no kind "ConfigMap" is registered for version "v2" in scheme "${SCHEME}"`,
    );
    assertStatus(
      await t.api.post(`/apis/coordination.k8s.io/v1/namespaces/${t.ns}/leases`, { apiVersion: 'v1', kind: 'Lease', metadata: { name: 'x' } }),
      400,
      'BadRequest',
      `Lease in version "v1" cannot be handled as a Lease: no kind "Lease" is registered for version "v1" in scheme "${SCHEME}"`,
    );
  });

  test('kind and apiVersion may be left out: the endpoint supplies them', async () => {
    const res = await t.api.post(cms, { metadata: { name: 'typeless' } });
    assert.equal(res.status, 201, res.text);
    assert.equal(res.json.kind, 'ConfigMap');
    assert.equal(res.json.apiVersion, 'v1');
  });

  test('kind or apiVersion of the wrong JSON type', async () => {
    assertStatus(await t.api.post(cms, { apiVersion: 'v1', kind: 5, metadata: { name: 'x' } }), 400, 'BadRequest', /couldn't get version\/kind; json parse error: json: cannot unmarshal number into Go struct field \.kind of type string/);
    assertStatus(await t.api.post(cms, { apiVersion: ['v1'], kind: 'ConfigMap' }), 400, 'BadRequest', /cannot unmarshal array into Go struct field \.apiVersion of type string/);
  });

  test('a field of the wrong JSON type is refused by the decoder, in Go\'s words', async () => {
    const cases: Array<[string, unknown, string]> = [
      [cms, { metadata: { name: 5 } }, 'ConfigMap in version "v1" cannot be handled as a ConfigMap: json: cannot unmarshal number into Go struct field ObjectMeta.metadata.name of type string'],
      [cms, { metadata: 'x' }, 'ConfigMap in version "v1" cannot be handled as a ConfigMap: json: cannot unmarshal string into Go struct field ConfigMap.metadata of type v1.ObjectMeta'],
      [cms, { metadata: { name: 'a' }, data: 'x' }, 'ConfigMap in version "v1" cannot be handled as a ConfigMap: json: cannot unmarshal string into Go struct field ConfigMap.data of type map[string]string'],
      [cms, { metadata: { name: 'a' }, data: { k: 1 } }, 'ConfigMap in version "v1" cannot be handled as a ConfigMap: json: cannot unmarshal number into Go struct field ConfigMap.data of type string'],
      [cms, { metadata: { name: 'a', finalizers: 'x' } }, 'ConfigMap in version "v1" cannot be handled as a ConfigMap: json: cannot unmarshal string into Go struct field ObjectMeta.metadata.finalizers of type []string'],
      [cms, { metadata: { name: 'a', labels: { a: true } } }, 'ConfigMap in version "v1" cannot be handled as a ConfigMap: json: cannot unmarshal bool into Go struct field ObjectMeta.metadata.labels of type string'],
      [`/api/v1/namespaces/${t.ns}/secrets`, { metadata: { name: 'a' }, data: { k: 'abc$' } }, 'Secret in version "v1" cannot be handled as a Secret: illegal base64 data at input byte 3'],
      [`/api/v1/namespaces/${t.ns}/secrets`, { metadata: { name: 'a' }, data: { k: 'abc' } }, 'Secret in version "v1" cannot be handled as a Secret: illegal base64 data at input byte 0'],
      [
        `/apis/coordination.k8s.io/v1/namespaces/${t.ns}/leases`,
        { metadata: { name: 'a' }, spec: { leaseDurationSeconds: 1.5 } },
        'Lease in version "v1" cannot be handled as a Lease: json: cannot unmarshal number 1.5 into Go struct field LeaseSpec.spec.leaseDurationSeconds of type int32',
      ],
    ];
    for (const [path, body, message] of cases) assertStatus(await t.api.post(path, body), 400, 'BadRequest', message);
    assertStatus(await t.api.get(`${cms}/a`), 404, 'NotFound');
  });

  test('malformed DeleteOptions', async () => {
    await create(t.api, cms, configMap('del-opts'));
    assertStatus(await t.api.delete(`${cms}/del-opts`, '{"gracePeriodSeconds":'), 400, 'BadRequest');
    assert.equal((await t.api.get(`${cms}/del-opts`)).status, 200);
  });
});

describe('authentication and authorization', () => {
  test('anonymous requests are 403 Forbidden with the real message', async () => {
    const anon = client(t.srv.url, t.srv.anonymousAgent);
    const list = assertStatus(
      await anon.get(cms),
      403,
      'Forbidden',
      `configmaps is forbidden: User "system:anonymous" cannot list resource "configmaps" in API group "" in the namespace "${t.ns}"`,
    );
    assert.deepEqual(list.details, { kind: 'configmaps' });
    const get = assertStatus(
      await anon.get(`/apis/coordination.k8s.io/v1/namespaces/${t.ns}/leases/l1`),
      403,
      'Forbidden',
      `leases.coordination.k8s.io "l1" is forbidden: User "system:anonymous" cannot get resource "leases" in API group "coordination.k8s.io" in the namespace "${t.ns}"`,
    );
    assert.deepEqual(get.details, { name: 'l1', group: 'coordination.k8s.io', kind: 'leases' });
    assertStatus(
      await anon.post('/api/v1/namespaces', { metadata: { name: 'x' } }),
      403,
      'Forbidden',
      'namespaces is forbidden: User "system:anonymous" cannot create resource "namespaces" in API group "" at the cluster scope',
    );
  });

  test('a client certificate from another CA is 401 Unauthorized', async () => {
    const dir = await mkdtemp(path.join(tmpdir(), 'pgkube-foreign-'));
    try {
      const foreign = await ensurePki({ dir });
      const agent = new https.Agent({ ca: t.srv.ca, cert: foreign.adminCert.pem, key: foreign.adminKey.pem });
      try {
        const res = await request(t.srv.url, cms, { agent });
        assert.deepEqual(assertStatus(res, 401, 'Unauthorized', 'Unauthorized'), {
          kind: 'Status',
          apiVersion: 'v1',
          metadata: {},
          status: 'Failure',
          message: 'Unauthorized',
          reason: 'Unauthorized',
          code: 401,
        });
      } finally {
        agent.destroy();
      }
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });
});

describe('media types and sizes', () => {
  test('an Accept the server cannot produce is 406 NotAcceptable', async () => {
    assertStatus(
      await t.api.get(cms, { Accept: 'application/xml' }),
      406,
      'NotAcceptable',
      'only the following media types are accepted: application/json, application/yaml, application/vnd.kubernetes.protobuf',
    );
  });

  test('a Content-Type the server cannot read is 415 UnsupportedMediaType', async () => {
    assertStatus(
      await t.api.post(cms, 'name: x', { 'Content-Type': 'text/plain' }),
      415,
      'UnsupportedMediaType',
      'the body of the request was in an unknown format - accepted media types include: application/json, application/yaml, application/vnd.kubernetes.protobuf',
    );
  });

  test('a body over 3 MiB is 413 RequestEntityTooLarge', async () => {
    const big = JSON.stringify(configMap('big', { blob: 'x'.repeat(3 * 1024 * 1024) }));
    assertStatus(await t.api.post(cms, big), 413, 'RequestEntityTooLarge', 'Request entity too large: limit is 3145728');
    assertStatus(await t.api.get(`${cms}/big`), 404, 'NotFound');
  });
});

describe('410 Expired', () => {
  test('a continue token older than the compacted history is 410 with a fresh token', async () => {
    const space = await createNamespace(t.api);
    for (const n of ['a', 'b', 'c']) await create(t.api, `/api/v1/namespaces/${space}/configmaps`, configMap(n));
    const first = await t.api.get(`/api/v1/namespaces/${space}/configmaps?limit=1`);
    assert.equal(first.status, 200);
    const token = first.json.metadata.continue;
    assert.ok(token);
    // Write past the token's version, then compact everything up to the newest version.
    await create(t.api, `/api/v1/namespaces/${space}/configmaps`, configMap('d'));
    const db = new pg.Client({ connectionString: t.srv.db.url });
    await db.connect();
    try {
      await db.query('update compaction set compacted_resource_version = (select max(resource_version) from history)');
    } finally {
      await db.end();
    }
    const res = await t.api.get(`/api/v1/namespaces/${space}/configmaps?limit=1&continue=${encodeURIComponent(token)}`);
    const s = assertStatus(
      res,
      410,
      'Expired',
      'The provided continue parameter is too old to display a consistent list result. You can start a new list without the continue parameter, or use the continue token in this response to retrieve the remainder of the results. Continuing with the provided token results in an inconsistent list - objects that were created, modified, or deleted between the time the first chunk was returned and now may show up in the list.',
    );
    assert.ok(s.metadata.continue);
    const rest = await t.api.get(`/api/v1/namespaces/${space}/configmaps?continue=${encodeURIComponent(s.metadata.continue)}`);
    assert.equal(rest.status, 200, rest.text);
    assert.deepEqual(rest.json.items.map((i: any) => i.metadata.name), ['b', 'c', 'd']);

    const exact = await t.api.get(`/api/v1/namespaces/${space}/configmaps?resourceVersion=${first.json.metadata.resourceVersion}&resourceVersionMatch=Exact`);
    assertStatus(exact, 410, 'Expired', 'The resourceVersion for the provided list is too old.');
  });
});
