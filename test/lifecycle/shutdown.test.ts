import assert from 'node:assert/strict';
import { once, type EventEmitter } from 'node:events';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import type { IncomingMessage } from 'node:http';
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

/** Ends what startTestServer made, for tests that stopped the server themselves. */
async function cleanup(srv: { adminAgent: https.Agent; anonymousAgent: https.Agent; db: { drop(): Promise<void> }; dataDir: string }) {
  srv.adminAgent.destroy();
  srv.anonymousAgent.destroy();
  await srv.db.drop();
  await rm(srv.dataDir, { recursive: true, force: true });
}

/** A ConfigMap create whose body arrives in two parts: in flight until `finish()`. */
function slowCreate(base: string, agent: https.Agent, name: string) {
  const body = JSON.stringify({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name } });
  let finish!: () => void;
  const response = new Promise<{ status: number; headers: Record<string, unknown> }>((resolve, reject) => {
    const req = https.request(`${base}/api/v1/namespaces/default/configmaps`, {
      method: 'POST',
      agent,
      headers: { 'Content-Type': 'application/json', 'Content-Length': String(body.length) },
    }, (res) => {
      res.resume();
      res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers }));
    });
    req.on('error', reject);
    req.write(body.slice(0, 10));
    finish = () => req.end(body.slice(10));
  });
  return { response, finish: () => finish() };
}

/**
 * Resolves once the server has the next request (the slow create) in hand. A fixed sleep was not
 * enough on a loaded machine: a create whose TLS handshake took longer was not yet in flight when
 * the stop began, so the server drained at once and closed its listener.
 */
async function inFlight(srv: { server: { httpServer: EventEmitter } }): Promise<void> {
  await once(srv.server.httpServer, 'request');
  // The server's own request listener was added first and has counted it; one more turn for its middleware.
  await new Promise((r) => setImmediate(r));
}

/** One request on `agent`; resolves with the status, the headers, and whether the body arrived whole. */
function rawRequest(url: string, agent: https.Agent, options: { method?: string; body?: string; headers?: Record<string, string> } = {}) {
  return new Promise<{ status: number; headers: Record<string, unknown>; body: string; complete: boolean }>((resolve, reject) => {
    const req = https.request(url, { agent, method: options.method ?? 'GET', headers: options.headers }, (res) => {
      let body = '';
      res.on('data', (c: Buffer) => (body += c.toString()));
      res.on('close', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body, complete: res.complete }));
    });
    req.on('error', reject);
    req.end(options.body);
  });
}

test('a watch that starts during --shutdown-delay-duration is ended too, and the server stops within seconds', { timeout: 30_000 }, async () => {
  const { startTestServer } = await import('../helpers/server.ts');
  const srv = await startTestServer(['--shutdown-delay-duration=1s']);
  const started = Date.now();
  const stopping = srv.server.stop();
  // Still served during the delay (load balancers have not noticed readyz yet) ...
  const late = await new Promise<IncomingMessage>((resolve, reject) =>
    https.get(`${srv.url}/api/v1/namespaces/default/configmaps?watch=1`, { agent: srv.adminAgent }, resolve).on('error', reject),
  );
  assert.equal(late.statusCode, 200);
  // ... and ended as a complete response when draining begins.
  await new Promise<void>((resolve) => late.on('end', resolve).resume());
  assert.equal(late.complete, true);
  await stopping;
  assert.ok(Date.now() - started < 10_000, `stopped after ${Date.now() - started} ms (the shutdown timeout is 60 s)`);
  await cleanup(srv);
});

test('after draining begins, a kept-alive connection serves no new request: its last response closes it, a re-watch is refused', { timeout: 30_000 }, async () => {
  const { startTestServer } = await import('../helpers/server.ts');
  const srv = await startTestServer();
  const cert = await readFile(path.join(srv.dataDir, 'pki/admin.crt'));
  const key = await readFile(path.join(srv.dataDir, 'pki/admin.key'));
  // One kept-alive socket for everything, as an HTTP/1.1 client that re-lists and re-watches at once (Patroni) has.
  const agent = new https.Agent({ ca: srv.ca, cert, key, keepAlive: true, maxSockets: 1 });
  const upload = slowCreate(srv.url, agent, 'in-flight');
  await inFlight(srv);
  const started = Date.now();
  const stopping = srv.server.stop();
  await new Promise((r) => setTimeout(r, 100));
  upload.finish();
  const created = await upload.response;
  assert.equal(created.status, 201, 'the request in flight completes');
  assert.equal(created.headers.connection, 'close', 'and it is its connection\'s last');
  // The re-watch cannot reach a server that drains: its connection is gone and the listener closed.
  const again = await rawRequest(`${srv.url}/api/v1/namespaces/default/configmaps?watch=1`, agent).catch((err: NodeJS.ErrnoException) => err);
  assert.ok(again instanceof Error && ['ECONNREFUSED', 'ECONNRESET'].includes(again.code ?? ''), `the re-watch was answered: ${JSON.stringify(again)}`);
  await stopping;
  assert.ok(Date.now() - started < 10_000, `stopped after ${Date.now() - started} ms (the shutdown timeout is 60 s)`);
  agent.destroy();
  await cleanup(srv);
});

test('--shutdown-send-retry-after: while requests drain, new ones get 429 with Retry-After and Connection: close', { timeout: 30_000 }, async () => {
  const { startTestServer } = await import('../helpers/server.ts');
  const srv = await startTestServer(['--shutdown-send-retry-after']);
  const cert = await readFile(path.join(srv.dataDir, 'pki/admin.crt'));
  const key = await readFile(path.join(srv.dataDir, 'pki/admin.key'));
  const idle = new https.Agent({ ca: srv.ca, cert, key, keepAlive: true, maxSockets: 1 });
  assert.equal((await rawRequest(`${srv.url}/api/v1/namespaces`, idle)).status, 200);

  // A create whose body is still arriving is in flight: the server waits for it before it stops listening.
  const upload = slowCreate(srv.url, new https.Agent({ ca: srv.ca, cert, key }), 'drained');
  await inFlight(srv);
  const stopping = srv.server.stop();
  await new Promise((r) => setTimeout(r, 100));

  for (const agent of [idle, new https.Agent({ ca: srv.ca, cert, key })]) {
    const refused = await rawRequest(`${srv.url}/api/v1/namespaces/default/configmaps`, agent);
    assert.equal(refused.status, 429, refused.body);
    assert.equal(refused.headers['retry-after'], '5');
    assert.equal(refused.headers.connection, 'close');
    const status = JSON.parse(refused.body);
    assert.equal(status.reason, 'TooManyRequests');
    assert.equal(status.message, 'The apiserver is shutting down, please try again later.');
  }
  // Health probes are still answered, readyz failing.
  assert.equal((await rawRequest(`${srv.url}/readyz`, new https.Agent({ ca: srv.ca }))).status, 500);

  upload.finish();
  assert.equal((await upload.response).status, 201, 'the request in flight completes');
  await stopping;
  idle.destroy();
  await cleanup(srv);
});
