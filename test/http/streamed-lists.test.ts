import assert from 'node:assert/strict';
import https from 'node:https';
import { gunzipSync } from 'node:zlib';
import { after, before, describe, test } from 'node:test';
import pg from 'pg';
import { configMap, createNamespace, eventually, type Api } from '../helpers/fixtures.ts';
import { client } from '../helpers/http.ts';
import { GZIP_THRESHOLD_BYTES } from '../../src/http/response-compression.ts';
import { startTestServer, type TestServer } from '../helpers/server.ts';

let srv: TestServer;
let api: Api;
let full: string;
let empty: string;
const COUNT = 250;

before(async () => {
  srv = await startTestServer();
  api = client(srv.url, srv.adminAgent);
  const ns = await createNamespace(api);
  full = `/api/v1/namespaces/${ns}/configmaps`;
  empty = `/api/v1/namespaces/${await createNamespace(api)}/configmaps`;
  // Varied content: what YAML writes as block scalars or quotes, non-ASCII, labels and annotations.
  const values = ['plain', 'two\nlines\n', 'yes', '0123', ': colon', 'ünïcødé ✓', '', ' leading space', '{"json": [1, 2.50]}'];
  for (let i = 0; i < COUNT; i += 25) {
    const batch = Array.from({ length: 25 }, (_, j) => {
      const k = i + j;
      return api.post(
        full,
        configMap(`cm-${String(k).padStart(3, '0')}`, { a: values[k % values.length], [`k${k}`]: 'x'.repeat(k % 7) }, {
          labels: { app: k % 2 ? 'odd' : 'even' },
          annotations: { note: values[(k + 3) % values.length] },
        }),
      );
    });
    for (const res of await Promise.all(batch)) assert.equal(res.status, 201, res.text);
  }
});
after(async () => {
  await srv.stop();
});

interface Raw {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  body: Buffer;
}

function raw(path: string, headers: Record<string, string>): Promise<Raw> {
  return new Promise((resolve, reject) => {
    const req = https.request(new URL(path, srv.url), { agent: srv.adminAgent, headers }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body: Buffer.concat(chunks) }));
      res.on('error', reject);
    });
    req.on('error', reject);
    req.end();
  });
}

function withQuery(path: string, query: string): string {
  return query ? `${path}${path.includes('?') ? '&' : '?'}${query}` : path;
}

const TABLE = 'application/json;as=Table;v=v1;g=meta.k8s.io';
const CASES: { name: string; accept: string; query?: string; gzip?: boolean }[] = [
  { name: 'JSON', accept: 'application/json' },
  { name: 'JSON, pretty', accept: 'application/json', query: 'pretty=true' },
  { name: 'JSON, gzip', accept: 'application/json', gzip: true },
  { name: 'YAML', accept: 'application/yaml' },
  { name: 'protobuf', accept: 'application/vnd.kubernetes.protobuf' },
  { name: 'Table', accept: TABLE },
  { name: 'Table v1beta1', accept: 'application/json;as=Table;v=v1beta1;g=meta.k8s.io' },
  { name: 'Table, pretty', accept: TABLE, query: 'pretty=true' },
  { name: 'Table, includeObject=Object', accept: TABLE, query: 'includeObject=Object' },
  { name: 'Table, includeObject=None', accept: TABLE, query: 'includeObject=None' },
  { name: 'Table as YAML', accept: 'application/yaml;as=Table;v=v1;g=meta.k8s.io' },
  { name: 'label selector', accept: 'application/json', query: 'labelSelector=app%3Dodd' },
];

/**
 * A list without a limit is streamed; the same list with a limit larger than the collection is a
 * single page built whole, as every list was before. Their bodies must be the same bytes. A pair is
 * taken again when something moved between the two requests: the list's resourceVersion is the
 * store's latest (the controllers write Leases in the background), and Table Age cells follow the clock.
 */
async function streamedAndWhole(path: string, c: (typeof CASES)[number]): Promise<[Raw, Raw]> {
  const headers: Record<string, string> = { Accept: c.accept, ...(c.gzip ? { 'Accept-Encoding': 'gzip' } : {}) };
  for (let attempt = 0; ; attempt++) {
    const streamed = await raw(withQuery(path, c.query ?? ''), headers);
    const whole = await raw(withQuery(path, `${c.query ? `${c.query}&` : ''}limit=100000`), headers);
    if (streamed.body.equals(whole.body) || attempt === 4) return [streamed, whole];
  }
}

for (const [label, pathOf] of [
  ['a namespace of 250 ConfigMaps', () => full],
  ['an empty namespace', () => empty],
  ['all namespaces', () => '/api/v1/configmaps'],
] as const) {
  describe(`a whole list is written as it is read, with the same bytes as before: ${label}`, () => {
    for (const c of CASES) {
      test(c.name, async () => {
        const [streamed, whole] = await streamedAndWhole(pathOf(), c);
        assert.equal(streamed.status, 200, streamed.body.toString());
        assert.equal(whole.status, 200);
        assert.equal(streamed.headers['content-type'], whole.headers['content-type']);
        assert.equal(streamed.headers['transfer-encoding'], 'chunked', 'streamed, not built whole');
        let a = streamed.body;
        let b = whole.body;
        if (c.gzip) {
          // gzipped past 128 KiB only, as upstream; the streamed answer decides as the whole one does.
          assert.equal(streamed.headers['content-encoding'], whole.headers['content-encoding']);
          if (streamed.headers['content-encoding'] === 'gzip') {
            a = gunzipSync(a);
            b = gunzipSync(b);
          }
          assert.equal(streamed.headers['content-encoding'], a.length > GZIP_THRESHOLD_BYTES ? 'gzip' : undefined, `${a.length} bytes`);
        }
        assert.ok(a.equals(b), `bodies differ:\n${a.toString('utf8').slice(0, 400)}\n---\n${b.toString('utf8').slice(0, 400)}`);
      });
    }
  });
}

test('a whole list still answers errors as a Status before anything is written', async () => {
  const future = await api.get(`${full}?resourceVersion=999999999&resourceVersionMatch=NotOlderThan`);
  assert.equal(future.status, 504, future.text);
  assert.equal(future.json.reason, 'Timeout');
  const res = await api.get(`${full}?labelSelector=%3D%3D`);
  assert.equal(res.status, 400, res.text);
});

test('a whole list read at an exact version shows that version', async () => {
  const before = await api.get(full);
  const version = before.json.metadata.resourceVersion;
  assert.equal((await api.delete(`${full}/cm-000`)).status, 200);
  const exact = await api.get(`${full}?resourceVersion=${version}&resourceVersionMatch=Exact`);
  assert.equal(exact.status, 200);
  assert.equal(exact.json.metadata.resourceVersion, version);
  assert.deepEqual(exact.json.items, before.json.items);
  assert.equal((await api.get(full)).json.items.length, COUNT - 1);
});

test('a client that stops reading a whole list holds no database connection; when it reads again it gets the list as of its version', { timeout: 60_000 }, async () => {
  const ns = await createNamespace(api);
  const path = `/api/v1/namespaces/${ns}/configmaps`;
  // More than the kernel buffers of both ends hold, in objects of 1 MiB.
  const big = 'x'.repeat(1024 * 1024);
  for (let i = 0; i < 24; i += 4) {
    const batch = [0, 1, 2, 3].map((j) => api.post(path, configMap(`big-${String(i + j).padStart(2, '0')}`, { k: big })));
    for (const res of await Promise.all(batch)) assert.equal(res.status, 201, res.text);
  }
  const db = new pg.Client({ connectionString: srv.db.url });
  await db.connect();
  // The server's list transactions (a cursor waiting between fetches).
  const openLists = async () =>
    (
      await db.query(
        `select count(*)::int as n from pg_stat_activity
          where datname = current_database() and state like 'idle in transaction%' and query like '%list_cursor%'`,
      )
    ).rows[0].n as number;
  try {
    let response: import('node:http').IncomingMessage | undefined;
    const chunks: Buffer[] = [];
    await new Promise<void>((resolve, reject) => {
      const req = https.request(new URL(path, srv.url), { agent: srv.adminAgent }, (res) => {
        response = res;
        assert.equal(res.statusCode, 200);
        res.once('data', (c: Buffer) => {
          chunks.push(c);
          res.pause();
          resolve();
        });
      });
      req.once('error', reject);
      req.end();
    });
    await new Promise((r) => setTimeout(r, 1500));
    assert.equal(await openLists(), 0, 'a stalled list gives its connection back');
    // Changes meanwhile do not show in the list: it goes on at its own version.
    assert.equal((await api.delete(`${path}/big-23`)).status, 200);
    assert.equal((await api.post(path, configMap('added-later'))).status, 201);
    response!.on('data', (c: Buffer) => chunks.push(c));
    const ended = new Promise<void>((resolve) => response!.on('end', () => resolve()));
    response!.resume();
    await ended;
    assert.equal(response!.complete, true);
    const list = JSON.parse(Buffer.concat(chunks).toString('utf8'));
    assert.deepEqual(
      list.items.map((i: { metadata: { name: string } }) => i.metadata.name),
      Array.from({ length: 24 }, (_, i) => `big-${String(i).padStart(2, '0')}`),
    );
    assert.equal(await openLists(), 0);
  } finally {
    await db.end();
  }
});

test('at shutdown a whole list being written is waited for like any request in flight', { timeout: 60_000 }, async () => {
  const own = await startTestServer();
  try {
    const ownApi = client(own.url, own.adminAgent);
    const path = `/api/v1/namespaces/${await createNamespace(ownApi)}/configmaps`;
    const big = 'x'.repeat(1024 * 1024);
    for (let i = 0; i < 16; i += 4) {
      const batch = [0, 1, 2, 3].map((j) => ownApi.post(path, configMap(`big-${i + j}`, { k: big })));
      for (const res of await Promise.all(batch)) assert.equal(res.status, 201, res.text);
    }
    let response: import('node:http').IncomingMessage | undefined;
    await new Promise<void>((resolve, reject) => {
      const req = https.request(new URL(path, own.url), { agent: own.adminAgent }, (res) => {
        response = res;
        res.pause();
        resolve();
      });
      req.once('error', reject);
      req.end();
    });
    // The client reads only after the server began to stop, and later than the 2 s the server gives
    // open connections once nothing is in flight any more.
    let stopped = false;
    const stopping = own.server.stop().then(() => (stopped = true));
    await new Promise((r) => setTimeout(r, 2500));
    assert.equal(stopped, false, 'the server waits for the list');
    const chunks: Buffer[] = [];
    response!.on('data', (c: Buffer) => chunks.push(c));
    const ended = new Promise<void>((resolve) => response!.on('end', () => resolve()));
    response!.resume();
    await ended;
    assert.equal(response!.complete, true);
    assert.equal(JSON.parse(Buffer.concat(chunks).toString('utf8')).items.length, 16);
    await stopping;
  } finally {
    await own.stop(); // the server's stop() ran already; this drops the database and data dir
  }
});
