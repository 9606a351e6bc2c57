import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { client } from '../helpers/http.ts';
import { startTestServer, type TestServer } from '../helpers/server.ts';

let srv: TestServer;
before(async () => {
  srv = await startTestServer();
});
after(async () => {
  await srv.stop();
});

test('deletecollection deletes every match even past one internal page, with a resourceVersion given', async () => {
  const api = client(srv.url, srv.adminAgent);
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
