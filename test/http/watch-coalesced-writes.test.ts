/**
 * Frames queued for one watch in one tick leave in one write (src/http/handlers/watch.ts, WatchStream):
 * every frame still arrives, once, in order.
 */
import assert from 'node:assert/strict';
import https from 'node:https';
import type { TLSSocket } from 'node:tls';
import { test } from 'node:test';
import { configMap, create, eventually } from '../helpers/fixtures.ts';
import { serveFile } from '../helpers/server.ts';
import { openWatch, type WatchEvent } from '../helpers/watch-stream.ts';

const t = serveFile();

test('initial events leave in a few writes, not one per event, and arrive whole and in order', { timeout: 120_000 }, async () => {
  const cms = `/api/v1/namespaces/${t.ns}/configmaps`;
  const count = 120;
  for (let i = 0; i < count; i += 20) {
    await Promise.all(Array.from({ length: 20 }, (_, j) => create(t.api, cms, configMap(`init-${String(i + j).padStart(3, '0')}`, { k: 'v' }))));
  }
  // Count the server's writes on this watch's own connection.
  const writes = new Map<number, number>();
  const onConnection = (s: TLSSocket) => {
    const write = s.write.bind(s) as (...args: unknown[]) => boolean;
    (s as unknown as { write: (...args: unknown[]) => boolean }).write = (...args: unknown[]) => {
      writes.set(s.remotePort!, (writes.get(s.remotePort!) ?? 0) + 1);
      return write(...args);
    };
  };
  t.srv.server.httpServer.on('secureConnection', onConnection);
  const agent = new https.Agent({ ...(t.srv.adminAgent.options as https.AgentOptions), keepAlive: false });
  const events: WatchEvent[] = [];
  const w = openWatch(t.srv.url, `${cms}?watch=1`, agent, (ev) => events.push(ev));
  try {
    await eventually(async () => events.length >= count, `${count} initial events (got ${events.length})`);
    const names = events.map((e) => `${e.type} ${e.object.metadata.name}`);
    assert.deepEqual(names, Array.from({ length: count }, (_, i) => `ADDED init-${String(i).padStart(3, '0')}`));
    // Only the watch's connection is new. Headers and a handful of writes; one write per event
    // would be three socket writes each (chunk size, frame, line end).
    assert.equal(writes.size, 1, 'one new connection');
    const total = [...writes.values()][0];
    assert.ok(total < count / 4, `the watch's ${count} events took ${total} socket writes`);
  } finally {
    t.srv.server.httpServer.off('secureConnection', onConnection);
    w.abort();
    agent.destroy();
  }
});

test('a burst of concurrent writes reaches a watcher complete, once each, in resourceVersion order', { timeout: 120_000 }, async () => {
  const cms = `/api/v1/namespaces/${t.ns}/configmaps`;
  const list = await t.api.get(`${cms}?limit=1`);
  const from = (JSON.parse(list.text) as { metadata: { resourceVersion: string } }).metadata.resourceVersion;
  const events: WatchEvent[] = [];
  const w = openWatch(t.srv.url, `${cms}?watch=1&resourceVersion=${from}&allowWatchBookmarks=true`, t.srv.adminAgent, (ev) => events.push(ev));
  try {
    const count = 80;
    await Promise.all(Array.from({ length: count }, (_, i) => create(t.api, cms, configMap(`burst-${i}`, { k: 'v' }))));
    const changes = () => events.filter((e) => e.type !== 'BOOKMARK');
    await eventually(async () => changes().length >= count, `${count} events (got ${changes().length})`);
    const got = changes();
    assert.equal(got.length, count);
    const versions = got.map((e) => Number(e.object.metadata.resourceVersion));
    for (let i = 1; i < versions.length; i++) assert.ok(versions[i] > versions[i - 1], `versions in order: ${versions.join(', ')}`);
    assert.deepEqual(got.map((e) => e.object.metadata.name).sort(), Array.from({ length: count }, (_, i) => `burst-${i}`).sort());
  } finally {
    w.abort();
  }
});
