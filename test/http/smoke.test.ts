import assert from 'node:assert/strict';
import { test } from 'node:test';
import { serveFile } from '../helpers/server.ts';

const t = serveFile();

test('bootstrap namespaces exist at first start', async () => {
  const res = await t.api.get('/api/v1/namespaces');
  assert.equal(res.status, 200);
  // Besides the namespace this file made for itself.
  const names = res.json.items.map((n: any) => n.metadata.name).filter((n: string) => n !== t.ns).sort();
  assert.deepEqual(names, ['default', 'kube-node-lease', 'kube-public', 'kube-system']);
});

test('anonymous requests reach /version and health but nothing else', async () => {
  const anon = t.anon;
  assert.equal((await anon.get('/version')).status, 200);
  assert.equal((await anon.get('/readyz')).status, 200);
  const denied = await anon.get('/api/v1/namespaces');
  assert.equal(denied.status, 403);
  assert.equal(denied.json.reason, 'Forbidden');
  assert.match(denied.json.message, /User "system:anonymous" cannot list resource "namespaces"/);
});
