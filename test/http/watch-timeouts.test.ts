import assert from 'node:assert/strict';
import { before, test } from 'node:test';
import { configMap, create, createNamespace } from '../helpers/fixtures.ts';
import { client } from '../helpers/http.ts';
import { serveFile } from '../helpers/server.ts';
import { openWatch, type WatchEvent } from '../helpers/watch-stream.ts';

/** Timers computed from what a client sends: a value past what a Node timer holds must not end the watch at once. */
let cms: string;
const t = serveFile(['--request-timeout=1s'], async () => {
  cms = `/api/v1/namespaces/${await createNamespace(t.api)}/configmaps`;
});

for (const timeoutSeconds of ['2147484', '9223372036854775807']) {
  test(`a watch with timeoutSeconds=${timeoutSeconds} stays open and delivers events`, async () => {
    const events: WatchEvent[] = [];
    let ended = false;
    const w = openWatch(t.srv.url, `${cms}?watch=1&timeoutSeconds=${timeoutSeconds}`, t.srv.adminAgent, (ev) => events.push(ev));
    void w.done.then(() => (ended = true));
    try {
      // Longer than --request-timeout too: a watch is long-running, not cut at 1 s.
      await new Promise((r) => setTimeout(r, 1500));
      assert.equal(ended, false, 'the watch ended at once');
      const name = `t-${timeoutSeconds.length}`;
      await create(t.api, cms, configMap(name));
      // Only this test's object: the other test's one arrives as an initial event, sooner or later.
      const mine = () => events.filter((e) => e.object.metadata.name === name);
      const deadline = Date.now() + 5000;
      while (mine().length === 0 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 20));
      assert.deepEqual(mine().map((e) => e.type), ['ADDED']);
      assert.equal(ended, false);
    } finally {
      w.abort();
    }
  });
}

test('the timeout parameter is read as Go reads durations: one it cannot read is a 400, before authentication', async () => {
  for (const agent of [t.srv.adminAgent, t.srv.anonymousAgent]) {
    const res = await client(t.srv.url, agent).get(`${cms}?timeout=5`);
    assert.equal(res.status, 400, res.text);
    assert.equal(res.json.reason, 'BadRequest');
    assert.equal(res.json.message, 'invalid timeout specified in the request URL - time: missing unit in duration "5"');
  }
  assert.equal((await t.api.get(`${cms}?timeout=30s`)).status, 200);
});

test('a watch is long-running: the timeout parameter is not its deadline', async () => {
  const w = openWatch(t.srv.url, `${cms}?watch=1&timeout=abc&timeoutSeconds=1`, t.srv.adminAgent, () => undefined);
  await w.done;
});
