import assert from 'node:assert/strict';
import { Writable } from 'node:stream';
import { after, before, test } from 'node:test';
import pg from 'pg';
import pino from 'pino';
import { createNamespace, type Api } from '../helpers/fixtures.ts';
import { client } from '../helpers/http.ts';
import { startTestServer, type TestServer } from '../helpers/server.ts';

// What the server logs at its default level, line by line.
const lines: string[] = [];
const sink = new Writable({
  write(chunk: Buffer, _enc, done) {
    lines.push(...chunk.toString('utf8').split('\n').filter(Boolean));
    done();
  },
});

let srv: TestServer;
let api: Api;
let ns: string;
before(async () => {
  srv = await startTestServer([], { logger: pino({ level: 'info' }, sink) });
  api = client(srv.url, srv.adminAgent);
  ns = await createNamespace(api);
  // A rule of this database's own that refuses some writes: PostgreSQL's error then quotes the
  // whole refused row (the Secret's data included) in its `detail`.
  const db = new pg.Client({ connectionString: srv.db.url });
  await db.connect();
  try {
    await db.query(`alter table objects add constraint refuse_marked check (object -> 'metadata' -> 'labels' ->> 'refuse' is null)`);
  } finally {
    await db.end();
  }
});
after(async () => {
  await srv.stop();
});

const SECRET_TEXT = 'hunter2-correct-horse-battery-staple';

test('a Secret write the database refuses is answered 500 without internals, and its value is never logged', async () => {
  const res = await api.post(`/api/v1/namespaces/${ns}/secrets`, {
    metadata: { name: 'refused', labels: { refuse: 'yes' } },
    stringData: { password: SECRET_TEXT },
  });
  assert.equal(res.status, 500, res.text);
  assert.equal(res.json.reason, 'InternalError');
  assert.doesNotMatch(res.text, /constraint|relation|objects|refuse_marked|Failing row/);
  assert.equal(res.json.message, 'Internal error occurred: the server could not complete the request; the details are in its log');
  const logged = lines.join('\n');
  assert.match(logged, /violates check constraint/, 'the failure itself is logged');
  const encoded = Buffer.from(SECRET_TEXT).toString('base64');
  assert.ok(!logged.includes(SECRET_TEXT) && !logged.includes(encoded) && !logged.includes(encoded.slice(0, 24)), logged);
  assert.doesNotMatch(logged, /Failing row contains/);
});

test('a Secret with a lone surrogate after a secret text never puts that text in the log', async () => {
  const before = lines.length;
  const body = `{"metadata":{"name":"lone","annotations":{"z":"${SECRET_TEXT}\\ud800"}},"type":"Opaque"}`;
  const res = await api.post(`/api/v1/namespaces/${ns}/secrets`, body);
  assert.ok(res.status < 500, res.text);
  const logged = lines.slice(before).join('\n');
  assert.ok(!logged.includes(SECRET_TEXT.slice(-20)), logged);
});
