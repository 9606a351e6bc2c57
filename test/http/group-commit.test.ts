import assert from 'node:assert/strict';
import { test } from 'node:test';
import pg from 'pg';
import { configMap } from '../helpers/fixtures.ts';
import { client, type Reply } from '../helpers/http.ts';
import { serveFile } from '../helpers/server.ts';

let cms: string;
const t = serveFile([], async () => {
  cms = `/api/v1/namespaces/${t.ns}/configmaps`;
});

/** Bodies that carry values PostgreSQL's jsonb refuses as they are: an escaped lone surrogate, an escaped NUL. */
const surrogateJson = (name: string) => `{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"${name}"},"data":{"k":"\\ud800"}}`;
const surrogateYaml = (name: string) => `apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: ${name}\ndata:\n  k: "a\\udc00b"\n`;
const nulJson = (name: string) => `{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"${name}"},"data":{"k":"\\u0000"}}`;

test('bad values sent beside good writes fail alone: every well-formed create in the same group commit succeeds, once', async () => {
  const good: Promise<Reply>[] = [];
  const surrogates: { name: string; reply: Promise<Reply>; stored: string }[] = [];
  const refused: Promise<Reply>[] = [];
  // 16 clients writing good ConfigMaps and 3 sending bad values, all at once, so that the bad ones
  // land in the same batches as good ones.
  const goodClients = Array.from({ length: 16 }, async (_, c) => {
    for (let i = 0; i < 20; i++) {
      const reply = t.api.post(cms, configMap(`good-${c}-${i}`, { k: 'v' }));
      good.push(reply);
      await reply;
    }
  });
  const badClients = [
    (async () => {
      for (let i = 0; i < 15; i++) {
        const name = `surrogate-json-${i}`;
        const reply = t.api.post(cms, surrogateJson(name));
        surrogates.push({ name, reply, stored: '\ufffd' });
        await reply;
      }
    })(),
    (async () => {
      for (let i = 0; i < 15; i++) {
        // Go's YAML scanner refuses a surrogate escape outright (400), unlike its JSON decoder.
        const reply = t.api.post(cms, surrogateYaml(`surrogate-yaml-${i}`), { 'Content-Type': 'application/yaml' });
        refused.push(reply);
        await reply;
      }
    })(),
    (async () => {
      for (let i = 0; i < 15; i++) {
        const reply = t.api.post(cms, nulJson(`nul-${i}`));
        refused.push(reply);
        await reply;
      }
    })(),
  ];
  await Promise.all([...goodClients, ...badClients]);

  for (const reply of await Promise.all(good)) assert.equal(reply.status, 201, reply.text);
  // A lone surrogate in JSON is replaced by U+FFFD, as Go's JSON decoder does: the write is stored,
  // and the client is answered what was stored.
  for (const s of surrogates) {
    const reply = await s.reply;
    assert.equal(reply.status, 201, `${s.name}: ${reply.text}`);
    assert.equal(reply.json.data.k, s.stored, s.name);
    const read = await t.api.get(`${cms}/${s.name}`);
    assert.equal(read.json.data.k, s.stored, s.name);
  }
  for (const reply of await Promise.all(refused)) {
    assert.equal(reply.status, 400, reply.text);
    assert.equal(reply.json.reason, 'BadRequest');
  }

  // Nothing twice, nothing lost: one object and one history row per 201.
  const list = await t.api.get(cms);
  assert.equal(list.json.items.length, 16 * 20 + 15);
  const db = new pg.Client({ connectionString: t.srv.db.url });
  await db.connect();
  try {
    const history = await db.query(`select name, count(*)::int as n from history where namespace = $1 and resource = 'configmaps' group by name`, [t.ns]);
    assert.equal(history.rows.length, 16 * 20 + 15);
    assert.deepEqual(history.rows.filter((r) => r.n !== 1), [], 'each write recorded once');
  } finally {
    await db.end();
  }
});
