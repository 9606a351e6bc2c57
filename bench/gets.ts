import { startBareHttps, type BareHttps } from './bare-https.ts';
import { ensureNamespace, seedConfigMaps, type BenchContext } from './context.ts';
import { expect } from './http.ts';
import { H2_SESSIONS, Http2Sessions } from './http2.ts';
import { interleavedRounds, type Contender } from './load.ts';
import type { Row } from './report.ts';

const OBJECTS = 1000;
/** HTTP/2 sessions shared by the get clients (client-go: one connection per host; a few here). */
/** The statement PostgresStorage.get runs (same name and text). */
const GET_SQL = 'select object::text as object, resource_version, written_outside from objects where api_group = $1 and resource = $2 and namespace = $3 and name = $4';

/**
 * Gets/s with N concurrent clients over 1,000 ConfigMaps, beside the storage's get statement run raw and
 * a bare Node HTTPS server answering one fixed ConfigMap of the same bytes (same certificate, same
 * clients, same protocol: BENCH_HTTP). With --peer etcd, etcd's quorum Range rides in the same rounds.
 */
export async function measureGets(ctx: BenchContext): Promise<Row[]> {
  const { cfg } = ctx;
  const c = cfg.concurrency;
  const ns = 'bench-gets';
  await ensureNamespace(ctx, ns);
  ctx.step('gets: seed', `${OBJECTS} ConfigMaps`);
  const names = await seedConfigMaps(ctx.serverDb, ns, 'cm', OBJECTS, cfg.payloadBytes);
  const paths = names.map((name) => `/api/v1/namespaces/${ns}/configmaps/${name}`);
  const urls = paths.map((p) => ctx.url(p));
  const pick = (i: number) => (i * 7919) % OBJECTS;

  // The bare baseline answers with exactly the bytes the server sends for one of these objects.
  const sample = (await expect(200, urls[0], ctx.agent)).text;
  let bare: BareHttps | undefined;
  let serverH2: Http2Sessions | undefined;
  let bareH2: Http2Sessions | undefined;
  const bareAgent = ctx.server.agent();
  try {
    bare = await startBareHttps(cfg.http, ctx.server.tls, sample);
    ctx.trackPeerCpu(bare.pid);
    const bareUrl = new URL('/configmap', bare.url);
    let serverGet: Contender['op'];
    let bareGet: Contender['op'];
    if (cfg.http === '2') {
      const h2 = new Http2Sessions(ctx.server.url, ctx.server.tls, H2_SESSIONS);
      const b2 = new Http2Sessions(bare.url, ctx.server.tls, H2_SESSIONS);
      serverH2 = h2;
      bareH2 = b2;
      serverGet = async (i) => void (await h2.expect(200, paths[pick(i)]));
      bareGet = async () => void (await b2.expect(200, '/configmap'));
    } else {
      serverGet = async (i) => void (await expect(200, urls[pick(i)], ctx.agent));
      bareGet = async () => void (await expect(200, bareUrl, bareAgent));
    }

    ctx.step('gets', `${cfg.gets} gets each for the server, raw and bare HTTPS (HTTP/${cfg.http}), ${c} clients, ${cfg.rounds} interleaved rounds`);
    const results = await interleavedRounds(
      [
        { name: 'gets: server', op: serverGet },
        {
          name: 'gets: raw',
          op: async (i) => {
            const res = await ctx.serverDb.query({ name: 'storage_get', text: GET_SQL, values: ['', 'configmaps', ns, names[pick(i)]] });
            if (res.rows.length !== 1) throw new Error('raw get found nothing');
          },
        },
        { name: 'gets: bare HTTPS', op: bareGet },
      ],
      { concurrency: c, total: cfg.gets, rounds: cfg.rounds, warmup: Math.min(1000, Math.max(50, Math.round(cfg.gets / 10))), onPhase: (p, ops) => ctx.step(p, '', ops) },
    );
    const server = results['gets: server'];
    const raw = results['gets: raw'];
    const bareResult = results['gets: bare HTTPS'];
    const transport = cfg.http === '2' ? `HTTP/2, ${H2_SESSIONS} sessions` : 'HTTP/1.1 keep-alive';

    return [
      {
        id: 'gets_per_second',
        metric: `gets/s, ${c} clients`,
        unit: 'ops/s',
        server: server.opsPerSecond,
        raw: raw.opsPerSecond,
        better: 'higher',
        note:
          `${c} pg connections running the storage's prepared get-by-key statement (${OBJECTS} objects); clients over ${transport}. ` +
          `Rounds (ops/s): server ${server.rounds.join(', ')}; raw ${raw.rounds.join(', ')}.`,
        details: { server, raw, http: cfg.http },
      },
      {
        id: 'gets_per_second_bare_https',
        metric: `gets/s vs bare Node HTTPS, ${c} clients`,
        unit: 'ops/s',
        server: server.opsPerSecond,
        raw: bareResult.opsPerSecond,
        better: 'higher',
        note:
          `"raw" here is a bare Node HTTPS server (${transport}, the server's certificate, client certificate requested) answering every GET ` +
          `with the same ${Buffer.byteLength(sample)}-byte ConfigMap, its own process, same clients (goal: server ≥ 0.9 of it). Rounds: ${bareResult.rounds.join(', ')}.`,
        details: { bare: bareResult, bodyBytes: Buffer.byteLength(sample), http: cfg.http },
      },
      {
        id: 'get_latency_p99',
        metric: `get latency p99, ${c} clients`,
        unit: 'ms',
        server: server.latency.p99,
        raw: raw.latency.p99,
        better: 'lower',
      },
    ];
  } finally {
    serverH2?.close();
    bareH2?.close();
    bareAgent.destroy();
    await bare?.stop();
  }
}
