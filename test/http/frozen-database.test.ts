import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { configMap, type Api } from '../helpers/fixtures.ts';
import { freezePostgres } from '../helpers/freeze-postgres.ts';
import { client, type Reply } from '../helpers/http.ts';
import { startPrivatePostgres, type PrivatePostgres } from '../helpers/private-postgres.ts';
import { startTestServer, type TestServer } from '../helpers/server.ts';

/**
 * A PostgreSQL that stops answering (every process of it SIGSTOPped: what a hung server or a network
 * blackhole looks like) must not hold requests for as long as it is frozen, and everything must
 * work again, with no write lost or doubled, once it answers again. The server runs with small
 * timeouts so that this takes seconds.
 */
const TIMEOUTS = ['--request-timeout=3s', '--database-statement-timeout=2s', '--database-connect-timeout=1s', '--database-healthcheck-timeout=500ms'];
const CMS = '/api/v1/namespaces/default/configmaps';
const DEADLINE_TEXT = 'Timeout: request did not complete within requested timeout - context deadline exceeded';
const ALLOTTED_TEXT = 'Timeout: request did not complete within the allotted timeout';

let pg: PrivatePostgres;
let srv: TestServer;
let api: Api;
let anon: Api;

before(async () => {
  pg = await startPrivatePostgres({ hba: 'host all all 127.0.0.1/32 trust\nhost all all ::1/128 trust\n' });
  const url = pg.url();
  srv = await startTestServer(
    // The flags win over a pooler the test environment may name: this server talks to its own PostgreSQL.
    // Without the garbage collector: its start lists every kind, and a freeze during those lists would
    // leave no pooled connection for the writes this test expects to be sent into the silence.
    // A pool larger than the default: the connections warmed below must outnumber whatever background
    // work (informer relists, the flow-control upkeep, object counts) holds when the freeze comes.
    [`--database-url=${url}`, '--database-listen-url=', '--database-max-connections=40', '--controllers=*,-garbage-collector-controller', ...TIMEOUTS],
    { database: { url, name: 'postgres', drop: async () => undefined } },
  );
  api = client(srv.url, srv.adminAgent);
  anon = client(srv.url, srv.anonymousAgent);
});

after(async () => {
  await srv?.stop().catch(() => undefined);
  await pg?.stop();
});

async function timed(call: Promise<Reply>): Promise<Reply & { ms: number }> {
  const started = performance.now();
  const reply = await call;
  return { ...reply, ms: performance.now() - started };
}

/**
 * Answered well before the request timeout (3 s), one of two ways: 504 when the statement went out
 * and no answer came (a write may still be applied, so no Retry-After invites a blind retry), or
 * 503 with Retry-After when no connection could be had (nothing was sent, a retry is safe).
 */
function assertPromptFailure(what: string, reply: Reply & { ms: number }): void {
  assert.ok(reply.ms < 2900, `${what} answered after ${Math.round(reply.ms)} ms`);
  assert.equal(reply.json?.kind, 'Status', `${what}: ${reply.text}`);
  if (reply.status === 504) {
    assert.equal(reply.json.reason, 'Timeout');
    assert.equal(reply.json.message, DEADLINE_TEXT);
    assert.equal(reply.headers['retry-after'], undefined);
  } else {
    assert.equal(reply.status, 503, `${what}: ${reply.text}`);
    assert.equal(reply.json.reason, 'ServiceUnavailable');
    assert.equal(reply.headers['retry-after'], '1');
  }
}

async function untilReady(): Promise<void> {
  const deadline = Date.now() + 20_000;
  for (;;) {
    if ((await anon.get('/readyz')).status === 200) return;
    if (Date.now() > deadline) throw new Error('the server did not become ready again after the database came back');
    await new Promise((r) => setTimeout(r, 100));
  }
}

/** Opens connections before a freeze: requests get one at once and send their statements into the silence. */
async function warmConnections(): Promise<void> {
  // Pings issued together open one connection each; pg-pool keeps them idle for 10 s. Thirty: the
  // four requests of the test and any background work take some, and a write batch must still find one.
  await Promise.all(Array.from({ length: 30 }, () => srv.server.storage.ping()));
}

/**
 * Creates of `names` sent together into the frozen database, each answered promptly (504 or 503):
 * more writes than the batcher sends at once, so some go out and hang, the rest wait behind them.
 */
async function writesIntoSilence(names: readonly string[]): Promise<Map<string, number>> {
  const replies = await Promise.all(names.map((name) => timed(api.post(CMS, configMap(name, { n: name })))));
  const outcome = new Map<string, number>();
  for (const [i, reply] of replies.entries()) {
    outcome.set(names[i], reply.status);
    assertPromptFailure(`POST ${names[i]}`, reply);
  }
  return outcome;
}

test('with PostgreSQL frozen, GET, LIST and POST answer 504 (sent, unanswered) or 503 (never sent) well within the request timeout, /readyz fails fast naming postgres, and afterwards no write is lost or doubled', async () => {
  assert.equal((await api.post(CMS, configMap('before'))).status, 201);
  await warmConnections();
  // The controllers' background writes (lease renewals above all) would otherwise take batches the
  // server sends, and the writes below could all wait behind them (503, none 504).
  await srv.server.controllers.stop();
  const names = Array.from({ length: 12 }, (_, i) => `during-${i}`);
  let outcome: Map<string, number>;
  const frozen = freezePostgres(pg.pid);
  try {
    const readyz = timed(anon.get('/readyz?verbose'));
    const one = timed(api.get('/readyz/postgres'));
    const get = timed(api.get(`${CMS}/before`));
    const list = timed(api.get(CMS));
    const writes = writesIntoSilence(names);

    const ready = await readyz;
    assert.equal(ready.status, 500, ready.text);
    assert.match(ready.text, /^\[-\]postgres failed: reason withheld$/m);
    assert.match(ready.text, /readyz check failed/);
    assert.ok(ready.ms < 1500, `/readyz answered after ${Math.round(ready.ms)} ms (health check timeout 500 ms)`);
    const only = await one;
    assert.equal(only.status, 500);
    assert.equal(only.text, 'internal server error: the database did not answer within 500 ms\n');

    for (const [what, reply] of [['GET', await get], ['LIST', await list]] as const) {
      assertPromptFailure(what, reply);
    }
    outcome = await writes;
  } finally {
    frozen.thaw();
  }
  await untilReady();
  if (![...outcome.values()].includes(504)) {
    // Every write waited behind work that held the batches or the connections at the moment of the
    // freeze (background reads and writes of a busy machine): none was sent. A second freeze, with
    // connections warmed again, sends some.
    await warmConnections();
    const again = Array.from({ length: 12 }, (_, i) => `again-${i}`);
    const refrozen = freezePostgres(pg.pid);
    try {
      outcome = new Map([...outcome, ...(await writesIntoSilence(again))]);
    } finally {
      refrozen.thaw();
    }
    await untilReady();
  }
  assert.ok([...outcome.values()].includes(504), `some writes were sent before the answers stopped: ${JSON.stringify([...outcome])}`);
  assert.ok([...outcome.values()].includes(503), 'some writes waited behind them and were never sent');
  assert.equal((await api.get(`${CMS}/before`)).status, 200);

  // A 503 was never applied; a 504 may have been. Retried, each lands exactly once.
  for (const [name, status] of outcome) {
    const exists = (await api.get(`${CMS}/${name}`)).status === 200;
    if (status === 503) assert.equal(exists, false, `${name} answered 503 but was applied`);
    const retry = await api.post(CMS, configMap(name, { n: name }));
    // A 504's statement may still be committing when it is looked at: then the retry finds it.
    const expected = exists ? [409] : status === 504 ? [201, 409] : [201];
    assert.ok(expected.includes(retry.status), `${name}: ${retry.text}`);
  }
  const items = (await api.get(CMS)).json.items as Array<{ metadata: { name: string } }>;
  const listed = items.map((i) => i.metadata.name).sort();
  assert.deepEqual(listed, ['before', ...outcome.keys()].sort());
  // The write path is whole again.
  assert.equal((await api.post(CMS, configMap('after'))).status, 201);
});

test('the request timeout answers 504 before the storage does: the timeout parameter shortens it, reads and writes get upstream\'s texts', async () => {
  await untilReady();
  const frozen = freezePostgres(pg.pid);
  try {
    const [get, post] = await Promise.all([
      timed(api.get(`${CMS}/before?timeout=300ms`)),
      timed(api.post(`${CMS}?timeout=300ms`, configMap('short-timeout'))),
    ]);
    assert.equal(get.status, 504, get.text);
    assert.equal(get.json.reason, 'Timeout');
    assert.equal(get.json.message, ALLOTTED_TEXT);
    assert.deepEqual(get.json.details, {});
    assert.ok(get.ms >= 250 && get.ms < 900, `GET answered after ${Math.round(get.ms)} ms (timeout=300ms)`);
    assert.equal(post.status, 504, post.text);
    assert.equal(post.json.message, DEADLINE_TEXT);
    assert.ok(post.ms >= 250 && post.ms < 900, `POST answered after ${Math.round(post.ms)} ms (timeout=300ms)`);
  } finally {
    frozen.thaw();
  }
  await untilReady();
});

test('a stopped PostgreSQL is still answered 503 at once, and /readyz fails at once', async () => {
  await untilReady();
  await pg.stop();
  const get = await timed(api.get(`${CMS}/before`));
  assert.equal(get.status, 503, get.text);
  assert.equal(get.headers['retry-after'], '1');
  assert.ok(get.ms < 500, `GET answered after ${Math.round(get.ms)} ms`);
  const ready = await timed(anon.get('/readyz'));
  assert.equal(ready.status, 500);
  assert.ok(ready.ms < 500, `/readyz answered after ${Math.round(ready.ms)} ms`);
});
