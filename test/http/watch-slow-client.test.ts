import assert from 'node:assert/strict';
import https from 'node:https';
import type { TLSSocket } from 'node:tls';
import { before, test } from 'node:test';
import { WATCH_MAX_QUEUED_BYTES } from '../../src/http/handlers/watch.ts';
import { configMap, eventually } from '../helpers/fixtures.ts';
import { client } from '../helpers/http.ts';
import { serveFile } from '../helpers/server.ts';
import { openWatch, type WatchEvent } from '../helpers/watch-stream.ts';

// Without the garbage collector: its informers watch ConfigMaps too, and start whenever this replica
// becomes leader, which would move the count of ConfigMap watchers this test compares.
const t = serveFile(['--controllers=*,-garbage-collector-controller']);

/** A watch whose client reads the response head and then nothing more (until told to read again). */
function stalledWatch(path: string) {
  const agent = new https.Agent({ ...(t.srv.adminAgent.options as https.AgentOptions), keepAlive: false });
  let closed = false;
  const opened = new Promise<{ localPort: number; res: import('node:http').IncomingMessage }>((resolve, reject) => {
    const req = https.request(new URL(path, t.srv.url), { agent, headers: { Accept: 'application/json' } }, (res) => {
      assert.equal(res.statusCode, 200);
      res.pause();
      res.on('error', () => undefined);
      resolve({ localPort: req.socket!.localPort!, res });
    });
    req.on('socket', (s) => s.on('close', () => (closed = true)));
    req.on('error', (err) => (closed ? undefined : reject(err)));
    req.end();
  });
  return { opened, closed: () => closed, stop: () => agent.destroy() };
}

test('a watcher that stops reading is given up once it holds a few MiB: its connection is destroyed and nothing of it stays', { timeout: 60_000 }, async () => {
  const hub = t.srv.server.storage.hub;
  // Counted for ConfigMaps only: the server's own controllers watch other resources, and re-watch at times.
  const configMaps = { group: '', resource: 'configmaps' };
  const watchers = () => hub.watcherCount(configMaps);
  const baseline = watchers();
  const serverSockets: TLSSocket[] = [];
  const onConnection = (s: TLSSocket) => serverSockets.push(s);
  t.srv.server.httpServer.on('secureConnection', onConnection);

  const path = `/api/v1/namespaces/${t.ns}/configmaps?watch=true`;
  const stalled = stalledWatch(path);
  const { localPort, res: stalledResponse } = await stalled.opened;
  // A client that reads the same watch throughout: the stalled one must not hurt it.
  const seen: WatchEvent[] = [];
  const reader = openWatch(t.srv.url, path, t.srv.adminAgent, (ev) => seen.push(ev));
  await eventually(async () => watchers() === baseline + 2, 'both watches registered');
  const serverSide = serverSockets.find((s) => s.remotePort === localPort);
  assert.ok(serverSide, 'the server side of the stalled connection');

  // Events of 1 MiB each, far more than the bound plus what the kernel buffers on both ends.
  const big = 'x'.repeat(1024 * 1024);
  const count = 24;
  assert.ok(count * big.length > 4 * WATCH_MAX_QUEUED_BYTES);
  // One at a time, each taken by the reading client before the next: a reader that keeps up (even on
  // a busy machine, in the server's own process) is never near the bound; the stalled one passes it.
  for (let i = 0; i < count; i++) {
    const res = await t.api.post(`/api/v1/namespaces/${t.ns}/configmaps`, configMap(`big-${i}`, { k: big }));
    assert.equal(res.status, 201, res.text);
    await eventually(async () => seen.length === i + 1, `the reading watch to get event ${i}`, 30_000);
  }

  await eventually(async () => serverSide.destroyed, 'the server to destroy the stalled connection', 30_000);
  assert.equal(serverSide.writableLength, 0, 'the server holds none of its buffer');
  // When the client reads again it gets what the kernel still had, then the connection's end: the
  // response is cut, not completed (a watch that ended normally would end with its last chunk).
  stalledResponse.on('data', () => undefined);
  stalledResponse.resume();
  await eventually(async () => stalled.closed(), 'the stalled client to see its connection closed', 10_000);
  assert.equal(stalledResponse.complete, false, 'the watch response was cut off');
  await eventually(async () => watchers() === baseline + 1, 'the stalled watcher to be gone from the hub');

  await eventually(async () => seen.length === count, `the reading watch to get all ${count} events (has ${seen.length})`, 30_000);
  assert.deepEqual(
    seen.map((e) => e.object.metadata.name).sort(),
    Array.from({ length: count }, (_, i) => `big-${i}`).sort(),
  );
  reader.abort();
  stalled.stop();
  t.srv.server.httpServer.off('secureConnection', onConnection);
});
