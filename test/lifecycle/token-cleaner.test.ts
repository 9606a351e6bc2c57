import assert from 'node:assert/strict';
import { test } from 'node:test';
import { serveFile } from '../helpers/server.ts';

const t = serveFile(['--controllers=*,tokencleaner']);
const b64 = (s: string) => Buffer.from(s).toString('base64');

function tokenSecret(id: string, expiration?: Date) {
  return {
    metadata: { name: `bootstrap-token-${id}`, namespace: 'kube-system' },
    type: 'bootstrap.kubernetes.io/token',
    data: { 'token-id': b64(id), 'token-secret': b64('0123456789abcdef'), ...(expiration ? { expiration: b64(expiration.toISOString()) } : {}) },
  };
}

test('an expiring bootstrap token Secret is deleted within a second of its expiry', async () => {
  const expiry = new Date(Date.now() + 2000);
  assert.equal((await t.api.post('/api/v1/namespaces/kube-system/secrets', tokenSecret('aaaaaa', expiry))).status, 201);
  assert.equal((await t.api.post('/api/v1/namespaces/kube-system/secrets', tokenSecret('bbbbbb'))).status, 201);
  // Still there shortly before expiry.
  await new Promise((r) => setTimeout(r, Math.max(0, expiry.getTime() - Date.now() - 500)));
  assert.equal((await t.api.get('/api/v1/namespaces/kube-system/secrets/bootstrap-token-aaaaaa')).status, 200);
  let goneAt = 0;
  while (Date.now() < expiry.getTime() + 3000) {
    if ((await t.api.get('/api/v1/namespaces/kube-system/secrets/bootstrap-token-aaaaaa')).status === 404) {
      goneAt = Date.now();
      break;
    }
    await new Promise((r) => setTimeout(r, 50));
  }
  assert.ok(goneAt > 0, 'deleted');
  assert.ok(goneAt - expiry.getTime() < 1000, `deleted ${goneAt - expiry.getTime()} ms after expiry`);
  // One without an expiration stays.
  assert.equal((await t.api.get('/api/v1/namespaces/kube-system/secrets/bootstrap-token-bbbbbb')).status, 200);
});

test('an already expired token Secret is deleted; other Secret types are not', async () => {
  const past = new Date(Date.now() - 1000);
  assert.equal((await t.api.post('/api/v1/namespaces/kube-system/secrets', tokenSecret('cccccc', past))).status, 201);
  const opaque = { ...tokenSecret('dddddd', past), type: 'Opaque' };
  assert.equal((await t.api.post('/api/v1/namespaces/kube-system/secrets', opaque)).status, 201);
  let status = 200;
  for (let i = 0; i < 40 && status !== 404; i++) {
    await new Promise((r) => setTimeout(r, 50));
    status = (await t.api.get('/api/v1/namespaces/kube-system/secrets/bootstrap-token-cccccc')).status;
  }
  assert.equal(status, 404);
  assert.equal((await t.api.get('/api/v1/namespaces/kube-system/secrets/bootstrap-token-dddddd')).status, 200);
});

test('a token Secret with an unreadable expiration counts as expired, as upstream', async () => {
  const bad = tokenSecret('eeeeee');
  (bad.data as Record<string, string>).expiration = b64('next tuesday');
  assert.equal((await t.api.post('/api/v1/namespaces/kube-system/secrets', bad)).status, 201);
  let status = 200;
  for (let i = 0; i < 40 && status !== 404; i++) {
    await new Promise((r) => setTimeout(r, 50));
    status = (await t.api.get('/api/v1/namespaces/kube-system/secrets/bootstrap-token-eeeeee')).status;
  }
  assert.equal(status, 404);
});
