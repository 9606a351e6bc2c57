import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { configMap, create, type Api } from '../helpers/fixtures.ts';
import { client } from '../helpers/http.ts';
import { startTestServer, type TestServer } from '../helpers/server.ts';

/**
 * A watch the storage cannot start (PostgreSQL gone) is answered with its status code before any
 * stream starts, as kube-apiserver answers a watch its storage cannot serve: never a 200 with an
 * empty stream. The same 503 with Retry-After as every other request then, whether the watch asks
 * for a resourceVersion (history replay) or not (the current objects first).
 */
let srv: TestServer;
let api: Api;
const CMS = '/api/v1/namespaces/default/configmaps';
let version: string;

before(async () => {
  srv = await startTestServer();
  api = client(srv.url, srv.adminAgent);
  await create(api, CMS, configMap('w1'));
  version = (await api.get(CMS)).json.metadata.resourceVersion;
  await srv.db.drop();
});
after(async () => {
  await srv.stop().catch(() => undefined);
});

for (const [what, query] of [
  ['from a resourceVersion', () => `resourceVersion=${version}`],
  ['without a resourceVersion', () => ''],
  ['from resourceVersion 0', () => 'resourceVersion=0'],
  ['with sendInitialEvents', () => 'sendInitialEvents=true&resourceVersionMatch=NotOlderThan&allowWatchBookmarks=true'],
] as const) {
  test(`a watch ${what} while PostgreSQL is down answers 503 with Retry-After, not a stream`, async () => {
    const res = await api.get(`${CMS}?watch=1&${query()}`, { Accept: 'application/json' });
    assert.equal(res.status, 503, res.text);
    assert.equal(res.json.kind, 'Status');
    assert.equal(res.json.reason, 'ServiceUnavailable');
    assert.equal(res.headers['retry-after'], '1');
    assert.notEqual(res.headers['transfer-encoding'], 'chunked');
  });
}
