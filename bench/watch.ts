import { readFile } from 'node:fs/promises';
import http2 from 'node:http2';
import https from 'node:https';
import { performance } from 'node:perf_hooks';
import pg from 'pg';
import { ensureNamespace, type BenchContext } from './context.ts';
import { expect } from './http.ts';
import { Deliveries } from './deliveries.ts';
import { configMapBody, createOp, encodeOps, WRITE_BATCH_SQL } from './objects.ts';
import type { Row } from './report.ts';
import { rounded, summarize } from './stats.ts';

const NAME_PREFIX = 'bw-';
/** Finds the written object's name in an event line without parsing ~1 KiB of JSON per watcher. */
const NAME_RE = /"name": ?"bw-(\d+)"/;
const SOCKETS_PER_AGENT = 256;
const OPEN_WAVE = 50;
/** Upstream's default stream limit per HTTP/2 connection: client-go opens another connection when one is full. */
const STREAMS_PER_SESSION = 100;

interface Watch {
  close(): void;
  ended: boolean;
}

/**
 * Write-to-event latency with W open watches on one namespace's ConfigMaps: writes go one at a time;
 * each is timed from just before its POST is sent to the arrival of its event at every watcher.
 * Raw: a one-op kube_write_batch (INSERT + history + pg_notify, committed) to a LISTENing client.
 */
export async function measureWatch(ctx: BenchContext): Promise<Row[]> {
  const { cfg } = ctx;
  const ns = 'bench-watch';
  const W = cfg.watchers;
  await ensureNamespace(ctx, ns);
  const collection = `/api/v1/namespaces/${ns}/configmaps`;
  const startRv = (JSON.parse((await expect(200, ctx.url(`${collection}?limit=1`), ctx.agent)).text) as { metadata: { resourceVersion: string } }).metadata.resourceVersion;

  const total = cfg.watchWrites;
  const warmups = 3;
  const deliveries = new Deliveries(W, total, warmups);
  let strayEvents = 0;

  const onLine = (line: string, at: number) => {
    const m = NAME_RE.exec(line);
    if (!m) {
      strayEvents++;
      return;
    }
    deliveries.arrived(Number(m[1]), at);
  };

  const path = `${collection}?watch=true&resourceVersion=${startRv}&timeoutSeconds=1800`;
  const watches: Watch[] = [];
  /** Per watch: request sent → response headers (the server answers once the watch is registered and caught up). */
  const openTimes: number[] = [];
  /** Splits a stream's text into event lines. */
  const lineReader = () => {
    let buffer = '';
    return (chunk: string) => {
      const at = performance.now();
      buffer += chunk;
      let nl: number;
      while ((nl = buffer.indexOf('\n')) >= 0) {
        onLine(buffer.slice(0, nl), at);
        buffer = buffer.slice(nl + 1);
      }
    };
  };

  // HTTP/1.1: every watch its own TLS connection (kubectl with HTTP/2 disabled).
  const agents = cfg.http === '1.1' ? Array.from({ length: Math.ceil(W / SOCKETS_PER_AGENT) }, () => ctx.server.agent({ maxSockets: SOCKETS_PER_AGENT })) : [];
  const openH1 = (i: number) =>
    new Promise<void>((resolve, reject) => {
      const sentAt = performance.now();
      const req = https.request(ctx.url(path), { agent: agents[i % agents.length], headers: { Accept: 'application/json' } }, (res) => {
        if (res.statusCode !== 200) return reject(new Error(`watch ${i} answered ${res.statusCode}`));
        openTimes.push(performance.now() - sentAt);
        res.setEncoding('utf8');
        res.on('data', lineReader());
        res.on('close', () => (w.ended = true));
        resolve();
      });
      const w: Watch = { close: () => req.destroy(), ended: false };
      req.on('error', (err) => (w.ended ? undefined : reject(err)));
      req.end();
      watches.push(w);
    });

  // HTTP/2 (kubectl's and client-go's default): the watches multiplexed over as few connections as the
  // server's stream limit allows, as an informer's transport does.
  const { tls } = ctx.server;
  const sessions =
    cfg.http === '2'
      ? Array.from({ length: Math.ceil(W / STREAMS_PER_SESSION) }, () => {
          const s = http2.connect(ctx.server.url, { ca: tls.ca, ...(tls.cert ? { cert: tls.cert, key: tls.key } : {}) });
          s.on('error', () => undefined);
          return s;
        })
      : [];
  const openH2 = (i: number) =>
    new Promise<void>((resolve, reject) => {
      const sentAt = performance.now();
      const stream = sessions[Math.floor(i / STREAMS_PER_SESSION)].request({ ':path': path, accept: 'application/json' });
      const w: Watch = { close: () => stream.close(), ended: false };
      stream.on('response', (headers) => {
        const status = Number(headers[':status']);
        if (status !== 200) return reject(new Error(`watch ${i} answered ${status}`));
        openTimes.push(performance.now() - sentAt);
        resolve();
      });
      stream.setEncoding('utf8');
      stream.on('data', lineReader());
      stream.on('close', () => (w.ended = true));
      stream.on('error', (err) => (w.ended ? undefined : reject(err)));
      watches.push(w);
    });
  const open = cfg.http === '2' ? openH2 : openH1;
  const over = cfg.http === '2' ? `${sessions.length} HTTP/2 connections` : `${W} HTTP/1.1 connections`;

  try {
    const rssBefore = await serverRssMiB(ctx);
    ctx.step('watch: open', `${W} watches over ${over}`, W);
    const openStart = performance.now();
    for (let i = 0; i < W; i += OPEN_WAVE) await Promise.all(Array.from({ length: Math.min(OPEN_WAVE, W - i) }, (_, j) => open(i + j)));
    const openMs = performance.now() - openStart;
    const opens = rounded(summarize(openTimes));

    const write = (k: number) =>
      deliveries.write(k, async () => {
        await expect(201, ctx.url(collection), ctx.agent, 'POST', configMapBody(ns, `${NAME_PREFIX}${k}`, cfg.payloadBytes));
      });
    // Warm-up writes also prove every watch is registered (headers go out before registration).
    ctx.step('watch: (warm-up)', '');
    for (let k = 0; k < warmups; k++) await write(k);
    ctx.step('watch: server writes', `${W} watches open in ${Math.round(openMs)} ms; ${total} writes, one at a time`, total);
    const acks: number[] = [];
    for (let k = warmups; k < warmups + total; k++) {
      acks.push(await write(k));
      if (cfg.watchGapMs > 0) await new Promise((r) => setTimeout(r, cfg.watchGapMs));
    }
    const closedEarly = watches.filter((w) => w.ended).length;
    // After the writes: every watcher has had events encoded and written (its buffers at their steady size).
    const rssAfter = await serverRssMiB(ctx);

    const raw = await rawNotifyLatency(ctx, total);
    const { deliveries: all, firstWatcher: firsts, lastWatcher: lasts } = deliveries.summary();
    const ack = rounded(summarize(acks));
    const details = { deliveries: all, firstWatcher: firsts, lastWatcher: lasts, writeAck: ack, raw, openMs: Math.round(openMs), opens, rssBefore, rssAfter, closedEarly, strayEvents };
    return [
      {
        id: 'watch_event_p50',
        metric: `write→event p50, ${W} watchers`,
        unit: 'ms',
        server: all.p50,
        raw: raw.notify.p50,
        better: 'lower',
        note:
          `raw: one-op kube_write_batch (INSERT objects + history + pg_notify) sent → notification at a LISTENing pg client, ${total} times. ` +
          `Server: over ${all.count} deliveries of ${total} writes; first watcher p50 ${firsts.p50} ms, last watcher p50 ${lasts.p50} ms ` +
          `(fan-out spread); the POST itself p50 ${ack.p50} ms. Includes the client parsing ${W} streams in this process.`,
        details,
      },
      {
        id: 'watch_event_p99',
        metric: `write→event p99, ${W} watchers`,
        unit: 'ms',
        server: all.p99,
        raw: raw.notify.p99,
        better: 'lower',
      },
      {
        id: 'watch_open_p50',
        metric: `watch set-up p50, ${W} watches`,
        unit: 'ms',
        server: opens.p50,
        raw: null,
        better: 'lower',
        note:
          `per watch, request sent → response headers (a TLS handshake with a client certificate on a new connection, authn/authz, catch-up from resourceVersion), ` +
          `${OPEN_WAVE} at a time over ${over}; all ${W} open in ${Math.round(openMs)} ms.`,
        details: { opens, totalMs: Math.round(openMs) },
      },
      { id: 'watch_open_p99', metric: `watch set-up p99, ${W} watches`, unit: 'ms', server: opens.p99, raw: null, better: 'lower' },
      ...(rssAfter === null
        ? []
        : [
            {
              id: 'watch_server_rss',
              metric: `server RSS with ${W} watches open`,
              unit: 'MiB',
              server: rssAfter,
              raw: null,
              better: 'lower' as const,
              note: `the server process's resident set after the writes; ${rssBefore} MiB before the watches opened.`,
              details: { rssBefore, rssAfter },
            },
          ]),
    ];
  } finally {
    for (const w of watches) {
      w.ended = true;
      w.close();
    }
    for (const a of agents) a.destroy();
    for (const s of sessions) s.destroy();
  }
}

/** The server process's resident set in MiB (null in-process, or off Linux). */
async function serverRssMiB(ctx: BenchContext): Promise<number | null> {
  if (ctx.server.mode !== 'child' || ctx.server.pid === undefined) return null;
  try {
    const status = await readFile(`/proc/${ctx.server.pid}/status`, 'utf8');
    const kib = /^VmRSS:\s+(\d+) kB/m.exec(status);
    return kib ? Math.round(Number(kib[1]) / 1024) : null;
  } catch {
    return null;
  }
}

/** Sequential one-op writes on the raw database, each timed to its NOTIFY's arrival at a listener. */
async function rawNotifyLatency(ctx: BenchContext, count: number) {
  ctx.step('watch: raw', `${count} write→NOTIFY round trips`, count + 3);
  const listener = new pg.Client({ connectionString: ctx.rawDbUrl });
  const writer = new pg.Client({ connectionString: ctx.rawDbUrl });
  await Promise.all([listener.connect(), writer.connect()]);
  try {
    await listener.query('listen kube_changes');
    let waiting: ((at: number) => void) | null = null;
    listener.on('notification', () => {
      const at = performance.now();
      waiting?.(at);
      waiting = null;
    });
    const notify: number[] = [];
    const commit: number[] = [];
    for (let k = -3; k < count; k++) {
      const arrived = new Promise<number>((resolve) => (waiting = resolve));
      const op = encodeOps([createOp('raw-watch', `${NAME_PREFIX}${k + 3}`, ctx.cfg.payloadBytes)]);
      const t0 = performance.now();
      await writer.query({ name: 'kube_write_batch', text: WRITE_BATCH_SQL, values: [op] });
      const committed = performance.now() - t0;
      const at = await arrived;
      if (k >= 0) {
        notify.push(at - t0);
        commit.push(committed);
      }
      if (ctx.cfg.watchGapMs > 0) await new Promise((r) => setTimeout(r, ctx.cfg.watchGapMs));
    }
    return { notify: rounded(summarize(notify)), commit: rounded(summarize(commit)) };
  } finally {
    await Promise.all([listener.end(), writer.end()]);
  }
}
