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

test('bootstrap namespaces exist at first start', async () => {
  const res = await client(srv.url, srv.adminAgent).get('/api/v1/namespaces');
  assert.equal(res.status, 200);
  const names = res.json.items.map((n: any) => n.metadata.name).sort();
  assert.deepEqual(names, ['default', 'kube-node-lease', 'kube-public', 'kube-system']);
});

test('anonymous requests reach /version and health but nothing else', async () => {
  const anon = client(srv.url, srv.anonymousAgent);
  assert.equal((await anon.get('/version')).status, 200);
  assert.equal((await anon.get('/readyz')).status, 200);
  const denied = await anon.get('/api/v1/namespaces');
  assert.equal(denied.status, 403);
  assert.equal(denied.json.reason, 'Forbidden');
  assert.match(denied.json.message, /User "system:anonymous" cannot list resource "namespaces"/);
});
