import type { BenchContext } from './context.ts';
import { CpuPhases } from './cpu.ts';
import { expect, send } from './http.ts';
import { interleavedRounds, opName } from './load.ts';
import { configMapBody } from './objects.ts';
import type { Row } from './report.ts';

const POLICIES = 10;
const API = '/apis/admissionregistration.k8s.io/v1';
/** The label the policies' namespaceSelector matches: on the "10 policies" namespace only. */
const LABEL = 'bench.pgkube.io/policies';
const MATCHED_NS = 'bench-policies-on';
const UNMATCHED_NS = 'bench-policies-off';
/** Phase names (the run's "CPU by phase" table and this measure's own accounting use the same ones). */
const UNMATCHED = 'policies: creates, 0 policies match';
const MATCHED = `policies: creates, ${POLICIES} policies match`;

const policyName = (k: number) => `bench-policy-${String(k).padStart(2, '0')}`;

/** Policy k: a simple check every bench ConfigMap passes; a ConfigMap with data key `deny-k` fails it (the readiness probe). */
function policy(k: number): object {
  return {
    apiVersion: 'admissionregistration.k8s.io/v1',
    kind: 'ValidatingAdmissionPolicy',
    metadata: { name: policyName(k) },
    spec: {
      failurePolicy: 'Fail',
      matchConstraints: {
        namespaceSelector: { matchLabels: { [LABEL]: 'enforced' } },
        resourceRules: [{ apiGroups: [''], apiVersions: ['v1'], operations: ['CREATE'], resources: ['configmaps'] }],
      },
      validations: [
        {
          expression: `object.metadata.name.size() < 200 && (!has(object.data) || (size(object.data) <= 100 && !('deny-${k}' in object.data)))`,
          message: `refused by ${policyName(k)}`,
        },
      ],
    },
  };
}

function binding(k: number): object {
  return {
    apiVersion: 'admissionregistration.k8s.io/v1',
    kind: 'ValidatingAdmissionPolicyBinding',
    metadata: { name: policyName(k) },
    spec: { policyName: policyName(k), validationActions: ['Deny'] },
  };
}

/** A dry-run create (nothing stored) that violates policy k only. */
function probe(ctx: BenchContext, ns: string, k: number) {
  const body = JSON.stringify({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: `probe-${k}` }, data: { [`deny-${k}`]: 'x' } });
  return send(ctx.url(`/api/v1/namespaces/${ns}/configmaps?dryRun=All`), ctx.agent, 'POST', body);
}

/**
 * What ValidatingAdmissionPolicies cost a create: ~1 KiB ConfigMap creates in a namespace that 10
 * policies match (each a simple CEL expression, bound with Deny) beside the same creates in a
 * namespace their namespaceSelector does not match, on the same server in interleaved rounds. The
 * "raw" column is the unmatched figure (matching still runs there: the namespace's labels are read
 * and the selector fails, but no CEL is evaluated).
 */
export async function measurePolicies(ctx: BenchContext): Promise<Row[]> {
  const { cfg } = ctx;
  const c = cfg.concurrency;
  ctx.step('policies: set-up', `namespaces ${MATCHED_NS} (labelled ${LABEL}=enforced) and ${UNMATCHED_NS}, ${POLICIES} policies with a Deny binding each, waiting until they are in force`);
  for (const [name, labels] of [[MATCHED_NS, { [LABEL]: 'enforced' }], [UNMATCHED_NS, {}]] as const) {
    await expect(201, ctx.url('/api/v1/namespaces'), ctx.agent, 'POST', JSON.stringify({ apiVersion: 'v1', kind: 'Namespace', metadata: { name, labels } }));
  }
  const created: string[] = [];
  try {
    for (let k = 0; k < POLICIES; k++) {
      await expect(201, ctx.url(`${API}/validatingadmissionpolicies`), ctx.agent, 'POST', JSON.stringify(policy(k)));
      created.push(`${API}/validatingadmissionpolicies/${policyName(k)}`);
      await expect(201, ctx.url(`${API}/validatingadmissionpolicybindings`), ctx.agent, 'POST', JSON.stringify(binding(k)));
      created.push(`${API}/validatingadmissionpolicybindings/${policyName(k)}`);
    }
    // Policies and bindings reach the admission plugin through its watches: wait until each refuses its probe.
    const waitStart = Date.now();
    for (let k = 0; k < POLICIES; k++) {
      for (;;) {
        const r = await probe(ctx, MATCHED_NS, k);
        if (r.status >= 400 && r.text.includes(policyName(k))) break;
        if (r.status >= 400 || Date.now() - waitStart > 10_000) throw new Error(`waiting for ${policyName(k)} to be in force: ${r.status} ${r.text.slice(0, 500)}`);
        await new Promise((res) => setTimeout(res, 25));
      }
    }
    const waitedMs = Date.now() - waitStart;
    // And the other namespace is really unmatched: the same violating create passes there.
    for (let k = 0; k < POLICIES; k++) {
      const r = await probe(ctx, UNMATCHED_NS, k);
      if (r.status !== 201) throw new Error(`${UNMATCHED_NS} should not be matched by ${policyName(k)}: ${r.status} ${r.text.slice(0, 500)}`);
    }

    // Server (and its database backends) CPU per contender, kept here too so the note can give it.
    const own = new CpuPhases(ctx.server.pid, [new URL(ctx.server.databaseUrl).pathname.slice(1)]);
    const url = (ns: string) => ctx.url(`/api/v1/namespaces/${ns}/configmaps`);
    ctx.step('policies', `${cfg.creates} creates each in ${UNMATCHED_NS} (0 policies match) and ${MATCHED_NS} (${POLICIES} match), ${c} clients, ${cfg.rounds} interleaved rounds (policies in force after ${waitedMs} ms)`);
    const results = await interleavedRounds(
      [
        { name: UNMATCHED, op: async (i) => void (await expect(201, url(UNMATCHED_NS), ctx.agent, 'POST', configMapBody(UNMATCHED_NS, opName('cm', i), cfg.payloadBytes))) },
        { name: MATCHED, op: async (i) => void (await expect(201, url(MATCHED_NS), ctx.agent, 'POST', configMapBody(MATCHED_NS, opName('cm', i), cfg.payloadBytes))) },
      ],
      {
        concurrency: c,
        total: cfg.creates,
        rounds: cfg.rounds,
        warmup: Math.min(200, Math.max(20, Math.round(cfg.creates / 10))),
        onPhase: (p, ops) => {
          own.mark(p, ops);
          ctx.step(p, '', ops);
        },
      },
    );
    own.mark();
    const none = results[UNMATCHED]!;
    const ten = results[MATCHED]!;
    const cpu = own.aggregated();
    const perOp = (phase: string, f: 'serverCores' | 'postgresCores') => {
      const p = cpu.find((x) => x.phase === phase);
      const cores = p?.[f];
      return p?.ops && cores !== null && cores !== undefined ? Math.round((cores * p.seconds * 1e6) / p.ops) : null;
    };
    const wallCost = Math.round(1e6 / ten.opsPerSecond - 1e6 / none.opsPerSecond);
    const cpu0 = perOp(UNMATCHED, 'serverCores');
    const cpu10 = perOp(MATCHED, 'serverCores');
    const cpuNote =
      cpu0 !== null && cpu10 !== null
        ? ` Server CPU per create (phases "${UNMATCHED}" / "${MATCHED}"): ${cpu0} / ${cpu10} µs, ${cpu10 - cpu0} µs for the ${POLICIES} policies (${((cpu10 - cpu0) / POLICIES).toFixed(1)} µs each); ` +
          `PostgreSQL backends ${perOp(UNMATCHED, 'postgresCores')} / ${perOp(MATCHED, 'postgresCores')} µs.`
        : ' (Server CPU per create is not separable in-process.)';
    return [
      {
        id: 'policies_creates_per_second',
        metric: `creates/s with ${POLICIES} ValidatingAdmissionPolicies, ${c} clients`,
        unit: 'ops/s',
        server: ten.opsPerSecond,
        raw: none.opsPerSecond,
        better: 'higher',
        note:
          `Both columns are this server, same run: creates in ${MATCHED_NS}, which ${POLICIES} policies match (one CEL validation each, e.g. ` +
          `"object.metadata.name.size() < 200 && size(object.data) <= 100", each with its own Deny binding), beside the "raw" column's creates in ` +
          `${UNMATCHED_NS}, which their namespaceSelector does not match (so only the match check runs). ` +
          `From the two throughputs the ${POLICIES} policies cost ${wallCost} µs of wall time per create (${(wallCost / POLICIES).toFixed(1)} µs per policy; only meaningful when the server is the bottleneck).${cpuNote} ` +
          `Rounds (ops/s): ${POLICIES} policies ${ten.rounds.join(', ')}; 0 policies ${none.rounds.join(', ')}.`,
        details: { matched: ten, unmatched: none, policiesInForceAfterMs: waitedMs, serverCpuMicrosPerCreate: { unmatched: cpu0, matched: cpu10 } },
      },
      {
        id: 'policies_create_latency_p99',
        metric: `create latency p99 with ${POLICIES} policies, ${c} clients`,
        unit: 'ms',
        server: ten.latency.p99,
        raw: none.latency.p99,
        better: 'lower',
        note: `The "raw" column is the same create in ${UNMATCHED_NS}, which no policy matches.`,
      },
    ];
  } finally {
    // Later measures should not run with policies installed (bindings first, as kubectl would delete them).
    for (const path of created.reverse()) await send(ctx.url(path), ctx.agent, 'DELETE').catch(() => undefined);
  }
}
