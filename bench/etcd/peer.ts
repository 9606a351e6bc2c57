import { performance } from 'node:perf_hooks';
import type { BenchContext } from '../context.ts';
import { addPeerContender, opName, timed, type LoadResult } from '../load.ts';
import { Deliveries } from '../deliveries.ts';
import { seqName, storedConfigMapText } from '../objects.ts';
import { rounded, summarize, type Summary } from '../stats.ts';
import { EtcdClient, registryKey, type WatchResponse } from './client.ts';
import { startEtcd, type EtcdServer } from './server.ts';

const GET_OBJECTS = 1000;
const WATCHERS_PER_CHANNEL = 256;
const OPEN_WAVE = 50;
const WATCH_KEY_RE = /bw-(\d+)$/;

/** An etcd figure for a row of the table, with what it is. */
export interface PeerFigure {
  readonly value: number | null;
  readonly note?: string;
  readonly details?: unknown;
}

/**
 * etcd beside the server, doing what kube-apiserver asks of etcd for the same work (see client.ts):
 * its creates and gets ride in the server's interleaved rounds (registered with load.ts); lists are timed
 * by lists.ts through `list*`; the watch is measured after the server's (measureWatch). Values stored are
 * the same ~1 KiB ConfigMap texts the bench stores in PostgreSQL (kube-apiserver would store protobuf
 * for a built-in kind; the size is what matters here).
 */
export class EtcdPeer {
  readonly server: EtcdServer;
  /** One gRPC connection for request-response work: kube-apiserver talks to etcd over one client. */
  readonly client: EtcdClient;
  /** Figures by row id, filled in as the measures run. */
  readonly figures = new Map<string, PeerFigure>();
  readonly #payloadBytes: number;

  private constructor(server: EtcdServer, payloadBytes: number) {
    this.server = server;
    this.client = new EtcdClient(server.endpoint);
    this.#payloadBytes = payloadBytes;
  }

  static async start(payloadBytes: number, step: BenchContext['step']): Promise<EtcdPeer> {
    const peer = new EtcdPeer(await startEtcd(), payloadBytes);
    peer.#registerContenders(step);
    return peer;
  }

  #registerContenders(step: BenchContext['step']): void {
    const bytes = this.#payloadBytes;
    addPeerContender('creates: server', {
      name: 'creates: etcd',
      op: async (i) => {
        const key = registryKey('configmaps', 'bench-creates', opName('cm', i));
        if (!(await this.client.createIfAbsent(key, storedConfigMapText('bench-creates', opName('cm', i), bytes)))) throw new Error(`etcd create of ${key}: exists`);
      },
      done: (r) => this.#fromLoad(r, 'creates', ['creates_per_second', 'creates_per_second_group_commit'], 'create_latency_p50', 'create_latency_p99'),
    });
    addPeerContender('gets: server', {
      name: 'gets: etcd',
      prepare: async () => {
        step('gets: etcd seed', `${GET_OBJECTS} keys`);
        await this.seed('bench-gets', 'cm', GET_OBJECTS);
      },
      op: async (i) => {
        const res = await this.client.get(registryKey('configmaps', 'bench-gets', seqName('cm', (i * 7919) % GET_OBJECTS)));
        if (res.kvs?.length !== 1) throw new Error('etcd get found nothing');
      },
      done: (r) => this.#fromLoad(r, 'gets', ['gets_per_second'], undefined, 'get_latency_p99'),
    });
  }

  #fromLoad(r: LoadResult, what: string, throughputIds: string[], p50Id: string | undefined, p99Id: string): void {
    const note = `etcd ${this.server.version}: ${what === 'creates' ? 'Txn(If mod_revision(key)=0 Then Put) per create' : 'linearizable Range of one key per get'} over one gRPC connection; rounds (ops/s) ${r.rounds.join(', ')}.`;
    throughputIds.forEach((id, i) => this.figures.set(id, { value: r.opsPerSecond, ...(i === 0 ? { note, details: r } : {}) }));
    if (p50Id) this.figures.set(p50Id, { value: r.latency.p50 });
    this.figures.set(p99Id, { value: r.latency.p99 });
  }

  /** Stores `count` ConfigMap texts under /registry/configmaps/<namespace>/ (set-up, in Txns of 100 puts). */
  async seed(namespace: string, prefix: string, count: number): Promise<void> {
    const entries: [string, string][] = [];
    for (let i = 0; i < count; i++) {
      const name = seqName(prefix, i);
      entries.push([registryKey('configmaps', namespace, name), storedConfigMapText(namespace, name, this.#payloadBytes)]);
      if (entries.length === 1000 || i === count - 1) await this.client.putMany(entries.splice(0));
    }
  }

  /**
   * List timings for lists.ts, on `count` keys seeded here: a full list (one Range over the prefix, no
   * limit: what kube-apiserver sends etcd for a list without limit), page 1 (Range with limit) and page K
   * (Range from the key after page K-1's last, at page 1's revision: kube-apiserver's continue).
   */
  async lists(namespace: string, count: number, limit: number, pages: readonly number[], reps: number, step: BenchContext['step']): Promise<{ full: Summary; pages: Map<number, Summary> }> {
    step('lists: etcd seed', `${count} keys`);
    await this.seed(namespace, 'cm', count);
    const prefix = `/registry/configmaps/${namespace}/`;
    const time = async (fn: () => Promise<unknown>, n: number) => {
      await fn();
      const samples: number[] = [];
      for (let i = 0; i < n; i++) samples.push((await timed(fn)).ms);
      return rounded(summarize(samples));
    };
    step('lists: full, etcd', `${reps} Ranges over ${count} keys`, reps + 1);
    const full = await time(async () => {
      const res = await this.client.range(prefix);
      if (res.kvs?.length !== count) throw new Error(`etcd full list returned ${res.kvs?.length} keys, expected ${count}`);
    }, reps);
    const rev = (await this.client.range(prefix, { limit: 1 })).header?.revision;
    const out = new Map<number, Summary>();
    for (const page of pages) {
      step(`lists: page ${page}, etcd`, '', reps * 3 + 1);
      const fromKey = page === 1 ? undefined : Buffer.from(`${registryKey('configmaps', namespace, seqName('cm', (page - 1) * limit - 1))}\u0000`);
      const expected = Math.max(0, Math.min(limit, count - (page - 1) * limit));
      out.set(
        page,
        await time(async () => {
          const res = await this.client.range(prefix, { limit, ...(fromKey ? { fromKey, revision: rev } : {}) });
          if ((res.kvs?.length ?? 0) !== expected) throw new Error(`etcd page ${page} returned ${res.kvs?.length} keys, expected ${expected}`);
        }, reps * 3),
      );
    }
    return { full, pages: out };
  }

  /**
   * Write→event latency with W prefix watches (each its own Watch stream, spread over one gRPC connection
   * per 256 watchers, opened in waves of 50 as the server's are), writes one at a time as creates.
   */
  async watch(W: number, writes: number, gapMs: number, step: BenchContext['step']): Promise<void> {
    const namespace = 'bench-watch';
    const prefix = `/registry/configmaps/${namespace}/`;
    const warmups = 3;
    const clients = Array.from({ length: Math.ceil(W / WATCHERS_PER_CHANNEL) }, () => new EtcdClient(this.server.endpoint));
    const deliveries = new Deliveries(W, writes, warmups);
    const onResponse = (res: WatchResponse) => {
      const at = performance.now();
      for (const ev of res.events ?? []) {
        const m = WATCH_KEY_RE.exec(ev.kv?.key.toString('latin1') ?? '');
        if (m) deliveries.arrived(Number(m[1]), at);
      }
    };
    const handles: { cancel(): void }[] = [];
    try {
      step('watch: etcd open', `${W} etcd watches over ${clients.length} gRPC connections`, W);
      const openStart = performance.now();
      for (let i = 0; i < W; i += OPEN_WAVE) {
        const wave = await Promise.all(Array.from({ length: Math.min(OPEN_WAVE, W - i) }, (_, j) => clients[(i + j) % clients.length].watchPrefix(prefix, onResponse)));
        handles.push(...wave);
      }
      const openMs = performance.now() - openStart;
      const write = (k: number) =>
        deliveries.write(
          k,
          async () => {
            const name = `bw-${k}`;
            const text = storedConfigMapText(namespace, name, this.#payloadBytes);
            if (!(await this.client.createIfAbsent(registryKey('configmaps', namespace, name), text))) throw new Error(`etcd watch write ${k}: exists`);
          },
          'etcd write',
        );
      step('watch: etcd (warm-up)', '');
      for (let k = 0; k < warmups; k++) await write(k);
      step('watch: etcd writes', `${W} etcd watches open in ${Math.round(openMs)} ms; ${writes} writes, one at a time`, writes);
      const acks: number[] = [];
      for (let k = warmups; k < warmups + writes; k++) {
        acks.push(await write(k));
        if (gapMs > 0) await new Promise((r) => setTimeout(r, gapMs));
      }
      const { deliveries: all, firstWatcher: firsts, lastWatcher: lasts } = deliveries.summary();
      const ack = rounded(summarize(acks));
      const note =
        `etcd: ${W} prefix watches (one Watch stream each, ${clients.length} gRPC connections) opened in ${Math.round(openMs)} ms; ` +
        `each write a create Txn; first watcher p50 ${firsts.p50} ms, last p50 ${lasts.p50} ms, Txn ack p50 ${ack.p50} ms.`;
      const details = { deliveries: all, firstWatcher: firsts, lastWatcher: lasts, writeAck: ack, openMs: Math.round(openMs) };
      this.figures.set('watch_event_p50', { value: all.p50, note, details });
      this.figures.set('watch_event_p99', { value: all.p99 });
      this.figures.set('watch_open_ms', { value: Math.round(openMs) });
    } finally {
      for (const h of handles) h.cancel();
      for (const c of clients) c.close();
    }
  }

  async stop(): Promise<void> {
    this.client.close();
    await this.server.stop();
  }
}
