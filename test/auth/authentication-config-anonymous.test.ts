/**
 * The authentication configuration's `anonymous` section: enabled with conditions lets requests
 * without credentials through on those exact paths only; disabled refuses them everywhere.
 */
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { writeAuthenticationConfig } from '../helpers/authentication-config-file.ts';
import { client } from '../helpers/http.ts';
import { startTestServer, type TestServer } from '../helpers/server.ts';

const dir = mkdtempSync(path.join(tmpdir(), 'pgkube-authn-anonymous-'));
after(() => rmSync(dir, { recursive: true, force: true }));

/** A server whose file has `anonymous`; the test reads it without credentials. */
function serverWithAnonymous(anonymous: unknown): () => { srv: TestServer; anon: ReturnType<typeof client>; admin: ReturnType<typeof client> } {
  let srv: TestServer | undefined;
  before(async () => {
    const file = path.join(dir, `anonymous-${Math.random().toString(36).slice(2)}.yaml`);
    writeAuthenticationConfig(file, { anonymous });
    srv = await startTestServer([`--authentication-config=${file}`]);
  });
  after(async () => {
    await srv?.stop();
  });
  return () => ({ srv: srv!, anon: client(srv!.url, srv!.anonymousAgent), admin: client(srv!.url, srv!.adminAgent) });
}

describe('anonymous enabled with conditions', () => {
  const s = serverWithAnonymous({ enabled: true, conditions: [{ path: '/livez' }, { path: '/healthz' }] });

  it('is anonymous on exactly the listed paths, whatever the query', async () => {
    assert.equal((await s().anon.get('/livez')).status, 200);
    assert.equal((await s().anon.get('/healthz?verbose')).status, 200);
  });

  it('answers 401 elsewhere, also on paths below a listed one', async () => {
    for (const p of ['/version', '/api', '/livez/ping', '/readyz']) {
      const res = await s().anon.get(p);
      assert.equal(res.status, 401, p);
      assert.equal(res.json?.reason, 'Unauthorized', p);
    }
  });

  it('leaves requests with credentials alone', async () => {
    assert.equal((await s().admin.get('/version')).status, 200);
  });
});

describe('anonymous disabled in the file', () => {
  const s = serverWithAnonymous({ enabled: false });

  it('refuses requests without credentials everywhere', async () => {
    assert.equal((await s().anon.get('/livez')).status, 401);
    assert.equal((await s().anon.get('/version')).status, 401);
  });
});

describe('anonymous enabled without conditions', () => {
  const s = serverWithAnonymous({ enabled: true });

  it('is anonymous everywhere (what it may do is authorization\'s)', async () => {
    assert.equal((await s().anon.get('/version')).status, 200);
    assert.equal((await s().anon.get('/api/v1/namespaces')).status, 403);
  });
});
