/**
 * Benchmark settings from the environment. BENCH_SCALE multiplies every operation count
 * (BENCH_SCALE=0.1 is a quick smoke run); each count can also be set on its own.
 */
export interface BenchConfig {
  readonly scale: number;
  /** 'child' (default): the server runs as its own process; 'inprocess': in this process. */
  readonly serverMode: 'child' | 'inprocess';
  /** Measures to run (default all): creates, gets, authGets, applies, policies, lists, watch, startup, apf. */
  readonly only: ReadonlySet<string>;
  readonly concurrency: number;
  /** Throughput measures alternate server and raw this many times; the median round is reported. */
  readonly rounds: number;
  readonly creates: number;
  readonly gets: number;
  readonly listObjects: number;
  readonly listRepeats: number;
  readonly pageSize: number;
  readonly deepPage: number;
  readonly watchers: number;
  readonly watchWrites: number;
  /** Pause between the watch benchmark's writes, after every delivery of the previous one arrived. */
  readonly watchGapMs: number;
  readonly payloadBytes: number;
  readonly resultsFile: string;
  /** `--peer etcd` (or BENCH_PEER=etcd): etcd measured beside the server for the same work. */
  readonly peer: 'etcd' | undefined;
  /** BENCH_HTTP: the protocol of the create and get clients, the bare HTTPS baseline and the watch row: '2' (default, as kubectl and client-go) or '1.1'. */
  readonly http: '1.1' | '2';
}

export const MEASURES = ['creates', 'gets', 'authGets', 'applies', 'policies', 'lists', 'watch', 'startup', 'apf', 'customResources'] as const;

function num(name: string, def: number): number {
  const raw = process.env[name];
  if (raw === undefined || raw === '') return def;
  const n = Number(raw);
  if (!Number.isFinite(n) || n < 0) throw new Error(`${name} must be a non-negative number, got "${raw}"`);
  return n;
}

/** `--name value` or `--name=value` from the command line (npm run bench -- --peer etcd). */
function arg(name: string): string | undefined {
  const argv = process.argv.slice(2);
  for (let i = 0; i < argv.length; i++) {
    if (argv[i] === `--${name}`) return argv[i + 1];
    if (argv[i].startsWith(`--${name}=`)) return argv[i].slice(name.length + 3);
  }
  return undefined;
}

export function loadBenchConfig(): BenchConfig {
  const scale = num('BENCH_SCALE', 1);
  const scaled = (name: string, def: number, min = 1) => Math.max(min, Math.round(num(name, def * scale)));
  const mode = process.env.BENCH_SERVER ?? 'child';
  if (mode !== 'child' && mode !== 'inprocess') throw new Error(`BENCH_SERVER must be child or inprocess, got "${mode}"`);
  const only = new Set((process.env.BENCH_ONLY ?? MEASURES.join(',')).split(',').map((s) => s.trim()).filter(Boolean));
  for (const m of only) if (!(MEASURES as readonly string[]).includes(m)) throw new Error(`BENCH_ONLY: unknown measure "${m}" (${MEASURES.join(', ')})`);
  const peerName = arg('peer') ?? process.env.BENCH_PEER ?? '';
  if (peerName !== '' && peerName !== 'etcd') throw new Error(`--peer: only etcd is known, got "${peerName}"`);
  const peer = peerName === 'etcd' ? 'etcd' : undefined;
  const http = process.env.BENCH_HTTP ?? '2';
  if (http !== '1.1' && http !== '2') throw new Error(`BENCH_HTTP must be 1.1 or 2, got "${http}"`);
  const listObjects = scaled('BENCH_LIST_OBJECTS', 10_000, 100);
  const pageSize = Math.max(1, Math.round(num('BENCH_PAGE_SIZE', 50)));
  return {
    scale,
    serverMode: mode,
    only,
    concurrency: Math.max(1, Math.round(num('BENCH_CONCURRENCY', 16))),
    rounds: Math.max(1, Math.round(num('BENCH_ROUNDS', 3))),
    creates: scaled('BENCH_CREATES', 5_000, 50),
    gets: scaled('BENCH_GETS', 20_000, 100),
    listObjects,
    listRepeats: scaled('BENCH_LIST_REPEATS', 10, 3),
    pageSize,
    // Page 200 of 10,000 objects at 50 a page is the last page; smaller runs take the last one there is.
    deepPage: Math.max(1, Math.min(Math.round(num('BENCH_DEEP_PAGE', 200)), Math.ceil(listObjects / pageSize))),
    watchers: scaled('BENCH_WATCHERS', 1_000, 10),
    watchWrites: scaled('BENCH_WATCH_WRITES', 200, 10),
    watchGapMs: num('BENCH_WATCH_GAP_MS', 5),
    payloadBytes: Math.round(num('BENCH_PAYLOAD_BYTES', 1024)),
    resultsFile: process.env.BENCH_RESULTS ?? 'bench/results/latest.json',
    peer,
    http,
  };
}
