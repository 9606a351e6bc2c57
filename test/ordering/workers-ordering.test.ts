import assert from 'node:assert/strict';
import { mkdtemp, rm } from 'node:fs/promises';
import type https from 'node:https';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { after, before, test } from 'node:test';
import pg from 'pg';
import { createTestDatabase, type TestDatabase } from '../helpers/database.ts';
import { client } from '../helpers/http.ts';
import { openWatch, type WatchEvent } from '../helpers/watch-stream.ts';
import { startWorkersServer, type WorkersServer } from '../helpers/workers-server.ts';

/**
 * commit-order.test.ts's promise (commit order is resourceVersion order for every reader) with the
 * replicas being the cluster workers of one server process (--workers=2) on one port: writers on
 * many connections (spread over the workers by round robin), a watcher per connection, and paged
 * lists whose every page is a new connection, so that consecutive pages come from both workers.
 */
const WRITERS = 12;
const OPS_PER_WRITER = 40;
const WATCHERS = 4;
const PAGED_LISTS = 6;
const NAMES = 40;
const BASE = '/api/v1/namespaces/default/configmaps';

let db: TestDatabase;
let dataDir: string;
let srv: WorkersServer;
let writers: https.Agent;
let fresh: https.Agent;

before(async () => {
  db = await createTestDatabase('pgkube_workers_order');
  dataDir = await mkdtemp(path.join(tmpdir(), 'pgkube-workers-order-'));
  srv = await startWorkersServer(db.url, dataDir, ['--workers=2', '--log-level=info']);
  writers = await srv.agent({ keepAlive: true, maxSockets: 32 });
  fresh = await srv.agent({ keepAlive: false });
});

after(async () => {
  writers?.destroy();
  fresh?.destroy();
  if (srv && srv.child.exitCode === null) srv.child.kill('SIGTERM');
  const code = srv ? await srv.exited : 0;
  await db?.drop();
  if (dataDir) await rm(dataDir, { recursive: true, force: true });
  assert.equal(code, 0, 'the server stops cleanly on SIGTERM');
});

async function writer(id: number): Promise<void> {
  const c = client(srv.url, writers);
  for (let i = 0; i < OPS_PER_WRITER; i++) {
    const name = `cm-${Math.floor(Math.random() * NAMES)}`;
    const roll = Math.random();
    if (roll < 0.45) {
      const res = await c.post(BASE, { metadata: { name }, data: { writer: String(id), op: String(i) } });
      assert.ok([201, 409].includes(res.status), `create answered ${res.status}: ${res.text}`);
    } else if (roll < 0.85) {
      const current = await c.get(`${BASE}/${name}`);
      if (current.status === 404) continue;
      current.json.data = { writer: String(id), op: String(i) };
      const res = await c.put(`${BASE}/${name}`, current.json);
      assert.ok([200, 404, 409].includes(res.status), `update answered ${res.status}: ${res.text}`);
    } else {
      const res = await c.delete(`${BASE}/${name}`);
      assert.ok([200, 404].includes(res.status), `delete answered ${res.status}: ${res.text}`);
    }
  }
}

interface Watched {
  readonly from: number;
  readonly initial: Map<string, string>;
  readonly events: WatchEvent[];
  readonly stop: () => Promise<void>;
}

/** A list, then one watch from its resourceVersion, both on this watcher's own connection. */
async function watcher(): Promise<Watched> {
  const own = await srv.agent({ keepAlive: true, maxSockets: 1 });
  const list = await client(srv.url, own).get(BASE);
  assert.equal(list.status, 200);
  const from = Number(list.json.metadata.resourceVersion);
  const initial = new Map<string, string>(list.json.items.map((o: any) => [o.metadata.name, o.metadata.resourceVersion]));
  const events: WatchEvent[] = [];
  const w = openWatch(srv.url, `${BASE}?watch=1&resourceVersion=${from}&timeoutSeconds=600`, own, (ev) => {
    if (ev.type === 'ERROR') throw new Error(`watch error: ${JSON.stringify(ev.object)}`);
    events.push(ev);
  });
  return {
    from,
    initial,
    events,
    stop: async () => {
      w.abort();
      await w.done;
      own.destroy();
    },
  };
}

/** A list in pages of 7, each page on a new connection; every page must carry the first page's resourceVersion. */
async function pagedList(): Promise<{ rv: number; items: Map<string, string> }> {
  const items = new Map<string, string>();
  let rv: string | undefined;
  let token = '';
  do {
    const res = await client(srv.url, fresh).get(`${BASE}?limit=7${token ? `&continue=${encodeURIComponent(token)}` : ''}`);
    assert.equal(res.status, 200, res.text);
    rv ??= res.json.metadata.resourceVersion;
    assert.equal(res.json.metadata.resourceVersion, rv, 'every page is of one snapshot');
    for (const o of res.json.items) {
      assert.ok(!items.has(o.metadata.name), `${o.metadata.name} listed once`);
      items.set(o.metadata.name, o.metadata.resourceVersion);
    }
    token = res.json.metadata.continue ?? '';
  } while (token);
  return { rv: Number(rv), items };
}

/** What a watcher's list and events say the collection was at resourceVersion `at`. */
function stateAt(w: Watched, at: number): Map<string, string> {
  const state = new Map(w.initial);
  for (const e of w.events) {
    if (Number(e.object.metadata.resourceVersion) > at) break;
    if (e.type === 'DELETED') state.delete(e.object.metadata.name);
    else state.set(e.object.metadata.name, e.object.metadata.resourceVersion);
  }
  return state;
}

const sorted = (m: Map<string, string>) => new Map([...m].sort());

test('with two workers every watcher sees every change once, in order, and paged lists are snapshots', { timeout: 300_000 }, async () => {
  const watchers = await Promise.all(Array.from({ length: WATCHERS }, watcher));
  const lists: Promise<{ rv: number; items: Map<string, string> }>[] = [];
  const writing = Promise.all(Array.from({ length: WRITERS }, (_, i) => writer(i)));
  for (let i = 0; i < PAGED_LISTS; i++) {
    await new Promise((r) => setTimeout(r, 150));
    lists.push(pagedList());
  }
  await writing;
  const pages = await Promise.all(lists);

  const sql = new pg.Pool({ connectionString: db.url, max: 1 });
  try {
    const last = Number((await sql.query(`select coalesce(max(resource_version), 0)::bigint as rv from history where resource = 'configmaps'`)).rows[0].rv);
    // Every watcher gets to the last committed change (or the test times out).
    for (const w of watchers) {
      while (Number(w.events.at(-1)?.object.metadata.resourceVersion ?? w.from) < last) await new Promise((r) => setTimeout(r, 50));
      await w.stop();
    }
    const table = await sql.query(`select name, resource_version::text as rv from objects where resource = 'configmaps' and namespace = 'default'`);
    const final = new Map<string, string>(table.rows.map((r) => [r.name, r.rv]));
    const from = Math.min(...watchers.map((w) => w.from));
    const history = (await sql.query(`select resource_version::text as rv from history where resource = 'configmaps' and resource_version > $1 order by resource_version`, [from])).rows.map((r) => Number(r.rv));
    assert.ok(history.length > WRITERS * OPS_PER_WRITER * 0.3, `most writes went through (${history.length})`);
    for (const w of watchers) {
      const versions = w.events.map((e) => Number(e.object.metadata.resourceVersion));
      assert.deepEqual(versions, history.filter((rv) => rv > w.from), 'exactly the committed changes after the list, each once, in order');
      assert.deepEqual(sorted(stateAt(w, Infinity)), sorted(final), 'replayed state equals the table');
    }
    const reference = watchers.reduce((a, b) => (a.from <= b.from ? a : b));
    for (const page of pages) {
      if (page.rv < reference.from) continue;
      assert.deepEqual(sorted(page.items), sorted(stateAt(reference, page.rv)), `the paged list at ${page.rv} is the state at ${page.rv}`);
    }
    assert.ok(pages.some((p) => p.rv > reference.from), 'some paged lists ran during the writes');
  } finally {
    await sql.end();
  }
});
