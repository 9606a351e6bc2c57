import { performance } from 'node:perf_hooks';
import { rounded, summarize, type Summary } from './stats.ts';

export interface LoadResult {
  readonly ops: number;
  readonly seconds: number;
  readonly opsPerSecond: number;
  /** Per-operation latency in milliseconds. */
  readonly latency: Summary;
}

/**
 * Runs `total` operations from `concurrency` workers, each taking the next index as soon as its
 * previous operation finished (closed loop), and reports throughput and latency.
 */
export async function runConcurrent(concurrency: number, total: number, op: (i: number) => Promise<void>): Promise<LoadResult> {
  const latencies = new Array<number>(total);
  let next = 0;
  const worker = async () => {
    for (;;) {
      const i = next++;
      if (i >= total) return;
      const t0 = performance.now();
      await op(i);
      latencies[i] = performance.now() - t0;
    }
  };
  const start = performance.now();
  await Promise.all(Array.from({ length: Math.min(concurrency, total) }, worker));
  const seconds = (performance.now() - start) / 1000;
  return { ops: total, seconds: Number(seconds.toFixed(3)), opsPerSecond: Math.round(total / seconds), latency: rounded(summarize(latencies)) };
}

/** Times one call, in milliseconds. */
export async function timed<T>(fn: () => Promise<T>): Promise<{ ms: number; value: T }> {
  const t0 = performance.now();
  const value = await fn();
  return { ms: performance.now() - t0, value };
}
