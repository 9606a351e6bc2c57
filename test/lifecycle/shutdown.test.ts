import assert from 'node:assert/strict';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import https from 'node:https';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { test } from 'node:test';
import { createTestDatabase } from '../helpers/database.ts';
import { client } from '../helpers/http.ts';
import { startServerProcess } from '../helpers/server-process.ts';
import { openWatch } from '../helpers/watch-stream.ts';

test('SIGTERM closes watches cleanly, lets in-flight requests finish and exits 0', { timeout: 60_000 }, async () => {
  const db = await createTestDatabase('pgkube_shutdown');
  const dataDir = await mkdtemp(path.join(tmpdir(), 'pgkube-shutdown-'));
  try {
    const srv = await startServerProcess(db.url, dataDir);
    const pki = path.join(dataDir, 'pki');
    const [ca, cert, key] = await Promise.all(['ca.crt', 'admin.crt', 'admin.key'].map((f) => readFile(path.join(pki, f), 'utf8')));
    const agent = new https.Agent({ ca, cert, key });
    const c = client(srv.url, agent);
    assert.equal((await c.post('/api/v1/namespaces/default/configmaps', { metadata: { name: 'before' } })).status, 201);

    const events: string[] = [];
    const watch = openWatch(srv.url, '/api/v1/namespaces/default/configmaps?watch=1', agent, (ev) => events.push(ev.type));
    for (let i = 0; i < 50 && events.length === 0; i++) await new Promise((r) => setTimeout(r, 20));
    assert.deepEqual(events, ['ADDED']);

    const code = srv.stop();
    // The watch ends as a complete response (not a reset connection): done resolves, it does not reject.
    await watch.done;
    assert.equal(await code, 0);
    agent.destroy();
  } finally {
    await db.drop();
    await rm(dataDir, { recursive: true, force: true });
  }
});

test('--shutdown-delay-duration keeps serving with readyz failing before the server closes', { timeout: 30_000 }, async () => {
  const { startTestServer } = await import('../helpers/server.ts');
  const srv = await startTestServer(['--shutdown-delay-duration=1500ms']);
  const c = client(srv.url, srv.anonymousAgent);
  assert.equal((await c.get('/readyz')).status, 200);
  const stopping = srv.stop();
  await new Promise((r) => setTimeout(r, 200));
  const ready = await c.get('/readyz?verbose');
  assert.equal(ready.status, 500);
  assert.match(ready.text, /^\[-\]shutdown failed: reason withheld$/m);
  assert.equal((await c.get('/livez')).status, 200, 'still live while draining');
  await stopping;
});
