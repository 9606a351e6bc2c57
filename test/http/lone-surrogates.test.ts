import assert from 'node:assert/strict';
import { test } from 'node:test';
import { configMap, createNamespace } from '../helpers/fixtures.ts';
import { serveFile } from '../helpers/server.ts';

let base: string;
const t = serveFile([], async () => {
  base = `/api/v1/namespaces/${await createNamespace(t.api)}/configmaps`;
});

const FFFD = '\ufffd';

test('lone surrogates in JSON values and keys are stored as U+FFFD, as Go decodes them', async () => {
  const res = await t.api.post(base, '{"metadata":{"name":"s1","annotations":{"k":"v\\udc00","x":"\\ud83d\\ude00"},' +
    '"managedFields":[{"manager":"m","operation":"Update","apiVersion":"v1","fieldsType":"FieldsV1","fieldsV1":{"f:k\\ud800":{"f:\\udc00":{}}}}]},' +
    '"data":{"high":"a\\ud800b","low":"\\udc00","pair-reversed":"\\udc00\\ud800"}}');
  assert.equal(res.status, 201, res.text);
  const got = await t.api.get(`${base}/s1`);
  assert.equal(got.status, 200);
  assert.deepEqual(got.json.data, { high: `a${FFFD}b`, low: FFFD, 'pair-reversed': `${FFFD}${FFFD}` });
  assert.deepEqual(got.json.metadata.annotations, { k: `v${FFFD}`, x: '😀' });
  // The client's managedFields decode, so they stand (the manager with no time sorts first).
  const m = got.json.metadata.managedFields.find((e: { manager: string }) => e.manager === 'm');
  assert.deepEqual(m.fieldsV1, { [`f:k${FFFD}`]: { [`f:${FFFD}`]: {} } });
});

test('a lone surrogate in an unknown field name is warned about as U+FFFD and the write succeeds', async () => {
  const res = await t.api.post(base, '{"metadata":{"name":"s2"},"\\ud800":1}');
  assert.equal(res.status, 201, res.text);
  assert.equal(Buffer.from(String(res.headers.warning), 'latin1').toString('utf8'), `299 - "unknown field \\"${FFFD}\\""`);
});

test('lone surrogates in an update, a merge patch, a strategic merge patch and a JSON patch are replaced', async () => {
  const created = await t.api.post(base, configMap('s3', { a: '1' }));
  assert.equal(created.status, 201, created.text);
  const put = await t.api.put(`${base}/s3`, JSON.stringify({ ...created.json, data: { a: 'PUT' } }).replace('PUT', '\\ud800'));
  assert.equal(put.status, 200, put.text);
  assert.equal(put.json.data.a, FFFD);
  const merge = await t.api.patch(`${base}/s3`, '{"data":{"m":"\\udfff"}}', 'application/merge-patch+json');
  assert.equal(merge.status, 200, merge.text);
  assert.equal(merge.json.data.m, FFFD);
  const smp = await t.api.patch(`${base}/s3`, '{"metadata":{"labels":{"l":"x"},"annotations":{"s":"\\ud800"}}}', 'application/strategic-merge-patch+json');
  assert.equal(smp.status, 200, smp.text);
  assert.equal(smp.json.metadata.annotations.s, FFFD);
  const jp = await t.api.patch(`${base}/s3`, '[{"op":"add","path":"/data/j","value":"\\udc00x"}]', 'application/json-patch+json');
  assert.equal(jp.status, 200, jp.text);
  assert.equal(jp.json.data.j, `${FFFD}x`);
});

test('a JSON patch whose path names a key with a lone surrogate reaches the U+FFFD key', async () => {
  const created = await t.api.post(base, '{"metadata":{"name":"s4","managedFields":[{"manager":"m","operation":"Update","apiVersion":"v1","fieldsType":"FieldsV1","fieldsV1":{"f:k\\ud800":{}}}]}}');
  assert.equal(created.status, 201, created.text);
  const res = await t.api.patch(`${base}/s4`, '[{"op":"replace","path":"/metadata/managedFields/0/fieldsV1/f:k\\ud800","value":{"f:v":{}}}]', 'application/json-patch+json');
  assert.equal(res.status, 200, res.text);
  assert.equal(res.json.metadata.managedFields[0].manager, 'm');
  assert.deepEqual(res.json.metadata.managedFields[0].fieldsV1, { [`f:k${FFFD}`]: { 'f:v': {} } });
});

test('a YAML body with a surrogate escape is refused with 400, as Go YAML refuses it', async () => {
  const res = await t.api.post(base, 'metadata:\n  name: s5\ndata:\n  a: "\\ud800"\n', { 'Content-Type': 'application/yaml' });
  assert.equal(res.status, 400, res.text);
  assert.equal(res.json.reason, 'BadRequest');
  assert.match(res.json.message, /error converting YAML to JSON: yaml: found invalid Unicode character escape code/);
  const patch = await t.api.patch(`${base}/s4`, 'data:\n  "k\\udc00": x\n', 'application/apply-patch+yaml');
  assert.ok(patch.status >= 400 && patch.status < 500, patch.text);
});

test('a JSON body that is not UTF-8 is stored with U+FFFD for the bad bytes', async () => {
  const body = Buffer.concat([Buffer.from('{"metadata":{"name":"s6"},"data":{"a":"x'), Buffer.from([0xff, 0xed, 0xa0, 0x80]), Buffer.from('"}}')]);
  const res = await t.api.post(base, body);
  assert.equal(res.status, 201, res.text);
  assert.equal(res.json.data.a, `x${FFFD.repeat(4)}`);
});
