/** Sizes and durations of `npm run bench:scale`, from the environment (see bench/README.md). */
export interface ScaleConfig {
  /** Objects held while the watchers are open and RSS is sampled (goal: RSS ≤ 512 MiB). */
  readonly objects: number;
  readonly watchers: number;
  /** Writes fanned out to every watcher in the RSS phase. */
  readonly watchWrites: number;
  /** Objects in one resource (ConfigMaps, all namespaces) for the list and start-up figures. */
  readonly bigObjects: number;
  /** Values of the `tier` label: a selector `tier=t7` matches bigObjects / labelValues objects. */
  readonly labelValues: number;
  readonly listRepeats: number;
  readonly pageLimit: number;
  /** Pages of a limit=500 list walked by continue tokens and timed. */
  readonly pages: number;
  /** Sustained writes for the compaction figure: rate (per second) and duration. */
  readonly writeRate: number;
  readonly writeSeconds: number;
  /** Server flags for the compaction phase. */
  readonly historyWindow: string;
  readonly compactionInterval: string;
  readonly seedBatch: number;
  readonly payloadBytes: number;
  /** 'compiled' (default, as `npm start`) or 'source' (tsx; for checking the script without a build). */
  readonly serverBuild: 'compiled' | 'source';
  readonly resultsFile: string;
}

function num(name: string, def: number): number {
  const raw = process.env[name];
  if (raw === undefined || raw === '') return def;
  const n = Number(raw);
  if (!Number.isFinite(n) || n < 0) throw new Error(`${name} must be a non-negative number, got "${raw}"`);
  return Math.round(n);
}

export function loadScaleConfig(): ScaleConfig {
  const build = process.env.BENCH_SCALE_SERVER ?? 'compiled';
  if (build !== 'compiled' && build !== 'source') throw new Error(`BENCH_SCALE_SERVER must be compiled or source, got "${build}"`);
  const objects = num('BENCH_SCALE_OBJECTS', 100_000);
  return {
    objects,
    watchers: num('BENCH_SCALE_WATCHERS', 1_000),
    watchWrites: num('BENCH_SCALE_WATCH_WRITES', 50),
    bigObjects: Math.max(objects, num('BENCH_SCALE_BIG_OBJECTS', 1_000_000)),
    labelValues: Math.max(1, num('BENCH_SCALE_LABEL_VALUES', 100)),
    listRepeats: Math.max(1, num('BENCH_SCALE_LIST_REPEATS', 5)),
    pageLimit: Math.max(1, num('BENCH_SCALE_PAGE_LIMIT', 500)),
    pages: Math.max(2, num('BENCH_SCALE_PAGES', 200)),
    writeRate: Math.max(1, num('BENCH_SCALE_WRITE_RATE', 100)),
    writeSeconds: Math.max(1, num('BENCH_SCALE_WRITE_SECONDS', 120)),
    historyWindow: process.env.BENCH_SCALE_HISTORY_WINDOW || '30s',
    compactionInterval: process.env.BENCH_SCALE_COMPACTION_INTERVAL || '5s',
    seedBatch: Math.max(1, num('BENCH_SCALE_SEED_BATCH', 2_000)),
    payloadBytes: num('BENCH_PAYLOAD_BYTES', 1024),
    serverBuild: build,
    resultsFile: process.env.BENCH_SCALE_RESULTS ?? 'bench/results/scale-latest.json',
  };
}
