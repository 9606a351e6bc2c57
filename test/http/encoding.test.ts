import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { gunzipSync } from 'node:zlib';
import http2 from 'node:http2';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import yaml from 'js-yaml';
import { assertStatus, configMap, create, createNamespace } from '../helpers/fixtures.ts';
import { client, request } from '../helpers/http.ts';
import { connectH2 } from '../helpers/h2-client.ts';
import { serveFile } from '../helpers/server.ts';

let cms: string;
const t = serveFile([], async () => {
  cms = `/api/v1/namespaces/${await createNamespace(t.api)}/configmaps`;
  await create(t.api, cms, configMap('shown', { a: '1', b: '2' }));
});

const TABLE = 'application/json;as=Table;g=meta.k8s.io;v=v1';

describe('Table responses', () => {
  test('get renders one row with the kind columns', async () => {
    const res = await t.api.get(`${cms}/shown`, { Accept: TABLE });
    assert.equal(res.status, 200, res.text);
    assert.match(res.headers['content-type'] as string, /^application\/json/);
    assert.equal(res.json.kind, 'Table');
    assert.equal(res.json.apiVersion, 'meta.k8s.io/v1');
    assert.deepEqual(res.json.columnDefinitions.map((c: any) => [c.name, c.type]), [['Name', 'string'], ['Data', 'integer'], ['Age', 'string']]);
    assert.equal(res.json.columnDefinitions[0].format, 'name');
    assert.equal(res.json.rows.length, 1);
    assert.equal(res.json.rows[0].cells[0], 'shown');
    assert.equal(res.json.rows[0].cells[1], 2);
    assert.match(res.json.rows[0].cells[2], /^\d+s$/);
    assert.equal(res.json.rows[0].object.kind, 'PartialObjectMetadata');
    assert.equal(res.json.rows[0].object.metadata.name, 'shown');
  });

  test('list renders every row and keeps the list metadata', async () => {
    await create(t.api, cms, configMap('shown-2'));
    const res = await t.api.get(`${cms}?limit=1`, { Accept: `${TABLE}, application/json` });
    assert.equal(res.status, 200);
    assert.equal(res.json.kind, 'Table');
    assert.equal(res.json.rows.length, 1);
    assert.match(res.json.metadata.resourceVersion, /^\d+$/);
    assert.ok(res.json.metadata.continue);
    const all = await t.api.get(cms, { Accept: TABLE });
    assert.deepEqual(all.json.rows.map((r: any) => r.cells[0]), ['shown', 'shown-2']);
  });

  test('a kind without columns gets Name and Created At', async () => {
    const res = await t.api.get('/api/v1/namespaces/default/serviceaccounts', { Accept: TABLE });
    assert.equal(res.status, 200);
    assert.ok(res.json.columnDefinitions.some((c: any) => c.name === 'Name'));
    const namespaces = await t.api.get('/api/v1/namespaces/default', { Accept: TABLE });
    assert.deepEqual(namespaces.json.columnDefinitions.map((c: any) => c.name), ['Name', 'Status', 'Age']);
    assert.deepEqual(namespaces.json.rows[0].cells.slice(0, 2), ['default', 'Active']);
  });

  test('includeObject=Object carries the whole object', async () => {
    const res = await t.api.get(`${cms}/shown?includeObject=Object`, { Accept: TABLE });
    assert.equal(res.json.rows[0].object.kind, 'ConfigMap');
    assert.deepEqual(res.json.rows[0].object.data, { a: '1', b: '2' });
  });
});

describe('YAML', () => {
  test('Accept: application/yaml answers YAML', async () => {
    const res = await t.api.get(`${cms}/shown`, { Accept: 'application/yaml' });
    assert.equal(res.status, 200);
    assert.equal(res.headers['content-type'], 'application/yaml');
    const doc = yaml.load(res.text) as any;
    assert.equal(doc.kind, 'ConfigMap');
    assert.deepEqual(doc.data, { a: '1', b: '2' });
    const list = await t.api.get(cms, { Accept: 'application/yaml' });
    assert.equal((yaml.load(list.text) as any).kind, 'ConfigMapList');
  });

  test('errors come back as a YAML Status when YAML was asked for', async () => {
    const res = await t.api.get(`${cms}/missing`, { Accept: 'application/yaml' });
    assert.equal(res.status, 404);
    assert.equal(res.headers['content-type'], 'application/yaml');
    const status = yaml.load(res.text) as any;
    assert.equal(status.kind, 'Status');
    assert.equal(status.reason, 'NotFound');
  });

  test('a YAML body creates and updates', async () => {
    const body = 'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: from-yaml\ndata:\n  k: v\n';
    const res = await t.api.post(cms, body, { 'Content-Type': 'application/yaml' });
    assert.equal(res.status, 201, res.text);
    assert.deepEqual(res.json.data, { k: 'v' });
    const update = `${yaml.dump({ ...res.json, data: { k: 'w' } })}`;
    const put = await t.api.put(`${cms}/from-yaml`, update, { 'Content-Type': 'application/yaml' });
    assert.equal(put.status, 200, put.text);
    assert.deepEqual(put.json.data, { k: 'w' });
  });

  test('malformed YAML is 400', async () => {
    assertStatus(await t.api.post(cms, 'metadata: [unclosed', { 'Content-Type': 'application/yaml' }), 400, 'BadRequest', /error converting YAML to JSON/);
  });
});

describe('field validation', () => {
  test('Warn (the default) drops an unknown field and says so in a Warning header', async () => {
    for (const query of ['', '?fieldValidation=Warn']) {
      const name = `warned${query ? '-explicit' : ''}`;
      const res = await t.api.post(`${cms}${query}`, { ...configMap(name), foo: 'bar' });
      assert.equal(res.status, 201, res.text);
      assert.equal(res.headers.warning, '299 - "unknown field \\"foo\\""');
      assert.equal(res.json.foo, undefined);
      assert.equal((await t.api.get(`${cms}/${name}`)).json.foo, undefined);
    }
  });

  test('Warn reports nested unknown fields by path', async () => {
    const body = configMap('warned-nested');
    (body.metadata as any).colour = 'blue';
    const res = await t.api.post(cms, body);
    assert.equal(res.status, 201);
    assert.equal(res.headers.warning, '299 - "unknown field \\"metadata.colour\\""');
  });

  test('Strict refuses an unknown field with 400', async () => {
    assertStatus(
      await t.api.post(`${cms}?fieldValidation=Strict`, { ...configMap('strict'), foo: 'bar' }),
      400,
      'BadRequest',
      'ConfigMap in version "v1" cannot be handled as a ConfigMap: strict decoding error: unknown field "foo"',
    );
    assertStatus(await t.api.get(`${cms}/strict`), 404, 'NotFound');
  });

  test('Ignore drops unknown fields silently', async () => {
    const res = await t.api.post(`${cms}?fieldValidation=Ignore`, { ...configMap('ignored'), foo: 'bar' });
    assert.equal(res.status, 201);
    assert.equal(res.headers.warning, undefined);
    assert.equal(res.json.foo, undefined);
  });

  test('duplicate fields warn under Warn and fail under Strict', async () => {
    const text = `{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"dup"},"data":{"a":"1"},"data":{"a":"2"}}`;
    const strict = await t.api.post(`${cms}?fieldValidation=Strict`, text);
    assertStatus(strict, 400, 'BadRequest', 'ConfigMap in version "v1" cannot be handled as a ConfigMap: strict decoding error: duplicate field "data"');
    const warned = await t.api.post(cms, text);
    assert.equal(warned.status, 201, warned.text);
    assert.equal(warned.headers.warning, '299 - "duplicate field \\"data\\""');
    assert.deepEqual(warned.json.data, { a: '2' });
  });

  test('an unsupported fieldValidation value is 422', async () => {
    assertStatus(
      await t.api.post(`${cms}?fieldValidation=Loud`, configMap('loud')),
      422,
      'Invalid',
      'CreateOptions.meta.k8s.io "" is invalid: fieldValidation: Unsupported value: "Loud": supported values: "", "Ignore", "Strict", "Warn"',
    );
  });
});

describe('gzip', () => {
  /** A request whose answer is left as it came (compressed or not): `bytes` is the body on the wire. */
  const rawRequest = (method: string, path: string, headers: Record<string, string>, body?: string) =>
    request(t.srv.url, path, { method, headers, body, agent: t.srv.adminAgent });
  const rawGet = (path: string, headers: Record<string, string>) => rawRequest('GET', path, headers);

  test('a get or list larger than 128 KiB is gzipped when the client accepts it', async () => {
    // Its own namespace: the list holds this one object of ~150 KiB.
    const big = `/api/v1/namespaces/${await createNamespace(t.api)}/configmaps`;
    await create(t.api, big, configMap('big', { blob: 'x'.repeat(150 * 1024) }));
    for (const path of [`${big}/big`, big, `${big}?limit=10`]) {
      const res = await rawGet(path, { 'Accept-Encoding': 'gzip' });
      assert.equal(res.headers['content-encoding'], 'gzip', path);
      assert.equal(res.headers.vary, 'Accept-Encoding', path);
      assert.match(String(res.headers['content-type']), /^application\/json/, path);
      const doc = JSON.parse(gunzipSync(res.bytes).toString('utf8'));
      assert.match(doc.kind, /^ConfigMap(List)?$/);
      assert.ok(res.bytes.length < 10 * 1024, `${path}: ${res.bytes.length} bytes compressed`);
    }
  });

  test('a large answer to a create, an update or a patch is gzipped too, as upstream writes every object answer', async () => {
    const ns = `/api/v1/namespaces/${await createNamespace(t.api)}/configmaps`;
    const json = { 'Content-Type': 'application/json', 'Accept-Encoding': 'gzip' };
    const object = configMap('big', { blob: 'c'.repeat(150 * 1024) });
    const created = await rawRequest('POST', ns, json, JSON.stringify(object));
    assert.equal(created.status, 201);
    assert.equal(created.headers['content-encoding'], 'gzip');
    const stored = JSON.parse(gunzipSync(created.bytes).toString('utf8'));
    assert.equal(stored.metadata.name, 'big');
    const updated = await rawRequest('PUT', `${ns}/big`, json, JSON.stringify({ ...stored, data: { blob: 'u'.repeat(150 * 1024) } }));
    assert.equal(updated.status, 200);
    assert.equal(updated.headers['content-encoding'], 'gzip');
    assert.equal(JSON.parse(gunzipSync(updated.bytes).toString('utf8')).data.blob[0], 'u');
    const patched = await rawRequest('PATCH', `${ns}/big`, { ...json, 'Content-Type': 'application/merge-patch+json' }, JSON.stringify({ metadata: { labels: { p: '1' } } }));
    assert.equal(patched.status, 200);
    assert.equal(patched.headers['content-encoding'], 'gzip');
    assert.equal(JSON.parse(gunzipSync(patched.bytes).toString('utf8')).metadata.labels.p, '1');
    // A small write's answer stays plain.
    const small = await rawRequest('POST', ns, json, JSON.stringify(configMap('small', { a: '1' })));
    assert.equal(small.status, 201);
    assert.equal(small.headers['content-encoding'], undefined);
    assert.equal(JSON.parse(small.bytes.toString('utf8')).metadata.name, 'small');
  });

  test('a watch stays plain even with large events: gzip would hold them back', async () => {
    const ns = `/api/v1/namespaces/${await createNamespace(t.api)}/configmaps`;
    await create(t.api, ns, configMap('big', { blob: 'w'.repeat(150 * 1024) }));
    const res = await rawGet(`${ns}?watch=1&timeoutSeconds=1`, { 'Accept-Encoding': 'gzip' });
    assert.equal(res.status, 200);
    assert.equal(res.headers['content-encoding'], undefined);
    const event = JSON.parse(res.bytes.toString('utf8').split('\n')[0]);
    assert.equal(event.type, 'ADDED');
    assert.equal(event.object.metadata.name, 'big');
  });

  test('a large non-resource answer is gzipped too (the OpenAPI document)', async () => {
    const res = await rawGet('/openapi/v2', { 'Accept-Encoding': 'gzip', Accept: 'application/json' });
    assert.equal(res.headers['content-encoding'], 'gzip');
    assert.equal(JSON.parse(gunzipSync(res.bytes).toString('utf8')).swagger, '2.0');
  });

  test('over HTTP/2 (kubectl and client-go): large answers gzipped, a buffered get and a streamed list alike', async () => {
    const big = `/api/v1/namespaces/${await createNamespace(t.api)}/configmaps`;
    await create(t.api, big, configMap('big', { blob: 'h'.repeat(150 * 1024) }));
    const session = await connectH2(t.srv.url, { ca: t.srv.ca, cert: readFileSync(path.join(t.srv.dataDir, 'pki', 'admin.crt'), 'utf8'), key: readFileSync(path.join(t.srv.dataDir, 'pki', 'admin.key'), 'utf8') });
    try {
      const rawH2 = (p: string) =>
        new Promise<{ headers: http2.IncomingHttpHeaders; body: Buffer }>((resolve, reject) => {
          const stream = session.request({ ':path': p, accept: 'application/json', 'accept-encoding': 'gzip' });
          let headers: http2.IncomingHttpHeaders = {};
          const chunks: Buffer[] = [];
          stream.on('response', (h) => (headers = h));
          stream.on('data', (c: Buffer) => chunks.push(c));
          stream.on('end', () => resolve({ headers, body: Buffer.concat(chunks) }));
          stream.on('error', reject);
        });
      for (const p of [`${big}/big`, big]) {
        const res = await rawH2(p);
        assert.equal(res.headers[':status'], 200, p);
        assert.equal(res.headers['content-encoding'], 'gzip', p);
        assert.match(JSON.parse(gunzipSync(res.body).toString('utf8')).kind, /^ConfigMap(List)?$/);
      }
      const small = await rawH2(`${cms}/shown`);
      assert.equal(small.headers['content-encoding'], undefined);
      assert.equal(JSON.parse(small.body.toString('utf8')).kind, 'ConfigMap');
    } finally {
      session.close();
    }
  });

  test('a smaller answer stays plain, as upstream leaves answers up to 128 KiB', async () => {
    for (const path of [`${cms}/shown`, cms]) {
      const res = await rawGet(path, { 'Accept-Encoding': 'gzip' });
      assert.equal(res.headers['content-encoding'], undefined, path);
      assert.equal(res.headers.vary, undefined, path);
      assert.match(JSON.parse(res.bytes.toString('utf8')).kind, /^ConfigMap(List)?$/);
    }
  });

  test('without Accept-Encoding: gzip the body is plain', async () => {
    const big = `/api/v1/namespaces/${await createNamespace(t.api)}/configmaps`;
    await create(t.api, big, configMap('big', { blob: 'y'.repeat(150 * 1024) }));
    const variants: Record<string, string>[] = [{}, { 'Accept-Encoding': 'br, deflate' }];
    for (const headers of variants) {
      const res = await rawGet(`${big}/big`, headers);
      assert.equal(res.headers['content-encoding'], undefined);
      assert.equal(JSON.parse(res.bytes.toString('utf8')).kind, 'ConfigMap');
    }
  });
});

test('null fields in a body are unset, as typed decoding leaves them; nothing null is stored or returned', async () => {
  const res = await t.api.post(cms, { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'nulls', labels: null, annotations: { a: null } }, data: null, immutable: null });
  assert.equal(res.status, 201, res.text);
  assert.equal('data' in res.json, false);
  assert.equal('immutable' in res.json, false);
  assert.equal('labels' in res.json.metadata, false);
  assert.deepEqual(res.json.metadata.annotations, { a: '' });
  const stored = (await t.api.get(`${cms}/nulls`)).json;
  assert.equal('data' in stored, false);
});
