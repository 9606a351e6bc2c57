import assert from 'node:assert/strict';
import { after, test } from 'node:test';
import { client } from '../helpers/http.ts';
import { serveFile, startTestServer } from '../helpers/server.ts';

const t = serveFile();

for (const endpoint of ['livez', 'readyz', 'healthz']) {
  test(`/${endpoint} answers ok in plain text, to anyone`, async () => {
    const res = await t.anon.get(`/${endpoint}`);
    assert.equal(res.status, 200);
    assert.equal(res.text, 'ok');
    assert.equal(res.headers['content-type'], 'text/plain; charset=utf-8');
    assert.equal(res.headers['x-content-type-options'], 'nosniff');
  });

  test(`/${endpoint}?verbose lists every check`, async () => {
    const res = await t.anon.get(`/${endpoint}?verbose`);
    assert.equal(res.status, 200);
    const lines = res.text.trimEnd().split('\n');
    assert.equal(lines[0], '[+]ping ok');
    assert.ok(lines.includes('[+]postgres ok'), res.text);
    assert.equal(lines[lines.length - 1], `${endpoint} check passed`);
  });
}

test('/readyz lists the shutdown check', async () => {
  const res = await t.anon.get('/readyz?verbose');
  assert.ok(res.text.includes('[+]shutdown ok\n'));
});

test('exclude skips a check and says so; verbose and exclude combine', async () => {
  const res = await t.anon.get('/readyz?verbose&exclude=postgres');
  assert.equal(res.status, 200);
  assert.ok(res.text.includes('[+]postgres excluded: ok\n'), res.text);
  assert.ok(!res.text.includes('[+]postgres ok'));
  const quiet = await t.anon.get('/readyz?exclude=postgres');
  assert.equal(quiet.text, 'ok');
});

test('excluding an unknown check warns in the verbose listing', async () => {
  const res = await t.anon.get('/livez?verbose&exclude=nope');
  assert.equal(res.status, 200);
  assert.ok(res.text.includes('warn: some health checks cannot be excluded: no matches for "nope"\n'), res.text);
});

test('one check by path', async () => {
  for (const path of ['/readyz/postgres', '/livez/ping', '/healthz/log', '/readyz/poststarthook/bootstrap-namespaces']) {
    const res = await t.api.get(path);
    assert.equal(res.status, 200, path);
    assert.equal(res.text, 'ok');
  }
});

test('an unknown check is 404', async () => {
  for (const path of ['/readyz/nope', '/livez/etcd-of-course-not', '/healthz/x']) {
    const res = await t.api.get(path);
    assert.equal(res.status, 404, path);
  }
});

test('anonymous reaches /livez, /readyz and /healthz but not their checks (system:public-info-viewer)', async () => {
  for (const path of ['/livez/ping', '/healthz/ping', '/readyz/ping', '/readyz/postgres', '/livez/nope']) {
    const res = await t.anon.get(path);
    assert.equal(res.status, 403, path);
    assert.equal(res.json.message, `forbidden: User "system:anonymous" cannot get path "${path}"`);
  }
  for (const path of ['/version', '/version/']) assert.equal((await t.anon.get(path)).status, 200, path);
});

test('readyz fails, naming postgres, once the database is gone; livez keeps answering', async () => {
  const own = await startTestServer();
  try {
    const c = client(own.url, own.adminAgent);
    assert.equal((await c.get('/readyz')).status, 200);
    await own.db.drop();
    const ready = await c.get('/readyz?verbose');
    assert.equal(ready.status, 500);
    assert.match(ready.text, /^\[-\]postgres failed: reason withheld$/m);
    assert.match(ready.text, /readyz check failed/);
    assert.equal((await c.get('/readyz/ping')).status, 200);
    // Requests that need the database answer 503 with Retry-After, which clients retry, not a 500.
    const read = await c.get('/api/v1/namespaces/default/configmaps/x');
    assert.equal(read.status, 503, read.text);
    assert.equal(read.json.reason, 'ServiceUnavailable');
    assert.equal(read.headers['retry-after'], '1');
    const write = await c.post('/api/v1/namespaces', { metadata: { name: 'nowhere' } });
    assert.equal(write.status, 503, write.text);
  } finally {
    await own.stop().catch(() => undefined);
  }
});
