import assert from 'node:assert/strict';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import http2 from 'node:http2';
import https from 'node:https';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { TLSSocket } from 'node:tls';
import { test } from 'node:test';
import { ensurePki } from '../../src/auth/pki/ensure-pki.ts';
import { ConfigError, loadConfig } from '../../src/config.ts';
import { configMap, eventually } from '../helpers/fixtures.ts';
import { connectH2, h2request, h2watch } from '../helpers/h2-client.ts';
import { serveFile, startTestServer, type TestServer } from '../helpers/server.ts';

const BODY_LIMIT = 1024 * 1024;
const t = serveFile(['--http2-max-streams-per-connection=50', `--max-request-body-bytes=${BODY_LIMIT}`]);

async function adminTls(srv: TestServer) {
  const pki = path.join(srv.dataDir, 'pki');
  const [cert, key] = await Promise.all(['admin.crt', 'admin.key'].map((f) => readFile(path.join(pki, f), 'utf8')));
  return { ca: srv.ca, cert: cert!, key: key! };
}

/** Counts the HTTP/2 sessions the server accepts from now on. */
function countSessions(srv: TestServer): { readonly count: () => number; stop(): void } {
  let n = 0;
  const onSession = () => n++;
  srv.server.httpServer.on('session', onSession);
  return { count: () => n, stop: () => srv.server.httpServer.off('session', onSession) };
}

test('ALPN negotiates h2, and HTTP/1.1 is served on the same port', async () => {
  const session = await connectH2(t.srv.url, await adminTls(t.srv));
  try {
    assert.equal(session.alpnProtocol, 'h2');
    const seen: string[] = [];
    const onRequest = (req: { httpVersion: string }) => seen.push(req.httpVersion);
    t.srv.server.httpServer.on('request', onRequest);
    const r2 = await h2request(session, '/version');
    assert.equal(r2.status, 200, r2.text);
    assert.ok(r2.json.gitVersion);

    // HTTP/1.1 clients on the same port: one that offers ALPN http/1.1 (as Go's with HTTP/2 off), one that offers no ALPN.
    const tlsOptions = await adminTls(t.srv);
    const viaHttp1 = (alpn: string[] | undefined) =>
      new Promise<{ status: number; httpVersion: string; alpn: string | false | null }>((resolve, reject) => {
        const agent = new https.Agent({ ...tlsOptions, ...(alpn ? { ALPNProtocols: alpn } : {}) });
        const req = https.request(new URL('/version', t.srv.url), { agent }, (res) => {
          const negotiated = (res.socket as TLSSocket).alpnProtocol;
          res.resume();
          res.on('end', () => {
            agent.destroy();
            resolve({ status: res.statusCode!, httpVersion: res.httpVersion, alpn: negotiated });
          });
        });
        req.on('error', reject);
        req.end();
      });
    const offered = await viaHttp1(['http/1.1']);
    assert.deepEqual(offered, { status: 200, httpVersion: '1.1', alpn: 'http/1.1' });
    const none = await viaHttp1(undefined);
    assert.deepEqual(none, { status: 200, httpVersion: '1.1', alpn: false });
    t.srv.server.httpServer.off('request', onRequest);
    assert.deepEqual(seen, ['2.0', '1.1', '1.1'], 'the server saw the request of each protocol');
  } finally {
    session.close();
  }
});

test('the SETTINGS advertise the stream limit of --http2-max-streams-per-connection and upstream\'s frame and window sizes', async () => {
  const session = await connectH2(t.srv.url, await adminTls(t.srv));
  try {
    assert.equal(session.remoteSettings.maxConcurrentStreams, 50);
    assert.equal(session.remoteSettings.maxFrameSize, 256 * 1024);
    assert.equal(session.remoteSettings.initialWindowSize, 256 * 1024);
    // The connection's window (a WINDOW_UPDATE, not a setting): a full stream window for every stream.
    await eventually(async () => session.state.remoteWindowSize === 50 * 256 * 1024, `a connection window of 50 × 256 KiB (is ${session.state.remoteWindowSize})`);
  } finally {
    session.close();
  }
});

test('client certificates authenticate over h2: the admin, anonymous without one, 401 for one of another CA', async () => {
  const admin = await connectH2(t.srv.url, await adminTls(t.srv));
  const anonymous = await connectH2(t.srv.url, { ca: t.srv.ca });
  const otherDir = await mkdtemp(path.join(tmpdir(), 'pgkube-other-ca-'));
  const other = await ensurePki({ dir: otherDir, bindAddress: '127.0.0.1', extraNames: [] });
  const stranger = await connectH2(t.srv.url, { ca: t.srv.ca, cert: other.adminCert.pem, key: other.adminKey.pem });
  try {
    const review = { apiVersion: 'authentication.k8s.io/v1', kind: 'SelfSubjectReview' };
    const mine = await h2request(admin, '/apis/authentication.k8s.io/v1/selfsubjectreviews', { method: 'POST', body: review });
    assert.equal(mine.status, 201, mine.text);
    assert.equal(mine.json.status.userInfo.username, 'admin');
    assert.ok(mine.json.status.userInfo.groups.includes('system:masters'));
    // Twice on the same session: the outcome is the connection's, the answer the same.
    const again = await h2request(admin, '/apis/authentication.k8s.io/v1/selfsubjectreviews', { method: 'POST', body: review });
    assert.equal(again.json.status.userInfo.username, 'admin');

    const anon = await h2request(anonymous, `/api/v1/namespaces/${t.ns}/configmaps`);
    assert.equal(anon.status, 403, anon.text);
    assert.match(anon.json.message, /system:anonymous/);

    const bad = await h2request(stranger, `/api/v1/namespaces/${t.ns}/configmaps`);
    assert.equal(bad.status, 401, bad.text);
  } finally {
    admin.close();
    anonymous.close();
    stranger.close();
    await rm(otherDir, { recursive: true, force: true });
  }
});

test('several watches, gets and creates are multiplexed on one session', async () => {
  const sessions = countSessions(t.srv);
  const session = await connectH2(t.srv.url, await adminTls(t.srv));
  try {
    const base = `/api/v1/namespaces/${t.ns}/configmaps`;
    const watches = [h2watch(session, `${base}?watch=true`), h2watch(session, `${base}?watch=true&labelSelector=multiplexed%3Dyes`), h2watch(session, `${base}?watch=true`)];
    assert.deepEqual(await Promise.all(watches.map((w) => w.opened)), [200, 200, 200]);
    const creates = await Promise.all(
      Array.from({ length: 5 }, (_, i) => h2request(session, base, { method: 'POST', body: configMap(`mux-${i}`, { i: String(i) }, { labels: { multiplexed: 'yes' } }) })),
    );
    assert.deepEqual(creates.map((r) => r.status), [201, 201, 201, 201, 201]);
    const gets = await Promise.all(Array.from({ length: 5 }, (_, i) => h2request(session, `${base}/mux-${i}`)));
    assert.deepEqual(gets.map((r) => r.json.data.i), ['0', '1', '2', '3', '4']);
    for (const w of watches) await eventually(async () => w.events.filter((e) => e.object.metadata.name.startsWith('mux-')).length === 5, 'each watch to see the five creates');
    assert.equal(sessions.count(), 1, 'everything went over the one session');
    for (const w of watches) w.stream.close(http2.constants.NGHTTP2_CANCEL);
    await Promise.all(watches.map((w) => w.closed));
  } finally {
    sessions.stop();
    session.close();
  }
});

test('a 413, a body cut by the client and a stream it resets end only their own streams: the session and its watch go on', async () => {
  const session = await connectH2(t.srv.url, await adminTls(t.srv));
  try {
    const base = `/api/v1/namespaces/${t.ns}/configmaps`;
    const watch = h2watch(session, `${base}?watch=true&labelSelector=survivor%3Dyes`);
    assert.equal(await watch.opened, 200);

    // Declared too large: refused at once, before the body.
    const declared = session.request({ ':method': 'POST', ':path': base, 'content-type': 'application/json', 'content-length': String(BODY_LIMIT * 4) });
    declared.write(Buffer.alloc(1000, 0x20));
    const declaredReply = await new Promise<{ status: number; text: string; rstCode: number }>((resolve) => {
      let status = 0;
      let text = '';
      declared.on('response', (h) => (status = Number(h[':status'])));
      declared.setEncoding('utf8').on('data', (c: string) => (text += c));
      declared.on('error', () => undefined);
      declared.on('close', () => resolve({ status, text, rstCode: declared.rstCode }));
    });
    assert.equal(declaredReply.status, 413, declaredReply.text);
    assert.equal(JSON.parse(declaredReply.text).reason, 'RequestEntityTooLarge');
    // The stream was ended for the body still owed (RST_STREAM NO_ERROR), not the session.
    assert.equal(declaredReply.rstCode, http2.constants.NGHTTP2_NO_ERROR);

    // Too large without a Content-Length: counted, refused with 413.
    const counted = await h2request(session, base, { method: 'POST', body: Buffer.alloc(BODY_LIMIT + 1, 0x20), headers: { 'content-length': undefined } });
    assert.equal(counted.status, 413, counted.text);

    // A request whose body the client gives up on: the client resets its stream halfway.
    const cut = session.request({ ':method': 'POST', ':path': base, 'content-type': 'application/json' });
    cut.on('error', () => undefined);
    cut.write('{"metadata":');
    await new Promise((r) => setTimeout(r, 50));
    cut.close(http2.constants.NGHTTP2_CANCEL);
    await new Promise((r) => cut.once('close', r));

    // What the reset request held is released (its stream had closed before its answer was written):
    // only the metrics request itself executes.
    const executing = async () => {
      const metrics = await h2request(session, '/metrics');
      return metrics.text
        .split('\n')
        .filter((l) => l.startsWith('apiserver_flowcontrol_current_executing_requests{'))
        .reduce((sum, l) => sum + Number(l.split(' ').pop()), 0);
    };
    await eventually(async () => (await executing()) === 1, 'the reset request to release its seat');

    // The session still serves, and the watch on it still sees changes.
    assert.equal(session.closed || session.destroyed, false);
    const created = await h2request(session, base, { method: 'POST', body: configMap('survivor', {}, { labels: { survivor: 'yes' } }) });
    assert.equal(created.status, 201, created.text);
    await eventually(async () => watch.events.some((e) => e.type === 'ADDED' && e.object.metadata.name === 'survivor'), 'the watch to see the create');
    const get = await h2request(session, `${base}/survivor`);
    assert.equal(get.status, 200);
    watch.stream.close(http2.constants.NGHTTP2_CANCEL);
  } finally {
    session.close();
  }
});

test('--goaway-chance and --http2-max-streams-per-connection: from flags or the environment; a chance outside [0, 0.02] is refused in upstream\'s words', () => {
  assert.equal(loadConfig([]).goawayChance, 0);
  assert.equal(loadConfig([]).http2MaxStreamsPerConnection, 0);
  assert.equal(loadConfig(['--goaway-chance=0.02']).goawayChance, 0.02);
  assert.equal(loadConfig(['--goaway-chance=.001']).goawayChance, 0.001);
  assert.equal(loadConfig([], { GOAWAY_CHANCE: '0.01', HTTP2_MAX_STREAMS_PER_CONNECTION: '1000' }).goawayChance, 0.01);
  assert.equal(loadConfig([], { HTTP2_MAX_STREAMS_PER_CONNECTION: '1000' }).http2MaxStreamsPerConnection, 1000);
  for (const bad of ['0.021', '1', '-0.01']) {
    assert.throws(() => loadConfig([`--goaway-chance=${bad}`]), (err: Error) => err instanceof ConfigError && err.message === '--goaway-chance can not be less than 0 or greater than 0.02');
  }
  assert.throws(() => loadConfig([], { GOAWAY_CHANCE: '0.5' }), /--goaway-chance can not be less than 0 or greater than 0.02/);
  assert.throws(() => loadConfig(['--goaway-chance=often']), /invalid value "often" for --goaway-chance: must be a number/);
});

test('--goaway-chance=0.02: some HTTP/2 responses are followed by GOAWAY, never a watch, and HTTP/1.1 keeps its connection', { timeout: 180_000 }, async () => {
  const srv = await startTestServer(['--goaway-chance=0.02']);
  const tlsOptions = await adminTls(srv);
  try {
    // The default stream limit is upstream's 100.
    const first = await connectH2(srv.url, tlsOptions);
    assert.equal(first.remoteSettings.maxConcurrentStreams, 100);
    first.close();

    // Plain gets, one after another, a new session whenever the last was sent GOAWAY. With p = 0.02 a
    // run of 2000 without one has odds of 3e-18.
    let goaways = 0;
    let requests = 0;
    while (goaways < 2 && requests < 2000) {
      const session = await connectH2(srv.url, tlsOptions);
      let gone = false;
      session.once('goaway', (code: number) => {
        assert.equal(code, http2.constants.NGHTTP2_NO_ERROR);
        gone = true;
      });
      while (!gone && requests < 2000) {
        let r;
        try {
          r = await h2request(session, '/api/v1/namespaces/default');
        } catch (err) {
          // A request sent before the GOAWAY arrived is refused (a client retries it elsewhere).
          await eventually(async () => gone, `GOAWAY after ${(err as Error).message}`);
          break;
        }
        requests++;
        // The request that drew GOAWAY is answered in full first.
        assert.equal(r.status, 200, r.text);
        await new Promise((resolve) => setImmediate(resolve));
      }
      if (gone) goaways++;
      session.close();
    }
    assert.equal(goaways, 2, `two GOAWAYs within ${requests} requests`);

    // Watches never draw: 500 of them on one session (odds of passing with watches drawing: 4e-5).
    const session = await connectH2(srv.url, tlsOptions);
    let watchGoaway = false;
    session.once('goaway', () => (watchGoaway = true));
    for (let i = 0; i < 500 && !watchGoaway; i++) {
      const w = h2watch(session, '/api/v1/namespaces/default/configmaps?watch=true&resourceVersion=0');
      assert.equal(await w.opened, 200);
      w.stream.close(http2.constants.NGHTTP2_CANCEL);
      await w.closed;
    }
    assert.equal(watchGoaway, false, 'a watch drew a GOAWAY');
    session.close();

    // HTTP/1.1 is left alone: 500 requests on one kept-alive connection, none closed by the server.
    const agent = new https.Agent({ ...tlsOptions, keepAlive: true, maxSockets: 1 });
    const sockets = new Set<unknown>();
    try {
      for (let i = 0; i < 500; i++) {
        const res = await new Promise<{ status: number; connection: string | undefined }>((resolve, reject) => {
          const req = https.request(new URL('/api/v1/namespaces/default', srv.url), { agent }, (r) => {
            sockets.add(r.socket);
            r.resume();
            r.on('end', () => resolve({ status: r.statusCode!, connection: r.headers.connection }));
          });
          req.on('error', reject);
          req.end();
        });
        assert.equal(res.status, 200);
        assert.notEqual(res.connection, 'close');
      }
      assert.equal(sockets.size, 1, 'all HTTP/1.1 requests on one connection');
    } finally {
      agent.destroy();
    }
  } finally {
    await srv.stop();
  }
});

test('a watch over h2 ends cleanly when the server stops: the response completes, the session gets GOAWAY', { timeout: 60_000 }, async () => {
  const srv = await startTestServer();
  let stopped = false;
  try {
    const session = await connectH2(srv.url, await adminTls(srv));
    let goaway: number | undefined;
    session.once('goaway', (code: number) => (goaway = code));
    const watch = h2watch(session, '/api/v1/namespaces/default/configmaps?watch=true');
    assert.equal(await watch.opened, 200);
    const other = h2watch(session, '/api/v1/namespaces/default/secrets?watch=true');
    assert.equal(await other.opened, 200);
    await srv.stop();
    stopped = true;
    const [a, b] = await Promise.all([watch.closed, other.closed]);
    assert.deepEqual(a, { ended: true, rstCode: http2.constants.NGHTTP2_NO_ERROR }, 'the watch response ended with END_STREAM');
    assert.deepEqual(b, { ended: true, rstCode: http2.constants.NGHTTP2_NO_ERROR });
    assert.equal(goaway, http2.constants.NGHTTP2_NO_ERROR, 'GOAWAY with NO_ERROR');
    await eventually(async () => session.closed || session.destroyed, 'the session to close');
  } finally {
    if (!stopped) await srv.stop();
  }
});
