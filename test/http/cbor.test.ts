import assert from 'node:assert/strict';
import https from 'node:https';
import { describe, test } from 'node:test';
import { decodeCbor, encodeCbor } from '../../src/codecs/cbor/index.ts';
import { assertStatus, configMap, create, createNamespace, secret } from '../helpers/fixtures.ts';
import { serveFile } from '../helpers/server.ts';

const CBOR = 'application/cbor';
const on = serveFile(['--feature-gates=CBORServingAndStorage=true']);
const off = serveFile();

const SELF_DESCRIBED = Buffer.from([0xd9, 0xd9, 0xf7]);

describe('CBOR with the CBORServingAndStorage gate off (the default)', () => {
  test('a CBOR body is refused with 415, naming the types taken', async () => {
    const res = await off.api.post(`/api/v1/namespaces/${off.ns}/configmaps`, encodeCbor(configMap('x')), { 'Content-Type': CBOR });
    assertStatus(res, 415, 'UnsupportedMediaType', 'the body of the request was in an unknown format - accepted media types include: application/json, application/yaml, application/vnd.kubernetes.protobuf');
  });

  test('a CBOR answer is refused with 406, naming the types served', async () => {
    const res = await off.api.get(`/api/v1/namespaces/${off.ns}/configmaps`, { Accept: CBOR });
    assertStatus(res, 406, 'NotAcceptable', 'only the following media types are accepted: application/json, application/yaml, application/vnd.kubernetes.protobuf');
  });
});

describe('CBOR with the gate on', () => {
  test('create from a CBOR body, answered in CBOR: self-described, the same object as JSON', async () => {
    const path = `/api/v1/namespaces/${on.ns}/configmaps`;
    const res = await on.api.post(path, encodeCbor(configMap('from-cbor', { a: '1' })), { 'Content-Type': CBOR, Accept: CBOR });
    assert.equal(res.status, 201, res.text);
    assert.equal(res.headers['content-type'], CBOR);
    assert.deepEqual(res.bytes.subarray(0, 3), SELF_DESCRIBED);
    const decoded = decodeCbor(res.bytes) as any;
    const json = (await on.api.get(`${path}/from-cbor`)).json;
    assert.deepEqual(decoded, json);
  });

  test('JSON in, CBOR out and CBOR in, JSON out: each side is chosen on its own', async () => {
    const path = `/api/v1/namespaces/${on.ns}/configmaps`;
    const a = await on.api.post(path, configMap('json-in'), { Accept: CBOR });
    assert.equal(a.headers['content-type'], CBOR);
    assert.equal((decodeCbor(a.bytes) as any).metadata.name, 'json-in');
    const b = await on.api.post(path, encodeCbor(configMap('cbor-in')), { 'Content-Type': CBOR, Accept: 'application/json' });
    assert.equal(b.status, 201);
    assert.equal(b.json.metadata.name, 'cbor-in');
  });

  test('strings are byte strings, keys sort bytewise, []byte fields are tagged for base64', async () => {
    const path = `/api/v1/namespaces/${on.ns}/secrets`;
    await create(on.api, path, secret('bytes', { data: { k: Buffer.from([0, 1, 255]).toString('base64') } }));
    const res = await on.api.get(`${path}/bytes`, { Accept: CBOR });
    // Map with byte-string keys: "data" (0x44) sorts before "kind" and "metadata".
    const body = res.bytes;
    assert.ok(body.includes(Buffer.from([0x44, ...Buffer.from('data')])));
    // data.k: tag 22 (0xd6) around the raw bytes 00 01 ff.
    assert.ok(body.includes(Buffer.from([0x41, 0x6b, 0xd6, 0x43, 0x00, 0x01, 0xff])), body.toString('hex'));
    assert.equal((decodeCbor(body) as any).data.k, 'AAH/');
    const keys = Object.keys(decodeCbor(body) as object);
    assert.deepEqual(keys, [...keys].sort((x, y) => x.length - y.length || (x < y ? -1 : x > y ? 1 : 0)));
  });

  test('a list in CBOR, streamed and paged', async () => {
    const ns = await createNamespace(on.api);
    const path = `/api/v1/namespaces/${ns}/configmaps`;
    await create(on.api, path, configMap('one'));
    await create(on.api, path, configMap('two'));
    const total = (await on.api.get(path)).json.items.length;
    for (const query of ['', '?limit=1']) {
      const res = await on.api.get(`${path}${query}`, { Accept: CBOR });
      assert.equal(res.status, 200);
      const list = decodeCbor(res.bytes) as any;
      assert.equal(list.kind, 'ConfigMapList');
      assert.equal(list.items.length, query ? 1 : total);
      assert.equal(list.metadata.continue !== undefined, query !== '');
    }
  });

  test('a watch in CBOR is an application/cbor-seq of self-described events', async () => {
    const ns = await createNamespace(on.api);
    const path = `/api/v1/namespaces/${ns}/configmaps`;
    const created = await create(on.api, path, configMap('watched'));
    const bytes = await new Promise<Buffer>((resolve, reject) => {
      const url = new URL(`${path}?watch=true&resourceVersion=${Number(created.metadata.resourceVersion) - 1}&timeoutSeconds=1`, on.srv.url);
      https
        .get(url, { agent: on.srv.adminAgent, headers: { Accept: CBOR } }, (res) => {
          assert.equal(res.headers['content-type'], 'application/cbor-seq');
          const chunks: Buffer[] = [];
          res.on('data', (c: Buffer) => chunks.push(c));
          res.on('end', () => resolve(Buffer.concat(chunks)));
        })
        .on('error', reject);
    });
    assert.deepEqual(bytes.subarray(0, 3), SELF_DESCRIBED);
    // The first event: {"type": "ADDED", "object": <self-described object>} ("type" sorts first).
    const event = Buffer.concat([SELF_DESCRIBED, Buffer.from([0xa2, 0x44]), Buffer.from('type'), Buffer.from([0x45]), Buffer.from('ADDED'), Buffer.from([0x46]), Buffer.from('object'), SELF_DESCRIBED]);
    assert.deepEqual(bytes.subarray(0, event.length), event);
  });

  test('malformed CBOR is a 400 in the decoder’s words', async () => {
    const path = `/api/v1/namespaces/${on.ns}/configmaps`;
    // {"a": 1, "a": 2}
    const dup = Buffer.from([0xa2, 0x61, 0x61, 0x01, 0x61, 0x61, 0x02]);
    assertStatus(await on.api.post(path, dup, { 'Content-Type': CBOR }), 400, 'BadRequest', 'cbor: found duplicate map key "a" at map element index 1');
    assertStatus(await on.api.post(path, Buffer.from([0xa1, 0x61]), { 'Content-Type': CBOR }), 400, 'BadRequest', 'unexpected EOF');
    // A text string that is not UTF-8.
    assertStatus(await on.api.post(path, Buffer.from([0xa1, 0x61, 0x61, 0x61, 0xff]), { 'Content-Type': CBOR }), 400, 'BadRequest', 'cbor: invalid UTF-8 string');
  });

  test('unknown fields in a CBOR body follow fieldValidation', async () => {
    const path = `/api/v1/namespaces/${on.ns}/configmaps?fieldValidation=Strict`;
    const res = await on.api.post(path, encodeCbor({ ...configMap('strict'), bogus: 1 }), { 'Content-Type': CBOR });
    assertStatus(res, 400, 'BadRequest', /unknown field "bogus"/);
  });

  test('a CBOR apply patch is recognised, and waits for server-side apply like the YAML one', async () => {
    const res = await on.api.patch(`/api/v1/namespaces/${on.ns}/configmaps/strict`, encodeCbor(configMap('strict')), 'application/apply-patch+cbor');
    assert.equal(res.status, 415);
  });
});
