import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { assertStatus, configMap, type Api } from '../helpers/fixtures.ts';
import { client } from '../helpers/http.ts';
import { startTestServer, type TestServer } from '../helpers/server.ts';

let srv: TestServer;
let api: Api;
before(async () => {
  srv = await startTestServer(['--enable-admission-plugins=AlwaysDeny']);
  api = client(srv.url, srv.adminAgent);
});
after(async () => {
  await srv.stop();
});

test('--enable-admission-plugins=AlwaysDeny refuses every write and no read', async () => {
  assertStatus(
    await api.post('/api/v1/namespaces/default/configmaps', configMap('denied')),
    403,
    'Forbidden',
    'configmaps "denied" is forbidden: admission control is denying all modifications',
  );
  assert.equal((await api.get('/api/v1/namespaces/default/configmaps')).status, 200);
  const ns = (await api.get('/api/v1/namespaces/default')).json;
  assertStatus(await api.put('/api/v1/namespaces/default', ns), 403, 'Forbidden');
});
