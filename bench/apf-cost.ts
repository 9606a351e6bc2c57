/**
 * What API priority and fairness costs a request: classification and dispatch timed in this process
 * on the 1.34 configuration (exact, no HTTP noise), and the server CPU per get and per create with
 * APF on beside a server started with --enable-priority-and-fairness=false.
 */
import pino from 'pino';
import { parseRequestInfo } from '../src/api/request-info.ts';
import type { UserInfo } from '../src/auth/user.ts';
import { ApfController } from '../src/flowcontrol/apf-controller.ts';
import { MANDATORY_FLOW_SCHEMAS, MANDATORY_PRIORITY_LEVELS, SUGGESTED_FLOW_SCHEMAS, SUGGESTED_PRIORITY_LEVELS, type BootstrapConfiguration } from '../src/flowcontrol/bootstrap/default-objects.ts';
import { readFlowSchema, readPriorityLevel } from '../src/flowcontrol/config-objects.ts';
import { estimateWork } from '../src/flowcontrol/work-estimator.ts';
import { APF_NAMESPACE, type ApfTarget } from './apf-setup.ts';
import { treeSeconds } from './cpu.ts';
import { expect } from './http.ts';
import { runConcurrent } from './load.ts';
import { seqName } from './objects.ts';

export interface MicroCost {
  /** µs per classification of a service account's get (suggested schemas scanned to service-accounts). */
  readonly classifyUs: number;
  /** µs per classification of a system:masters get (the first schema, exempt). */
  readonly classifyExemptUs: number;
  /** µs per classification, work estimate, dispatch in workload-low's 128 queues and finish. */
  readonly dispatchUs: number;
}

const obj = (c: BootstrapConfiguration) => ({ metadata: { name: c.name, uid: `${c.name}-uid` }, spec: structuredClone(c.spec) });

/** Median of a few timed rounds of `n` calls, in µs per call. */
function timePerCall(n: number, call: () => void): number {
  const rounds: number[] = [];
  for (let r = 0; r < 5; r++) {
    const t0 = performance.now();
    for (let i = 0; i < n; i++) call();
    rounds.push(((performance.now() - t0) * 1000) / n);
  }
  return Number(rounds.sort((a, b) => a - b)[2]!.toFixed(3));
}

export function measureMicroCost(calls: number): MicroCost {
  const controller = new ApfController({ serverConcurrencyLimit: 600, logger: pino({ level: 'silent' }) });
  controller.setConfiguration([...MANDATORY_PRIORITY_LEVELS, ...SUGGESTED_PRIORITY_LEVELS].map((c) => readPriorityLevel(obj(c))), [...MANDATORY_FLOW_SCHEMAS, ...SUGGESTED_FLOW_SCHEMAS].map((c) => readFlowSchema(obj(c))));
  const query = new URLSearchParams();
  const info = parseRequestInfo('GET', `/api/v1/namespaces/${APF_NAMESPACE}/configmaps/cm-000001`, query);
  const sa: UserInfo = { name: `system:serviceaccount:${APF_NAMESPACE}:reader`, groups: ['system:serviceaccounts', `system:serviceaccounts:${APF_NAMESPACE}`, 'system:authenticated'] };
  const admin: UserInfo = { name: 'admin', groups: ['system:masters', 'system:authenticated'] };
  let sink = 0;
  const classifyUs = timePerCall(calls, () => void (sink += controller.classify(sa, info).flowKey.length));
  const classifyExemptUs = timePerCall(calls, () => void (sink += controller.classify(admin, info).flowKey.length));
  const dispatchUs = timePerCall(calls, () => {
    const c = controller.classify(sa, info);
    const work = estimateWork({ info, query, objectCount: () => 1000, watchersOf: () => 0, maxSeats: c.level.maxSeats });
    const queues = c.level.queues!;
    const req = queues.startRequest(work, c.hash, c.flowKey, c.distinguisher, c.schema.name, { userName: sa.name, info })!;
    queues.noteDispatched();
    queues.finish(req);
  });
  if (sink < 0) throw new Error('unreachable');
  return { classifyUs, classifyExemptUs, dispatchUs };
}

export interface CpuPerRequest {
  /** Server CPU µs per request, by target label; null when the server shares this process. */
  readonly gets: Record<string, number | null>;
  readonly creates: Record<string, number | null>;
}

/**
 * Gets (of `objects` seeded ConfigMaps) and creates as the reader service account on each target,
 * in interleaved rounds, each target's server CPU read from /proc before and after.
 */
export async function measureCpuPerRequest(targets: readonly ApfTarget[], options: { objects: number; gets: number; creates: number; concurrency: number; rounds: number; payloadBytes: number; onPhase: (name: string, ops: number) => void }): Promise<CpuPerRequest> {
  const cpu = (t: ApfTarget) => (t.server.pid === undefined ? undefined : treeSeconds(t.server.pid));
  const used = { gets: new Map<string, number>(), creates: new Map<string, number>() };
  const payload = 'x'.repeat(options.payloadBytes);
  let created = 0;
  const run = async (kind: 'gets' | 'creates', t: ApfTarget, total: number, counted = true) => {
    const bearer = { Authorization: `Bearer ${t.tokens.reader}` };
    const op =
      kind === 'gets'
        ? async (i: number) => void (await expect(200, t.url(`/api/v1/namespaces/${APF_NAMESPACE}/configmaps/${seqName('cm', (i * 7919) % options.objects)}`), t.anonymous, 'GET', undefined, bearer))
        : async () => {
            const body = JSON.stringify({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: `cost-${created++}` }, data: { payload } });
            await expect(201, t.url(`/api/v1/namespaces/${APF_NAMESPACE}/configmaps`), t.anonymous, 'POST', body, bearer);
          };
    options.onPhase(`apf ${kind}: ${t.label}`, total);
    const before = cpu(t);
    await runConcurrent(options.concurrency, total, op);
    const after = cpu(t);
    if (counted && before !== undefined && after !== undefined) used[kind].set(t.label, (used[kind].get(t.label) ?? 0) + (after - before));
  };
  // Warm-up, then rounds alternating the targets so that drifting load hits them alike.
  for (const t of targets) await run('gets', t, Math.max(50, Math.round(options.gets / 10)), false);
  for (let r = 0; r < options.rounds; r++) {
    for (const t of targets) await run('gets', t, Math.ceil(options.gets / options.rounds));
    for (const t of targets) await run('creates', t, Math.ceil(options.creates / options.rounds));
  }
  const perRequest = (kind: 'gets' | 'creates', total: number) =>
    Object.fromEntries(targets.map((t) => [t.label, used[kind].has(t.label) ? Number(((used[kind].get(t.label)! * 1e6) / (Math.ceil(total / options.rounds) * options.rounds)).toFixed(1)) : null]));
  return { gets: perRequest('gets', options.gets), creates: perRequest('creates', options.creates) };
}
