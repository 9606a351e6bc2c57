/**
 * Micro-benchmark of the managed-fields path (FieldManager.update and .apply), outside any server:
 * what every create, update and patch pays to record metadata.managedFields, and what a server-side
 * apply costs on top. Run with `npx tsx bench/managed-fields.ts`; prints µs per operation (median
 * and minimum of the process's CPU time, median of wall time) over several interleaved runs.
 *
 * Inputs are made as the server sees them: every operation gets its own freshly parsed live object
 * and request body (storage and the request decoder hand out new objects each time), parsed before
 * the timed loop, so caches keyed by object identity only hit where they would in the server. The
 * scenarios "…, new shape" give every object a shape of its own (one more label or data key), so
 * that nothing remembered from earlier writes of the same shape helps: the cost when caches miss.
 *
 * Settings (environment): MF_BENCH_RUNS (default 9), MF_BENCH_OPS (operations per run and scenario,
 * default 400), MF_BENCH_ONLY (scenario names separated by `|`, substring match).
 * `--digest` prints a hash of every scenario's outputs instead of timing (a fixed clock makes them
 * deterministic), to check that an optimization changes no byte; `--print` prints one output of each.
 */
import { createHash } from 'node:crypto';
import { performance } from 'node:perf_hooks';
import { configMaps } from '../src/kinds/config-map.ts';
import { defaultPod } from '../src/kinds/pod-defaults.ts';
import { pods } from '../src/kinds/pod.ts';
import { fieldTrackingOf } from '../src/registry/field-tracking.ts';
import type { KindDefinition } from '../src/registry/kind.ts';
import type { FieldManager } from '../src/registry/managed-fields/index.ts';

type Obj = Record<string, any>;

const RUNS = Number(process.env.MF_BENCH_RUNS ?? 9);
const OPS = Number(process.env.MF_BENCH_OPS ?? 400);
const ONLY = process.env.MF_BENCH_ONLY?.split('|').filter(Boolean);
const DIGEST = process.argv.includes('--digest');
const PRINT = process.argv.includes('--print');

/** The request's clock: one second later than the stored entries, so times always move. */
const CREATED = new Date(Date.UTC(2024, 0, 1, 0, 0, 0));
const NOW = new Date(Date.UTC(2024, 0, 1, 0, 0, 1));

/** The store's part of a create that matters here: server-set metadata, and for a pod its status. */
function asStored(obj: Obj, kind: KindDefinition): Obj {
  obj.metadata.uid = '7f1c2a9e-3b4d-4e5f-8a6b-9c0d1e2f3a4b';
  obj.metadata.resourceVersion = '12345';
  obj.metadata.creationTimestamp = '2024-01-01T00:00:00Z';
  if (kind === pods) obj.status = { phase: 'Pending', qosClass: 'Burstable' };
  return obj;
}

/** The field manager of the kind's main resource, as the store builds it (with the kind's defaulting). */
const managerOf = (kind: KindDefinition): FieldManager => fieldTrackingOf(kind).forSubresource('');

// ---- ConfigMap: a ~1 KiB data value and a label, as bench/creates.ts and bench/applies.ts send.

const FILLER = 'x'.repeat(1000);
const configMap = (value: string): Obj => ({
  apiVersion: 'v1',
  kind: 'ConfigMap',
  metadata: { name: 'cm-000042', namespace: 'bench', labels: { app: 'bench' } },
  data: { v: value, filler: FILLER },
});

// ---- Pod: two containers with ports, env and resources; defaulted as the store defaults a body.

const container = (name: string, image: string, port: number): Obj => ({
  name,
  image,
  ports: [{ name: 'http', containerPort: port }],
  env: [
    { name: 'MODE', value: 'production' },
    { name: 'LOG_LEVEL', value: 'info' },
  ],
  resources: { requests: { cpu: '100m', memory: '128Mi' }, limits: { memory: '256Mi' } },
  volumeMounts: [{ name: 'config', mountPath: '/etc/app' }],
});
const pod = (v: string): Obj => ({
  apiVersion: 'v1',
  kind: 'Pod',
  metadata: { name: 'web-0', namespace: 'bench', labels: { app: 'web', tier: 'frontend' }, annotations: { owner: 'team-a' } },
  spec: {
    containers: [container('web', `nginx:${v}`, 8080), container('sidecar', 'envoy:1.30', 9901)],
    volumes: [{ name: 'config', configMap: { name: 'web-config' } }],
  },
});
const defaulted = (obj: Obj, kind: KindDefinition): Obj => {
  if (kind === pods) defaultPod(obj as never);
  return obj;
};

interface Scenario {
  readonly name: string;
  /** Makes the inputs of one operation (fresh objects, untimed). */
  readonly input: () => unknown[];
  /** One operation. */
  readonly op: (input: unknown[]) => object;
}

/** The scenarios of one kind: `body(v)` is the request body with a value that changes between writes. */
function scenarios(label: string, kind: KindDefinition, body: (v: string) => Obj, change: (o: Obj, v: string) => void, unique: (o: Obj, i: number) => void): Scenario[] {
  const fm = managerOf(kind);
  const parse = (text: string) => JSON.parse(text) as Obj;

  // Stored by a create of manager `creator`.
  const created = asStored(fm.update(null, defaulted(body('one'), kind), 'creator', CREATED) as Obj, kind);
  const createdText = JSON.stringify(created);
  // A client's PUT of the stored object (managedFields sent back as read), one value changed.
  const edited = parse(createdText);
  change(edited, 'two');
  const editedText = JSON.stringify(edited);
  // Stored by a server-side apply of manager `applier`.
  const applied = asStored(fm.apply(null, body('one'), 'applier', false, CREATED) as Obj, kind);
  const appliedText = JSON.stringify(applied);
  const bodyText = (v: string) => JSON.stringify(body(v));
  // An object of a shape of its own, stored by `creator` and edited as above.
  let serial = 0;
  const uniqueUpdate = (): unknown[] => {
    const first = defaulted(body('one'), kind);
    unique(first, serial++);
    const text = JSON.stringify(asStored(fm.update(null, first, 'creator', CREATED) as Obj, kind));
    const next = parse(text);
    change(next, 'two');
    return [parse(text), defaulted(next, kind)];
  };

  return [
    { name: `${label} create`, input: () => [defaulted(parse(bodyText('one')), kind)], op: ([b]) => fm.update(null, b as Obj, 'creator', NOW) },
    {
      name: `${label} update, other manager`,
      input: () => [parse(createdText), defaulted(parse(editedText), kind)],
      op: ([live, next]) => fm.update(live as Obj, next as Obj, 'editor', NOW),
    },
    {
      name: `${label} update, other manager, new shape`,
      input: uniqueUpdate,
      op: ([live, next]) => fm.update(live as Obj, next as Obj, 'editor', NOW),
    },
    {
      name: `${label} update, same manager`,
      input: () => [parse(createdText), defaulted(parse(editedText), kind)],
      op: ([live, next]) => fm.update(live as Obj, next as Obj, 'creator', NOW),
    },
    {
      name: `${label} apply (changes a value)`,
      input: () => [parse(appliedText), parse(bodyText('two'))],
      op: ([live, config]) => fm.apply(live as Obj, config as Obj, 'applier', true, NOW),
    },
    {
      name: `${label} apply, no-op`,
      input: () => [parse(appliedText), parse(bodyText('one'))],
      op: ([live, config]) => fm.apply(live as Obj, config as Obj, 'applier', true, NOW),
    },
  ];
}

const all: Scenario[] = [
  ...scenarios('ConfigMap', configMaps, configMap, (o, v) => (o.data.v = v), (o, i) => (o.data[`k${i}`] = 'x')),
  ...scenarios('Pod', pods, pod, (o, v) => (o.spec.containers[0].image = `nginx:${v}`), (o, i) => (o.metadata.labels[`l${i}`] = 'x')),
].filter((s) => !ONLY || ONLY.some((o) => s.name.includes(o)));

function digest(): void {
  for (const s of all) {
    const hash = createHash('sha256');
    for (let i = 0; i < 3; i++) hash.update(JSON.stringify(s.op(s.input())));
    console.log(`${hash.digest('hex').slice(0, 16)}  ${s.name}`);
  }
}

/**
 * µs per operation of one run of `OPS` operations: the process's CPU time (user and system, all
 * threads, so GC helpers count), which a busy machine distorts far less than wall time; wall time
 * beside it.
 */
function run(s: Scenario): { cpu: number; wall: number } {
  const inputs = Array.from({ length: OPS }, () => s.input());
  const cpu0 = process.cpuUsage();
  const wall0 = performance.now();
  for (let i = 0; i < OPS; i++) s.op(inputs[i]!);
  const wall = ((performance.now() - wall0) * 1000) / OPS;
  const used = process.cpuUsage(cpu0);
  return { cpu: (used.user + used.system) / OPS, wall };
}

const median = (xs: number[]): number => {
  const s = [...xs].sort((a, b) => a - b);
  const m = s.length >> 1;
  return s.length % 2 ? s[m]! : (s[m - 1]! + s[m]!) / 2;
};

function bench(): void {
  // Warm-up: let every path get optimized before anything is timed.
  for (let i = 0; i < 3; i++) for (const s of all) run(s);
  const samples = new Map<string, { cpu: number[]; wall: number[] }>(all.map((s) => [s.name, { cpu: [], wall: [] }]));
  // Interleaved, so that background load drifting over time hits every scenario alike.
  for (let r = 0; r < RUNS; r++) {
    for (const s of all) {
      const { cpu, wall } = run(s);
      samples.get(s.name)!.cpu.push(cpu);
      samples.get(s.name)!.wall.push(wall);
    }
  }
  const width = Math.max(...all.map((s) => s.name.length));
  const num = (x: number) => x.toFixed(1).padStart(8);
  console.log(`${RUNS} runs × ${OPS} ops; µs per operation`);
  console.log(`${'scenario'.padEnd(width)}  ${'CPU p50'.padStart(8)}  ${'CPU min'.padStart(8)}  ${'wall p50'.padStart(8)}`);
  for (const s of all) {
    const { cpu, wall } = samples.get(s.name)!;
    console.log(`${s.name.padEnd(width)}  ${num(median(cpu))}  ${num(Math.min(...cpu))}  ${num(median(wall))}`);
  }
}

if (PRINT) for (const s of all) console.log(`${s.name}:\n${JSON.stringify(s.op(s.input()), null, 1)}`);
else if (DIGEST) digest();
else bench();
