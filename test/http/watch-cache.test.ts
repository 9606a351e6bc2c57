import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { assertStatus, configMap, create, createNamespace, eventually } from '../helpers/fixtures.ts';
import { serveFile } from '../helpers/server.ts';

const CM = { group: '', resource: 'configmaps' };
const names = (res: { json: any }) => res.json.items.map((i: any) => i.metadata.name);

describe('watch cache over HTTP', () => {
  const t = serveFile();

  /** A namespace with configmaps cm-0 … cm-4 (labels parity=odd|even), the cache of configmaps built. */
  async function filled(): Promise<string> {
    const space = await createNamespace(t.api);
    const path = `/api/v1/namespaces/${space}/configmaps`;
    for (let i = 0; i < 5; i++) await create(t.api, path, configMap(`cm-${i}`, { i: String(i) }, { labels: { parity: i % 2 ? 'odd' : 'even' } }));
    await eventually(async () => {
      await t.api.get(`${path}?resourceVersion=0`);
      return t.srv.server.watchCache?.cacheOf(CM);
    }, 'the configmaps cache is built');
    return path;
  }

  test('resourceVersion=0 lists and gets are answered from the cache with what the database answers', async () => {
    const path = await filled();
    const stats = t.srv.server.watchCache!.stats;
    for (const query of ['', '&labelSelector=parity%3Dodd', '&fieldSelector=metadata.name%3Dcm-2', '&labelSelector=parity%21%3Dodd&fieldSelector=metadata.name%21%3Dcm-0']) {
      const reads = stats.cacheReads;
      const cached = await t.api.get(`${path}?resourceVersion=0${query}`);
      assert.equal(cached.status, 200, cached.text);
      assert.equal(stats.cacheReads, reads + 1, `from the cache: ${query}`);
      const exact = await t.api.get(`${path}?resourceVersion=${cached.json.metadata.resourceVersion}&resourceVersionMatch=Exact${query}`);
      assert.deepEqual(cached.json.items, exact.json.items, query);
    }
    const reads = stats.cacheReads;
    const got = await t.api.get(`${path}/cm-3?resourceVersion=0`);
    assert.equal(stats.cacheReads, reads + 1);
    const latest = await t.api.get(`${path}/cm-3`);
    assert.deepEqual(got.json, latest.json);
    assertStatus(await t.api.get(`${path}/missing?resourceVersion=0`), 404, 'NotFound');
  });

  test('a write is in the next list without a resourceVersion (read your writes), paged with the usual tokens', async () => {
    const path = await filled();
    const stats = t.srv.server.watchCache!.stats;
    await create(t.api, path, configMap('cm-new'));
    const reads = stats.cacheReads;
    const list = await t.api.get(`${path}?limit=4`);
    assert.equal(stats.cacheReads, reads + 1);
    assert.deepEqual(names(list), ['cm-0', 'cm-1', 'cm-2', 'cm-3']);
    assert.equal(list.json.metadata.remainingItemCount, 2);
    const rest = await t.api.get(`${path}?limit=4&continue=${encodeURIComponent(list.json.metadata.continue)}`);
    assert.deepEqual(names(rest), ['cm-4', 'cm-new']);
    // The update is in the next NotOlderThan read of its version.
    const cm = (await t.api.get(`${path}/cm-1`)).json;
    const updated = (await t.api.put(`${path}/cm-1`, { ...cm, data: { i: 'changed' } })).json;
    const notOlder = await t.api.get(`${path}/cm-1?resourceVersion=${updated.metadata.resourceVersion}`);
    assert.equal(notOlder.json.data.i, 'changed');
  });

  test('a version the store has not reached is 504 Too large resource version', async () => {
    const path = await filled();
    const list = await t.api.get(path);
    const res = await t.api.get(`${path}?resourceVersion=${Number(list.json.metadata.resourceVersion) + 100000}&resourceVersionMatch=NotOlderThan`);
    assertStatus(res, 504, 'Timeout', /Too large resource version/);
    assert.equal(res.json.details.causes[0].reason, 'ResourceVersionTooLarge');
  });
});

describe('--watch-cache=false', () => {
  const t = serveFile(['--watch-cache=false']);

  test('every read goes to the database', async () => {
    assert.equal(t.srv.server.watchCache, undefined);
    const path = `/api/v1/namespaces/${t.ns}/configmaps`;
    await create(t.api, path, configMap('a'));
    const any = await t.api.get(`${path}?resourceVersion=0`);
    assert.deepEqual(names(any), ['a']);
    const got = await t.api.get(`${path}/a?resourceVersion=0`);
    assert.equal(got.status, 200);
  });
});
