import { performance } from 'node:perf_hooks';
import { rounded, summarize, type Summary } from './stats.ts';

export interface LoadResult {
  readonly ops: number;
  readonly seconds: number;
  /** The median of the rounds' throughputs. */
  readonly opsPerSecond: number;
  /** Each round's throughput, in the order run. */
  readonly rounds: number[];
  /** Per-operation latency in milliseconds, over every round. */
  readonly latency: Summary;
}

/**
 * Runs `total` operations from `concurrency` workers, each taking the next index as soon as its
 * previous operation finished (closed loop). Returns the elapsed seconds and each op's latency.
 */
export async function runConcurrent(concurrency: number, total: number, op: (i: number) => Promise<void>, firstIndex = 0): Promise<{ seconds: number; latencies: number[] }> {
  const latencies = new Array<number>(total);
  let next = 0;
  const worker = async () => {
    for (;;) {
      const i = next++;
      if (i >= total) return;
      const t0 = performance.now();
      await op(firstIndex + i);
      latencies[i] = performance.now() - t0;
    }
  };
  const start = performance.now();
  await Promise.all(Array.from({ length: Math.min(concurrency, total) }, worker));
  return { seconds: (performance.now() - start) / 1000, latencies };
}

export interface Contender {
  readonly name: string;
  readonly op: (i: number) => Promise<void>;
}

/**
 * A contender that rides along in another measure's rounds (the --peer etcd run): registered against the
 * name of the contender it is compared with (e.g. 'creates: server'), so the measure itself needs no change.
 */
export interface PeerContender extends Contender {
  /** Set-up before its warm-up (seeding). */
  readonly prepare?: () => Promise<void>;
  /** Receives its result when the rounds are over. */
  readonly done?: (result: LoadResult) => void;
}

const peerContenders = new Map<string, PeerContender>();

/** Adds `peer` to every interleavedRounds call that has a contender named `alongside`. */
export function addPeerContender(alongside: string, peer: PeerContender): void {
  peerContenders.set(alongside, peer);
}

/** Warm-up operations get indexes from here on, so they never collide with measured ones. */
export const WARM_BASE = 1_000_000_000;

/** A name for operation i: `cm-000042`, or `warm-000003` for a warm-up operation. */
export function opName(prefix: string, i: number): string {
  return i >= WARM_BASE ? `warm-${String(i - WARM_BASE).padStart(6, '0')}` : `${prefix}-${String(i).padStart(6, '0')}`;
}

/**
 * Throughput of several contenders (the server, raw PostgreSQL …) measured in interleaved rounds
 * (S R S R …) after a warm-up of each, so drift in the machine's background load hits them alike.
 * Operation indexes are unique across the warm-up and every round.
 */
export async function interleavedRounds(
  contenders: readonly Contender[],
  options: { concurrency: number; total: number; rounds: number; warmup: number; onPhase?: (name: string, ops: number) => void },
): Promise<Record<string, LoadResult>> {
  const peers = contenders.flatMap((c) => (peerContenders.has(c.name) ? [peerContenders.get(c.name)!] : []));
  for (const p of peers) await p.prepare?.();
  contenders = [...contenders, ...peers];
  for (const c of contenders) {
    options.onPhase?.(`${c.name} (warm-up)`, options.warmup);
    await runConcurrent(options.concurrency, options.warmup, c.op, WARM_BASE);
  }
  const perRound = Math.max(1, Math.ceil(options.total / options.rounds));
  const acc = new Map<string, { seconds: number; ops: number; rounds: number[]; latencies: number[] }>();
  for (const c of contenders) acc.set(c.name, { seconds: 0, ops: 0, rounds: [], latencies: [] });
  for (let r = 0; r < options.rounds; r++) {
    for (const c of contenders) {
      options.onPhase?.(c.name, perRound);
      const res = await runConcurrent(options.concurrency, perRound, c.op, r * perRound);
      const a = acc.get(c.name)!;
      a.seconds += res.seconds;
      a.ops += perRound;
      a.rounds.push(Math.round(perRound / res.seconds));
      for (const l of res.latencies) a.latencies.push(l);
    }
  }
  const out: Record<string, LoadResult> = {};
  for (const [name, a] of acc) {
    const sorted = [...a.rounds].sort((x, y) => x - y);
    out[name] = {
      ops: a.ops,
      seconds: Number(a.seconds.toFixed(3)),
      opsPerSecond: sorted[Math.floor((sorted.length - 1) / 2)],
      rounds: a.rounds,
      latency: rounded(summarize(a.latencies)),
    };
  }
  for (const p of peers) p.done?.(out[p.name]);
  return out;
}

/** Times one call, in milliseconds. */
export async function timed<T>(fn: () => Promise<T>): Promise<{ ms: number; value: T }> {
  const t0 = performance.now();
  const value = await fn();
  return { ms: performance.now() - t0, value };
}
