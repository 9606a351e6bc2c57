/** Summary statistics of latency samples (milliseconds) and throughput helpers. */

export interface Summary {
  readonly count: number;
  readonly min: number;
  readonly mean: number;
  readonly p50: number;
  readonly p90: number;
  readonly p99: number;
  readonly max: number;
}

/** The p-th percentile (0..100) of already sorted samples, nearest-rank. */
export function percentileSorted(sorted: readonly number[], p: number): number {
  if (sorted.length === 0) return Number.NaN;
  const rank = Math.ceil((p / 100) * sorted.length);
  return sorted[Math.min(sorted.length - 1, Math.max(0, rank - 1))];
}

export function percentile(samples: readonly number[], p: number): number {
  return percentileSorted([...samples].sort((a, b) => a - b), p);
}

export function summarize(samples: readonly number[]): Summary {
  const sorted = [...samples].sort((a, b) => a - b);
  const sum = sorted.reduce((s, x) => s + x, 0);
  return {
    count: sorted.length,
    min: sorted[0] ?? Number.NaN,
    mean: sorted.length ? sum / sorted.length : Number.NaN,
    p50: percentileSorted(sorted, 50),
    p90: percentileSorted(sorted, 90),
    p99: percentileSorted(sorted, 99),
    max: sorted[sorted.length - 1] ?? Number.NaN,
  };
}

/** Rounds every number of a summary for printing and JSON. */
export function rounded(s: Summary, digits = 2): Summary {
  const r = (x: number) => Number(x.toFixed(digits));
  return { count: s.count, min: r(s.min), mean: r(s.mean), p50: r(s.p50), p90: r(s.p90), p99: r(s.p99), max: r(s.max) };
}
