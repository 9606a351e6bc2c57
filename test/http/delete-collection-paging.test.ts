import assert from 'node:assert/strict';
import { test } from 'node:test';
import { client } from '../helpers/http.ts';
import { serveFile } from '../helpers/server.ts';

const t = serveFile();

test('deletecollection deletes every match even past one internal page, with a resourceVersion given', async () => {
  const api = client(t.srv.url, t.srv.adminAgent);
  await api.post('/api/v1/namespaces', { metadata: { name: 'many' } });
  const base = '/api/v1/namespaces/many/configmaps';
  const created = await Promise.all(
    Array.from({ length: 620 }, (_, i) => api.post(base, { metadata: { name: `cm-${String(i).padStart(4, '0')}`, labels: { batch: i % 10 === 0 ? 'keep' : 'drop' } } })),
  );
  assert.ok(created.every((r) => r.status === 201));
  const rv = (await api.get(base)).json.metadata.resourceVersion;
  const res = await api.delete(`${base}?labelSelector=batch%3Ddrop&resourceVersion=${rv}&resourceVersionMatch=NotOlderThan`);
  assert.equal(res.status, 200, res.text);
  assert.equal(res.json.kind, 'ConfigMapList');
  assert.equal(res.json.items.length, 558);
  const left = await api.get(base);
  assert.equal(left.json.items.length, 62);
  assert.ok(left.json.items.every((o: any) => o.metadata.labels.batch === 'keep'));
});

async function threeConfigMaps(ns: string): Promise<string> {
  const api = client(t.srv.url, t.srv.adminAgent);
  assert.equal((await api.post('/api/v1/namespaces', { metadata: { name: ns } })).status, 201);
  const base = `/api/v1/namespaces/${ns}/configmaps`;
  for (const name of ['a', 'b', 'c']) assert.equal((await api.post(base, { metadata: { name } })).status, 201);
  return base;
}

test('deletecollection with a continue token that does not decode is 400 and deletes nothing', async () => {
  const api = client(t.srv.url, t.srv.adminAgent);
  const base = await threeConfigMaps('bad-continue');
  const res = await api.delete(`${base}?continue=garbage`);
  assert.equal(res.status, 400, res.text);
  assert.equal(res.json.reason, 'BadRequest');
  assert.equal(res.json.message, "invalid continue token: continue key is not valid: invalid character '\\u0081' looking for beginning of value");
  const bad64 = await api.delete(`${base}?continue=a*b`);
  assert.equal(bad64.status, 400, bad64.text);
  assert.equal(bad64.json.message, 'invalid continue token: continue key is not valid: illegal base64 data at input byte 1');
  assert.equal((await api.get(base)).json.items.length, 3);
});

test('deletecollection with limit deletes one page and hands back the continue token for the rest', async () => {
  const api = client(t.srv.url, t.srv.adminAgent);
  const base = await threeConfigMaps('limited');
  const first = await api.delete(`${base}?limit=1`);
  assert.equal(first.status, 200, first.text);
  assert.deepEqual(first.json.items.map((o: any) => o.metadata.name), ['a']);
  assert.ok(first.json.metadata.continue, 'a continue token for the rest');
  assert.deepEqual((await api.get(base)).json.items.map((o: any) => o.metadata.name), ['b', 'c']);
  const rest = await api.delete(`${base}?continue=${encodeURIComponent(first.json.metadata.continue)}`);
  assert.equal(rest.status, 200, rest.text);
  assert.deepEqual(rest.json.items.map((o: any) => o.metadata.name), ['b', 'c']);
  assert.equal(rest.json.metadata.continue, undefined);
  assert.equal((await api.get(base)).json.items.length, 0);
});
