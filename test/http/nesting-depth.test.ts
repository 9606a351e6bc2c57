import assert from 'node:assert/strict';
import { test } from 'node:test';
import { encodeProtobufObject } from '../../src/codecs/protobuf/index.ts';
import { configMap, createNamespace } from '../helpers/fixtures.ts';
import { type Reply } from '../helpers/http.ts';
import { serveFile } from '../helpers/server.ts';

let base: string;
const t = serveFile([], async () => {
  base = `/api/v1/namespaces/${await createNamespace(t.api)}/configmaps`;
  assert.equal((await t.api.post(base, configMap('target', { a: '1' }))).status, 201);
});

/** `levels` nested arrays: `[[…]]`. */
const arrays = (levels: number) => '['.repeat(levels) + ']'.repeat(levels);
/** `levels` nested objects: `{"a":{"a":…1…}}`. */
const objects = (levels: number) => '{"a":'.repeat(levels) + '1' + '}'.repeat(levels);
/** A fieldsV1 value nested `levels` deep as a JSON value of its own. */
const managedFields = (levels: number) => `[{"manager":"m","operation":"Update","fieldsType":"FieldsV1","fieldsV1":${objects(levels)}}]`;
/** A valid field set nested `levels` deep, which the server keeps as the client sent it. */
const fieldSet = (levels: number) => '{"f:a":'.repeat(levels) + '{}' + '}'.repeat(levels);

const VERY_DEEP = 1_000_000;

function assertBadRequest(res: Reply, message: RegExp): void {
  assert.equal(res.status, 400, res.text.slice(0, 400));
  assert.equal(res.json.reason, 'BadRequest');
  assert.match(res.json.message, message);
}

// Depth counts every open brace and bracket of the document, as Go's scanner does: the body below is
// `{"metadata":…,"x":<levels - 1>}`, so it nests exactly `levels` deep.
const withUnknownField = (name: string, levels: number) => `{"metadata":{"name":"${name}"},"x":${arrays(levels - 1)}}`;

test('a JSON body nested 10,000 levels in an unknown field is created (the field dropped with a warning)', async () => {
  const res = await t.api.post(base, withUnknownField('deep-10000', 10_000));
  assert.equal(res.status, 201, res.text.slice(0, 400));
  assert.equal(res.json.x, undefined);
  assert.match(String(res.headers.warning), /unknown field \\"x\\"/);
});

test('a JSON body nested 10,001 levels, or a million, is 400 exceeded max depth, as Go\'s decoder says', async () => {
  for (const levels of [10_001, VERY_DEEP]) {
    const res = await t.api.post(base, withUnknownField(`deep-${levels}`, levels));
    assertBadRequest(res, /^the object provided is unrecognized \(must be of type ConfigMap\): couldn't get version\/kind; json parse error: invalid character '\[' exceeded max depth \(\{"metadata/);
  }
});

test('a malformed JSON body nested a million levels deep is 400, not a stack overflow', async () => {
  assertBadRequest(await t.api.post(base, `{"metadata":{"name":"m"},"x":${'['.repeat(VERY_DEEP)}`), /exceeded max depth/);
  assertBadRequest(await t.api.post(base, `{"metadata":{"name":"m"},"x":${'[1,'.repeat(5_000)}}`), /invalid character '}' looking for beginning of value/);
});

test('managedFields[].fieldsV1 up to the object limit is kept and read back in every encoding', async () => {
  const create = await t.api.post(base, `{"metadata":{"name":"fields-ok","managedFields":${managedFields(995)}}}`);
  assert.equal(create.status, 201, create.text.slice(0, 400));
  for (const accept of ['application/json', 'application/yaml', 'application/vnd.kubernetes.protobuf', 'application/json;as=Table;v=v1;g=meta.k8s.io']) {
    const res = await t.api.get(`${base}/fields-ok`, { Accept: accept });
    assert.equal(res.status, 200, `${accept}: ${res.text.slice(0, 200)}`);
    const list = await t.api.get(base, { Accept: accept });
    assert.equal(list.status, 200, `${accept}: ${list.text.slice(0, 200)}`);
  }
});

test('managedFields[].fieldsV1 deeper than 1,000 levels, or 10,000, is 400 and nothing is stored', async () => {
  for (const levels of [1_000, 9_990]) {
    const res = await t.api.post(base, `{"metadata":{"name":"fields-deep","managedFields":${managedFields(levels)}}}`);
    assertBadRequest(res, /^the object is nested more than 1000 levels deep/);
    const put = await t.api.put(`${base}/target`, `{"metadata":{"name":"target","managedFields":${managedFields(levels)}}}`);
    assertBadRequest(put, /^the object is nested more than 1000 levels deep/);
  }
  assert.equal((await t.api.get(`${base}/fields-deep`)).status, 404);
});

test('a YAML body nested 10,000 levels, 10,001 or a million is 400', async () => {
  for (const levels of [10_000, 10_001, VERY_DEEP]) {
    const res = await t.api.post(base, `metadata: {name: y}\nx: ${arrays(levels - 1)}\n`, { 'Content-Type': 'application/yaml' });
    assertBadRequest(res, /error converting YAML to JSON: yaml: .*nesting exceeded maxDepth/);
  }
});

test('a protobuf body whose fieldsV1 nests too deep is 400', async () => {
  let fieldsV1: unknown = 1;
  for (let i = 0; i < 10_000; i++) fieldsV1 = { a: fieldsV1 };
  const body = Buffer.from(encodeProtobufObject({
    apiVersion: 'v1', kind: 'ConfigMap',
    metadata: { name: 'pb-deep', managedFields: [{ manager: 'm', operation: 'Update', fieldsType: 'FieldsV1', fieldsV1 }] },
  }));
  const res = await t.api.post(base, body, { 'Content-Type': 'application/vnd.kubernetes.protobuf' });
  assertBadRequest(res, /^the object is nested more than 1000 levels deep/);
});

const PATCH_TYPES = [
  ['merge patch', 'application/merge-patch+json', (v: string) => `{"metadata":{"labels":{"p":"1"}},"x":${v}}`],
  ['strategic merge patch', 'application/strategic-merge-patch+json', (v: string) => `{"metadata":{"labels":{"p":"1"}},"x":${v}}`],
  ['JSON patch', 'application/json-patch+json', (v: string) => `[{"op":"add","path":"/x","value":${v}}]`],
] as const;

for (const [name, contentType, wrap] of PATCH_TYPES) {
  test(`a ${name} nested 10,000 levels is 400 (past what this server keeps), 10,001 and a million are 400 exceeded max depth`, async () => {
    const at = await t.api.patch(`${base}/target`, wrap(objects(9_990)), contentType);
    assertBadRequest(at, /^the patch is nested more than 1000 levels deep/);
    assertBadRequest(await t.api.patch(`${base}/target`, wrap(objects(10_001)), contentType), /^invalid character '\{' exceeded max depth$/);
    assertBadRequest(await t.api.patch(`${base}/target`, wrap(arrays(VERY_DEEP)), contentType), /^invalid character '\[' exceeded max depth$/);
    const ok = await t.api.patch(`${base}/target`, wrap(objects(900)), contentType);
    assert.equal(ok.status, 200, ok.text.slice(0, 300));
  });
}

test('a JSON patch that puts a deep value under a deep path is bounded as an object', async () => {
  const sent = `[{"manager":"m","operation":"Update","apiVersion":"v1","fieldsType":"FieldsV1","fieldsV1":${fieldSet(900)}}]`;
  const created = await t.api.post(base, `{"metadata":{"name":"jp","managedFields":${sent}}}`);
  assert.equal(created.status, 201, created.text.slice(0, 200));
  const path = '/metadata/managedFields/0/fieldsV1' + '/f:a'.repeat(899);
  const res = await t.api.patch(`${base}/jp`, `[{"op":"replace","path":"${path}","value":${objects(900)}}]`, 'application/json-patch+json');
  assertBadRequest(res, /^the object is nested more than 1000 levels deep/);
});

test('DeleteOptions nested 10,001 levels are 400, and 10,000 levels do not break the delete', async () => {
  assertBadRequest(await t.api.delete(`${base}/target`, `{"x":${arrays(10_000)}}`), /exceeded max depth/);
  const res = await t.api.delete(`${base}/target`, `{"dryRun":["All"],"x":${arrays(9_999)}}`);
  assert.equal(res.status, 200, res.text.slice(0, 300));
});

test('a protobuf body of a million nested unknown groups is 400, not a stack overflow', async () => {
  // The envelope: magic, then Unknown{typeMeta{apiVersion v1, kind ConfigMap}, raw = ConfigMap bytes}.
  const valid = Buffer.from(encodeProtobufObject({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'groups' } }));
  // Field 99 as a start group (tag 99<<3|3), a million times: an unknown field of the ConfigMap message.
  const groups = Buffer.from(Array.from({ length: 1_000_000 }, () => [0x9b, 0x06]).flat());
  const res = await t.api.post(base, Buffer.concat([valid, groups]), { 'Content-Type': 'application/vnd.kubernetes.protobuf' });
  assert.equal(res.status, 400, res.text.slice(0, 300));
});
