import assert from 'node:assert/strict';
import https from 'node:https';
import { after, before, describe, test } from 'node:test';
import { configMap, createNamespace, eventually, type Api } from '../helpers/fixtures.ts';
import { client, request, type Reply } from '../helpers/http.ts';
import { lockObjectsTable } from '../helpers/database.ts';
import { startTestServer, type TestServer } from '../helpers/server.ts';

const TOO_MANY = 'Too many requests, please try again later.\n';

/** Sends `probe` until it is answered 429 (the held requests have taken their places by then). */
async function until429(probe: () => Promise<Reply>): Promise<Reply> {
  return eventually(async () => {
    const res = await probe();
    return res.status === 429 ? res : undefined;
  }, 'a request to be refused with 429');
}

function assertTooMany(res: Reply): void {
  assert.equal(res.status, 429, res.text);
  assert.equal(res.text, TOO_MANY);
  assert.equal(res.headers['retry-after'], '1');
  assert.equal(res.headers['content-type'], 'text/plain; charset=utf-8');
}

describe('--max-requests-inflight=2 --max-mutating-requests-inflight=1', () => {
  let srv: TestServer;
  let admin: Api;
  let anonymous: Api;
  let cms: string;
  let version: string;
  before(async () => {
    srv = await startTestServer(['--enable-priority-and-fairness=false', '--max-requests-inflight=2', '--max-mutating-requests-inflight=1', '--authorization-mode=AlwaysAllow', '--leader-elect=false']);
    admin = client(srv.url, srv.adminAgent);
    anonymous = client(srv.url, srv.anonymousAgent);
    const ns = await createNamespace(admin);
    cms = `/api/v1/namespaces/${ns}/configmaps`;
    version = (await admin.post(cms, configMap('held', { k: 'v' }))).json.metadata.resourceVersion;
  });
  after(async () => {
    await srv.stop();
  });

  test('a read past the limit is answered 429 with Retry-After; masters, writes and watches are still served', async () => {
    const lock = await lockObjectsTable(srv.db.url);
    let held: Promise<Reply>[] = [];
    try {
      held = [anonymous.get(`${cms}/held`), anonymous.get(cms)];
      const refused = await until429(() => anonymous.get('/version'));
      assertTooMany(refused);
      assertTooMany(await anonymous.get(`${cms}/held`));
      // system:masters is always served; mutating requests have their own limit; watches are not counted.
      assert.equal((await admin.get('/version')).status, 200);
      assert.notEqual((await anonymous.post('/version', {})).status, 429);
      // Long-running paths are not counted either (upstream's profiling endpoints; not served here).
      assert.equal((await anonymous.get('/debug/pprof/profile')).status, 404);
      const watch = await new Promise<number>((resolve, reject) => {
        const req = https.request(new URL(`${cms}?watch=true&resourceVersion=${version}`, srv.url), { agent: srv.anonymousAgent }, (res) => {
          resolve(res.statusCode ?? 0);
          req.destroy();
        });
        req.on('error', reject);
        req.end();
      });
      assert.equal(watch, 200);
    } finally {
      await lock.release();
    }
    for (const res of await Promise.all(held)) assert.equal(res.status, 200, res.text);
    // The places are free again once the held responses are over.
    assert.equal((await anonymous.get('/version')).status, 200);
    assert.equal((await anonymous.get(`${cms}/held`)).status, 200);
  });

  test('a write past the mutating limit is answered 429 while reads are served', async () => {
    const lock = await lockObjectsTable(srv.db.url);
    let held: Promise<Reply> | undefined;
    try {
      held = anonymous.post(cms, configMap('slow-create'));
      assertTooMany(await until429(() => anonymous.post('/version', {})));
      assertTooMany(await anonymous.post(cms, configMap('refused')));
      assertTooMany(await anonymous.delete(`${cms}/held`));
      assert.equal((await anonymous.get('/version')).status, 200);
      assert.equal((await request(srv.url, '/version', { method: 'POST', body: {}, agent: srv.adminAgent })).status !== 429, true);
    } finally {
      await lock.release();
    }
    assert.equal((await held!).status, 201);
    assert.equal((await anonymous.get(`${cms}/refused`)).status, 404, 'the refused create did nothing');
    assert.equal((await anonymous.post(cms, configMap('after'))).status, 201);
  });

  test('a whole list holds its place until its response is over: a client that stops reading keeps it', { timeout: 60_000 }, async () => {
    const path = `/api/v1/namespaces/${await createNamespace(admin)}/configmaps`;
    const big = 'x'.repeat(1024 * 1024);
    for (let i = 0; i < 16; i += 4) {
      const batch = [0, 1, 2, 3].map((j) => admin.post(path, configMap(`big-${i + j}`, { k: big })));
      for (const res of await Promise.all(batch)) assert.equal(res.status, 201, res.text);
    }
    const agent = new https.Agent({ ...(srv.anonymousAgent.options as https.AgentOptions), keepAlive: false });
    const stalled = await Promise.all(
      [0, 1].map(
        () =>
          new Promise<ReturnType<typeof https.request>>((resolve, reject) => {
            const req = https.request(new URL(path, srv.url), { agent }, (res) => {
              assert.equal(res.statusCode, 200);
              res.pause();
              resolve(req);
            });
            req.on('error', () => undefined);
            req.once('error', reject);
            req.end();
          }),
      ),
    );
    assertTooMany(await anonymous.get('/version'));
    for (const req of stalled) req.destroy();
    await eventually(async () => (await anonymous.get('/version')).status === 200, 'the places to be given back when the clients left');
    agent.destroy();
  });
});

describe('--max-requests-inflight=0 --max-mutating-requests-inflight=0', () => {
  let srv: TestServer;
  let anonymous: Api;
  let cms: string;
  before(async () => {
    srv = await startTestServer(['--enable-priority-and-fairness=false', '--max-requests-inflight=0', '--max-mutating-requests-inflight=0', '--authorization-mode=AlwaysAllow', '--leader-elect=false']);
    const admin = client(srv.url, srv.adminAgent);
    cms = `/api/v1/namespaces/${await createNamespace(admin)}/configmaps`;
    anonymous = client(srv.url, srv.anonymousAgent);
  });
  after(async () => {
    await srv.stop();
  });

  test('0 means no limit', async () => {
    const lock = await lockObjectsTable(srv.db.url);
    let held: Promise<Reply>[] = [];
    try {
      held = [...Array.from({ length: 4 }, () => anonymous.get(cms)), ...Array.from({ length: 3 }, (_, i) => anonymous.post(cms, configMap(`c${i}`)))];
      await new Promise((r) => setTimeout(r, 300));
      for (let i = 0; i < 5; i++) assert.equal((await anonymous.get('/version')).status, 200);
      for (let i = 0; i < 5; i++) assert.notEqual((await anonymous.post('/version', {})).status, 429);
    } finally {
      await lock.release();
    }
    for (const res of await Promise.all(held)) assert.ok(res.status === 200 || res.status === 201, res.text);
  });
});
