import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { configMap, createNamespace, eventually, type Api } from '../helpers/fixtures.ts';
import { client, type Reply } from '../helpers/http.ts';
import { lockObjectsTable } from '../helpers/database.ts';
import { startTestServer, type TestServer } from '../helpers/server.ts';
import { resourceRequest, scrape } from './scrape.ts';

describe('in-flight requests and the ones refused at the limit', () => {
  let srv: TestServer;
  let admin: Api;
  let anonymous: Api;
  let cms: string;
  before(async () => {
    srv = await startTestServer(['--enable-priority-and-fairness=false', '--max-requests-inflight=1', '--max-mutating-requests-inflight=5', '--authorization-mode=AlwaysAllow', '--leader-elect=false']);
    admin = client(srv.url, srv.adminAgent);
    anonymous = client(srv.url, srv.anonymousAgent);
    cms = `/api/v1/namespaces/${await createNamespace(admin)}/configmaps`;
    assert.equal((await admin.post(cms, configMap('held'))).status, 201);
  });
  after(async () => {
    await srv?.stop();
  });

  test('apiserver_current_inflight_requests is the most in flight in the last second; a 429 is counted with the request labels', async () => {
    const get429 = resourceRequest({ verb: 'GET', resource: 'configmaps', scope: 'resource', code: '429' });
    const nonResource429 = { verb: 'GET', dry_run: '', group: '', version: '', resource: '', subresource: '', scope: '', component: 'apiserver', code: '429' };
    const unknown429 = { ...nonResource429, scope: 'namespace', verb: 'LIST' };
    const before = await scrape(admin);
    const lock = await lockObjectsTable(srv.db.url);
    let held: Promise<Reply> | undefined;
    let during;
    try {
      held = anonymous.get(`${cms}/held`);
      await eventually(async () => (await anonymous.get('/version')).status === 429, 'the held read to take the only place');
      assert.equal((await anonymous.get(`${cms}/held`)).status, 429);
      assert.equal((await anonymous.get(`${cms.replace('configmaps', 'nosuchthings')}`)).status, 429);
      // The gauge is published each second, for the second before: two seconds on, the writes of the
      // set-up are out of it and the held read is in. The scrape (system:masters passes the limit)
      // waits for the stored-object counts, which the lock holds up until they are given up as failed.
      await new Promise((r) => setTimeout(r, 2100));
      during = await scrape(admin);
    } finally {
      await lock.release();
    }
    assert.equal((await held!).status, 200);
    assert.equal(during.value('apiserver_current_inflight_requests', { request_kind: 'readOnly' }), 1);
    assert.equal(during.value('apiserver_current_inflight_requests', { request_kind: 'mutating' }), 0);
    assert.equal(during.value('apiserver_storage_objects', { resource: 'configmaps' }), -1, 'a count that could not be read is -1');

    const final = await scrape(admin);
    assert.equal(final.value('apiserver_request_total', get429) - before.value('apiserver_request_total', get429), 1);
    // The refused probes of /version (at least one) and the unknown resource: counted with empty labels.
    assert.ok(final.value('apiserver_request_total', nonResource429) - before.value('apiserver_request_total', nonResource429) >= 1);
    assert.equal(final.value('apiserver_request_total', unknown429) - before.value('apiserver_request_total', unknown429), 1);
    assert.equal(final.sample('apiserver_request_duration_seconds', resourceRequest({ verb: 'GET', resource: 'configmaps', scope: 'resource' }))?.count, '1', 'a refused request is not timed');
    assert.ok(final.value('apiserver_storage_objects', { resource: 'configmaps' }) >= 1, 'counted again once the database answers');
    assert.equal([...final.labelValues()].some((v) => v.includes('nosuchthings')), false);
  });
});

describe('without any in-flight limit', () => {
  let srv: TestServer;
  before(async () => {
    srv = await startTestServer(['--enable-priority-and-fairness=false', '--max-requests-inflight=0', '--max-mutating-requests-inflight=0']);
  });
  after(async () => {
    await srv?.stop();
  });

  test('there is no max-in-flight filter, and no gauge (as upstream)', async () => {
    const s = await scrape(client(srv.url, srv.adminAgent));
    assert.equal(s.family('apiserver_current_inflight_requests')?.metrics.length ?? 0, 0);
  });
});
