import assert from 'node:assert/strict';
import { before, test } from 'node:test';
import { configMap, createNamespace } from '../helpers/fixtures.ts';
import { client, type Reply } from '../helpers/http.ts';
import { serveFile } from '../helpers/server.ts';

let base: string;
const t = serveFile([], async () => {
  base = `/api/v1/namespaces/${await createNamespace(t.api)}/configmaps`;
});

/** The Warning header values as the client received them, read back as the UTF-8 text the server sent. */
function warnings(res: Reply): string[] {
  const raw = res.headers.warning;
  const list = raw === undefined ? [] : Array.isArray(raw) ? raw : raw.split(/, (?=299 )/);
  return list.map((v) => Buffer.from(v, 'latin1').toString('utf8'));
}

test('an unknown field named outside Latin-1 is created once, answered 201 with a UTF-8 warning', async () => {
  const res = await t.api.post(base, '{"metadata":{"name":"w1"},"€":1,"日本":2}');
  assert.equal(res.status, 201, res.text);
  assert.deepEqual(warnings(res), ['299 - "unknown field \\"€\\""', '299 - "unknown field \\"日本\\""']);
  const again = await t.api.get(`${base}/w1`);
  assert.equal(again.status, 200);
});

test('an update and a patch with a non-Latin-1 unknown field answer 200 with the warning', async () => {
  const created = await t.api.post(base, configMap('w2'));
  assert.equal(created.status, 201, created.text);
  const put = await t.api.put(`${base}/w2`, JSON.stringify({ ...created.json, 'ключ': 'x' }));
  assert.equal(put.status, 200, put.text);
  assert.deepEqual(warnings(put), ['299 - "unknown field \\"ключ\\""']);
  const patched = await t.api.patch(`${base}/w2`, '{"data":{"a":"1"},"😀":true}', 'application/merge-patch+json');
  assert.equal(patched.status, 200, patched.text);
  assert.deepEqual(warnings(patched), ['299 - "unknown field \\"😀\\""']);
});

test('a field name with control characters is quoted as Go quotes it, and the write succeeds', async () => {
  const res = await t.api.post(base, '{"metadata":{"name":"w3"},"a\\u0007b\\nc\\"d":1}');
  assert.equal(res.status, 201, res.text);
  assert.deepEqual(warnings(res), ['299 - "unknown field \\"a\\\\ab\\\\nc\\\\\\"d\\""']);
});

test('warnings past 4,096 characters in all are cut to 256 characters each, and the write succeeds', async () => {
  const body: Record<string, unknown> = { metadata: { name: 'w4' } };
  for (let i = 0; i < 20; i++) body[`${String(i).padStart(2, '0')}${'é'.repeat(300)}`] = i;
  const res = await t.api.post(base, JSON.stringify(body));
  assert.equal(res.status, 201, res.text);
  const list = warnings(res);
  // 12 fit whole; the 13th passes 4,096, so all are cut to 256 and three more fit before the total is reached again.
  assert.equal(list.length, 16);
  for (const w of list) {
    const text = w.slice('299 - "'.length, -1).replace(/\\(.)/g, '$1');
    assert.equal(Array.from(text).length, 256);
  }
  assert.ok(list[0]!.startsWith('299 - "unknown field \\"00éé'));
});

test('a write whose answer cannot be encoded as asked is refused before it is stored (406 first)', async () => {
  const res = await t.api.post(base, configMap('w5'), { Accept: 'application/x-nothing' });
  assert.equal(res.status, 406, res.text);
  const get = await t.api.get(`${base}/w5`);
  assert.equal(get.status, 404);
});
