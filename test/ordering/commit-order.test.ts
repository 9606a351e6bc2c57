import assert from 'node:assert/strict';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import https from 'node:https';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { after, before, test } from 'node:test';
import pg from 'pg';
import { createTestDatabase, type TestDatabase } from '../helpers/database.ts';
import { client } from '../helpers/http.ts';
import { startServerProcess, type ServerProcess } from '../helpers/server-process.ts';
import { openWatch, type WatchEvent } from '../helpers/watch-stream.ts';

/**
 * The heart of the design: commit order equals resourceVersion order for every reader. Several
 * server processes share one database; 16 writers hammer them while watchers hop between processes,
 * reconnecting from the last version they saw. Every watcher must see every change exactly once,
 * in increasing order, and what it builds from the events must equal the table.
 */
const PROCESSES = 3;
const WRITERS = 16;
const OPS_PER_WRITER = 60;
const WATCHERS = 6;
const NAMES = 48;
const NS = 'default';
const BASE = `/api/v1/namespaces/${NS}/configmaps`;

let db: TestDatabase;
let dataDir: string;
let servers: ServerProcess[] = [];
let agent: https.Agent;

before(async () => {
  db = await createTestDatabase('pgkube_order');
  dataDir = await mkdtemp(path.join(tmpdir(), 'pgkube-order-'));
  // The first process creates the schema and the PKI; the others share both.
  servers.push(await startServerProcess(db.url, dataDir));
  servers.push(...(await Promise.all(Array.from({ length: PROCESSES - 1 }, () => startServerProcess(db.url, dataDir)))));
  const pki = path.join(dataDir, 'pki');
  const [ca, cert, key] = await Promise.all(['ca.crt', 'admin.crt', 'admin.key'].map((f) => readFile(path.join(pki, f), 'utf8')));
  agent = new https.Agent({ ca, cert, key, keepAlive: true, maxSockets: 64 });
});

after(async () => {
  agent?.destroy();
  const codes = await Promise.all(servers.map((s) => s.stop()));
  await db?.drop();
  if (dataDir) await rm(dataDir, { recursive: true, force: true });
  assert.deepEqual(codes, servers.map(() => 0), 'every server process exits cleanly on SIGTERM');
});

const pick = <T>(list: readonly T[]): T => list[Math.floor(Math.random() * list.length)];
const server = () => pick(servers).url;

async function writer(id: number): Promise<number> {
  let applied = 0;
  for (let i = 0; i < OPS_PER_WRITER; i++) {
    const c = client(server(), agent);
    const name = `cm-${Math.floor(Math.random() * NAMES)}`;
    const roll = Math.random();
    if (roll < 0.4) {
      const res = await c.post(BASE, { metadata: { name }, data: { writer: String(id), op: String(i) } });
      assert.ok([201, 409].includes(res.status), `create answered ${res.status}: ${res.text}`);
      if (res.status === 201) applied++;
    } else if (roll < 0.8) {
      const current = await c.get(`${BASE}/${name}`);
      if (current.status === 404) continue;
      const obj = current.json;
      obj.data = { writer: String(id), op: String(i) };
      const res = await client(server(), agent).put(`${BASE}/${name}`, obj);
      assert.ok([200, 404, 409].includes(res.status), `update answered ${res.status}: ${res.text}`);
      if (res.status === 200) applied++;
    } else {
      const res = await c.delete(`${BASE}/${name}`);
      assert.ok([200, 404].includes(res.status), `delete answered ${res.status}: ${res.text}`);
      if (res.status === 200) applied++;
    }
  }
  return applied;
}

interface WatcherResult {
  startVersion: number;
  initial: Map<string, string>;
  events: WatchEvent[];
  reconnects: number;
}

/** Lists, then watches through random processes, dropping the connection at random points. */
async function watcher(stopAt: () => number | undefined): Promise<WatcherResult> {
  const list = await client(server(), agent).get(BASE);
  assert.equal(list.status, 200);
  const startVersion = Number(list.json.metadata.resourceVersion);
  const initial = new Map<string, string>(list.json.items.map((o: any) => [o.metadata.name, o.metadata.resourceVersion]));
  const events: WatchEvent[] = [];
  let last = startVersion;
  let reconnects = 0;
  for (;;) {
    const target = stopAt();
    if (target !== undefined && last >= target) break;
    const budget = 1 + Math.floor(Math.random() * 40);
    let seen = 0;
    const w = openWatch(server(), `${BASE}?watch=1&resourceVersion=${last}&allowWatchBookmarks=true&timeoutSeconds=30`, agent, (ev) => {
      if (ev.type === 'ERROR') throw new Error(`watch error: ${JSON.stringify(ev.object)}`);
      const rv = Number(ev.object.metadata.resourceVersion);
      if (ev.type !== 'BOOKMARK') events.push(ev);
      last = Math.max(last, rv);
      if (++seen >= budget) w.abort();
    });
    const timer = setTimeout(() => w.abort(), 20 + Math.random() * 300);
    await w.done;
    clearTimeout(timer);
    reconnects++;
  }
  return { startVersion, initial, events, reconnects };
}

test('every watcher sees every change exactly once, in order, across processes and reconnects', { timeout: 240_000 }, async () => {
  let finalVersion: number | undefined;
  const watchers = Array.from({ length: WATCHERS }, () => watcher(() => finalVersion));
  const applied = await Promise.all(Array.from({ length: WRITERS }, (_, i) => writer(i)));
  assert.ok(applied.reduce((a, b) => a + b, 0) > WRITERS * OPS_PER_WRITER * 0.3, 'most writes went through');

  const pool = new pg.Pool({ connectionString: db.url });
  try {
    const max = await pool.query(`select max(resource_version)::bigint as rv from history where resource = 'configmaps' and namespace = $1`, [NS]);
    finalVersion = Number(max.rows[0].rv);
    const results = await Promise.all(watchers);
    const table = await pool.query(`select name, resource_version::text as rv from objects where resource = 'configmaps' and namespace = $1`, [NS]);
    const expectedFinal = new Map<string, string>(table.rows.map((r) => [r.name, r.rv]));

    for (const r of results) {
      const versions = r.events.map((e) => Number(e.object.metadata.resourceVersion));
      for (let i = 1; i < versions.length; i++) {
        assert.ok(versions[i] > versions[i - 1], `versions increase: ${versions[i - 1]} then ${versions[i]}`);
      }
      const history = await pool.query(
        `select resource_version::text as rv from history where resource = 'configmaps' and namespace = $1 and resource_version > $2 order by resource_version`,
        [NS, r.startVersion],
      );
      assert.deepEqual(versions, history.rows.map((h) => Number(h.rv)), 'exactly the committed changes after the list, each once');

      const state = new Map(r.initial);
      for (const e of r.events) {
        if (e.type === 'DELETED') state.delete(e.object.metadata.name);
        else state.set(e.object.metadata.name, e.object.metadata.resourceVersion);
      }
      assert.deepEqual(new Map([...state].sort()), new Map([...expectedFinal].sort()), 'replayed state equals the table');
      assert.ok(r.reconnects > 3, 'watchers really reconnected');
    }
  } finally {
    await pool.end();
  }
});
