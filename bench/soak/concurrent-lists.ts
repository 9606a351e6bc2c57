import https from 'node:https';
import { performance } from 'node:perf_hooks';
import { newPool, seedConfigMaps } from '../context.ts';
import { expect } from '../http.ts';
import { rounded, summarize } from '../stats.ts';
import { rssMiB, rssPeak, sleep, type SoakFigure, type SoakScenario } from './scenario.ts';

const OBJECTS = 10_000;
const PAYLOAD_BYTES = 1_100;
const CONCURRENCY = [50, 200];

interface Outcome {
  status: number;
  ms: number;
  bytes: number;
}

/** One full list, read to the end and thrown away. */
function list(url: URL, agent: https.Agent): Promise<Outcome> {
  const started = performance.now();
  return new Promise((resolve) => {
    const req = https.request(url, { agent, headers: { Accept: 'application/json' } }, (res) => {
      let bytes = 0;
      res.on('data', (c: Buffer) => (bytes += c.length));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, ms: performance.now() - started, bytes }));
      res.on('error', () => resolve({ status: -1, ms: performance.now() - started, bytes }));
    });
    req.on('error', () => resolve({ status: -1, ms: performance.now() - started, bytes: 0 }));
    req.end();
  });
}

/**
 * Issue item 4: many concurrent full lists of an ~11 MB collection, by a client that is not in
 * system:masters (whom the in-flight limit never refuses), at the default limits.
 */
export const concurrentLists: SoakScenario = {
  name: 'concurrent-lists',
  description: `${CONCURRENCY.join(' and ')} concurrent full lists of ${OBJECTS} ConfigMaps (~11 MB): server RSS peak, 429s, latency`,
  flags: ['--authorization-mode=AlwaysAllow'],
  async run({ server, log }) {
    const admin = server.agent();
    const ns = 'soak-lists';
    await expect(201, new URL('/api/v1/namespaces', server.url), admin, 'POST', JSON.stringify({ apiVersion: 'v1', kind: 'Namespace', metadata: { name: ns } }));
    log(`seeding ${OBJECTS} ConfigMaps`);
    const pool = newPool(server.databaseUrl, 4);
    try {
      await seedConfigMaps(pool, ns, 'cm', OBJECTS, PAYLOAD_BYTES);
    } finally {
      await pool.end();
    }
    const url = new URL(`/api/v1/namespaces/${ns}/configmaps`, server.url);
    const anonymous = server.anonymousAgent({ maxSockets: Infinity });
    const warm = await list(url, anonymous);
    if (warm.status !== 200) throw new Error(`a full list answered ${warm.status}`);
    const figures: SoakFigure[] = [{ name: 'collection (one full list, JSON)', value: Math.round((warm.bytes / 1024 / 1024) * 10) / 10, unit: 'MiB' }];

    for (const concurrency of CONCURRENCY) {
      await sleep(3000);
      const before = rssMiB(server.pid);
      log(`${concurrency} concurrent full lists`);
      const sampler = rssPeak(server.pid, 20);
      const outcomes = await Promise.all(Array.from({ length: concurrency }, () => list(url, anonymous)));
      const peak = sampler.stop();
      await sleep(3000);
      const after = rssMiB(server.pid);
      const ok = outcomes.filter((o) => o.status === 200);
      const tooMany = outcomes.filter((o) => o.status === 429).length;
      const other = outcomes.length - ok.length - tooMany;
      const latency = rounded(summarize(ok.map((o) => o.ms)), 0);
      figures.push(
        { name: `${concurrency} lists: 200 / 429 / other`, value: `${ok.length} / ${tooMany} / ${other}` },
        { name: `${concurrency} lists: complete bodies`, value: ok.filter((o) => o.bytes === warm.bytes).length },
        { name: `${concurrency} lists: latency p50 / p99 / max`, value: `${latency.p50} / ${latency.p99} / ${latency.max}`, unit: 'ms' },
        { name: `${concurrency} lists: server RSS before / peak / after`, value: `${before} / ${peak} / ${after}`, unit: 'MiB' },
        { name: `${concurrency} lists: server RSS peak growth per list`, value: Math.round(((peak - before) / concurrency) * 100) / 100, unit: 'MiB' },
      );
    }
    return figures;
  },
};
