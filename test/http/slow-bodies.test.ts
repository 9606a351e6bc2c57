import assert from 'node:assert/strict';
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { after, before, test } from 'node:test';
import { client } from '../helpers/http.ts';
import { startTestServer, type TestServer } from '../helpers/server.ts';
import { trickle } from '../helpers/trickle.ts';

/**
 * Clients that send their body slowly must not hold a connection: a body that has not arrived
 * within the request timeout is cut with a 504, and an answer given before the body arrived (401,
 * 403, 413, …) closes the connection instead of waiting for the rest. Request timeout: 1 s.
 */
let srv: TestServer;
let admin: { cert: string; key: string };
const CMS = '/api/v1/namespaces/default/configmaps';

before(async () => {
  srv = await startTestServer(['--request-timeout=1s', '--max-request-body-bytes=200000']);
  const pki = path.join(srv.dataDir, 'pki');
  admin = { cert: await readFile(path.join(pki, 'admin.crt'), 'utf8'), key: await readFile(path.join(pki, 'admin.key'), 'utf8') };
});
after(async () => {
  await srv.stop();
});

test('an authenticated POST whose body trickles in is answered 504 at the request timeout and its connection closed', async () => {
  const r = await trickle(srv.url, { ...admin, ca: srv.ca, path: CMS, contentLength: 100_000, firstBytes: '{', everyMs: 100, maxMs: 8000 });
  assert.equal(r.status, 504, r.body);
  const status = JSON.parse(r.body);
  assert.equal(status.kind, 'Status');
  assert.equal(status.reason, 'Timeout');
  // The body never arrived, so nothing reached the storage: the timeout filter's text, as upstream.
  assert.equal(status.message, 'Timeout: request did not complete within the allotted timeout');
  assert.equal(r.headers.connection, 'close');
  assert.ok(r.answeredMs! >= 900 && r.answeredMs! < 2500, `answered after ${Math.round(r.answeredMs!)} ms`);
  assert.ok(r.closedByServer && r.closedMs < 3000, `the connection stayed open for ${Math.round(r.closedMs)} ms`);
});

test('an anonymous POST whose body trickles in gets its 403 at once and the connection is closed', async () => {
  const r = await trickle(srv.url, { ca: srv.ca, path: CMS, contentLength: 100_000, firstBytes: '{', everyMs: 100, maxMs: 8000 });
  assert.equal(r.status, 403, r.body);
  assert.equal(JSON.parse(r.body).reason, 'Forbidden');
  assert.equal(r.headers.connection, 'close');
  assert.ok(r.answeredMs! < 800, `answered after ${Math.round(r.answeredMs!)} ms`);
  assert.ok(r.closedByServer && r.closedMs < 1500, `the connection stayed open for ${Math.round(r.closedMs)} ms`);
});

test('a body declared larger than the limit gets its 413 at once and the connection is closed', async () => {
  const r = await trickle(srv.url, { ...admin, ca: srv.ca, path: CMS, contentLength: 10_000_000, firstBytes: '{', everyMs: 100, maxMs: 8000 });
  assert.equal(r.status, 413, r.body);
  assert.equal(r.headers.connection, 'close');
  assert.ok(r.closedByServer && r.closedMs < 1500, `the connection stayed open for ${Math.round(r.closedMs)} ms`);
});

test('an early answer to a body that did arrive whole keeps the connection alive', async () => {
  const anon = client(srv.url, srv.anonymousAgent);
  const res = await anon.post(CMS, { metadata: { name: 'x' } });
  assert.equal(res.status, 403);
  assert.equal(res.headers.connection, 'keep-alive');
});

test('a body that arrives in time is served normally under the request timeout', async () => {
  const r = await trickle(srv.url, { ...admin, ca: srv.ca, path: CMS, contentLength: 30, firstBytes: '{"metadata":{"name":"slow"}}', everyMs: 200, maxMs: 1500 });
  assert.equal(r.status, 201, r.body);
});
