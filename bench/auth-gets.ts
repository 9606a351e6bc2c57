import { ensureNamespace, seedConfigMaps, type BenchContext } from './context.ts';
import { expect } from './http.ts';
import { interleavedRounds } from './load.ts';
import type { Row } from './report.ts';

const OBJECTS = 1000;

/**
 * What authentication and RBAC cost a request: the same gets as a service account with a bearer
 * token (JWT verification, lookup, RBAC through a RoleBinding) beside system:masters with a client
 * certificate (which RBAC never sees). The "raw" column here is the system:masters figure.
 */
export async function measureAuthGets(ctx: BenchContext): Promise<Row[]> {
  const { cfg } = ctx;
  const c = cfg.concurrency;
  const ns = 'bench-auth';
  await ensureNamespace(ctx, ns);
  ctx.step('auth gets: seed', `${OBJECTS} ConfigMaps, a service account bound to a Role that may get them`);
  const names = await seedConfigMaps(ctx.serverDb, ns, 'cm', OBJECTS, cfg.payloadBytes);
  const post = (path: string, body: object) => expect(201, ctx.url(path), ctx.agent, 'POST', JSON.stringify(body));
  await post(`/api/v1/namespaces/${ns}/serviceaccounts`, { apiVersion: 'v1', kind: 'ServiceAccount', metadata: { name: 'reader' } });
  await post(`/apis/rbac.authorization.k8s.io/v1/namespaces/${ns}/roles`, {
    apiVersion: 'rbac.authorization.k8s.io/v1',
    kind: 'Role',
    metadata: { name: 'configmap-reader' },
    rules: [{ apiGroups: [''], resources: ['configmaps'], verbs: ['get', 'list'] }],
  });
  await post(`/apis/rbac.authorization.k8s.io/v1/namespaces/${ns}/rolebindings`, {
    apiVersion: 'rbac.authorization.k8s.io/v1',
    kind: 'RoleBinding',
    metadata: { name: 'reader' },
    roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'Role', name: 'configmap-reader' },
    subjects: [{ kind: 'ServiceAccount', name: 'reader', namespace: ns }],
  });
  const issued = await post(`/api/v1/namespaces/${ns}/serviceaccounts/reader/token`, { apiVersion: 'authentication.k8s.io/v1', kind: 'TokenRequest', spec: { expirationSeconds: 3600 } });
  const token = (JSON.parse(issued.text) as { status: { token: string } }).status.token;
  const bearer = { Authorization: `Bearer ${token}` };
  // The system:masters gets carry a header as long as the token (which the server ignores): a JWT makes
  // a request about a kilobyte longer, and that costs the TLS and TCP path of both ends more than the
  // authentication itself does. Padded, the two differ only in what authentication and RBAC do.
  const padding = { 'X-Bench-Padding': 'p'.repeat(bearer.Authorization.length) };
  const tokenAgent = ctx.server.anonymousAgent();
  const urls = names.map((name) => ctx.url(`/api/v1/namespaces/${ns}/configmaps/${name}`));
  const pick = (i: number) => (i * 7919) % OBJECTS;
  // The binding reaches the server's RBAC view through its watch: wait until the token may read.
  for (let i = 0; ; i++) {
    try {
      await expect(200, urls[0]!, tokenAgent, 'GET', undefined, bearer);
      break;
    } catch (err) {
      if (i > 100) throw err;
      await new Promise((r) => setTimeout(r, 50));
    }
  }

  ctx.step('auth gets', `${cfg.gets} gets each as a service account (bearer token, RBAC) and as system:masters, ${c} clients, ${cfg.rounds} interleaved rounds`);
  const results = await interleavedRounds(
    [
      { name: 'gets: service account', op: async (i) => void (await expect(200, urls[pick(i)]!, tokenAgent, 'GET', undefined, bearer)) },
      { name: 'gets: system:masters', op: async (i) => void (await expect(200, urls[pick(i)]!, ctx.agent, 'GET', undefined, padding)) },
    ],
    { concurrency: c, total: cfg.gets, rounds: cfg.rounds, warmup: Math.min(1000, Math.max(50, Math.round(cfg.gets / 10))), onPhase: (p, ops) => ctx.step(p, '', ops) },
  );
  const sa = results['gets: service account'];
  const masters = results['gets: system:masters'];
  return [
    {
      id: 'auth_gets_per_second',
      metric: `gets/s as a service account (token + RBAC), ${c} clients`,
      unit: 'ops/s',
      server: sa.opsPerSecond,
      raw: masters.opsPerSecond,
      better: 'higher',
      note:
        `The "raw" column is the same get as system:masters with a client certificate (and a padding header as long as the token, so that both requests are the same size): the ratio is what authentication and RBAC cost. ` +
        `Rounds (ops/s): service account ${sa.rounds.join(', ')}; system:masters ${masters.rounds.join(', ')}.`,
      details: { serviceAccount: sa, systemMasters: masters },
    },
    {
      id: 'auth_get_latency_p99',
      metric: `get latency p99 as a service account, ${c} clients`,
      unit: 'ms',
      server: sa.latency.p99,
      raw: masters.latency.p99,
      better: 'lower',
      note: 'The "raw" column is system:masters with a client certificate.',
    },
  ];
}
