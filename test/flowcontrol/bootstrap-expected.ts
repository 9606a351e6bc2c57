/**
 * Kubernetes 1.34's API priority and fairness bootstrap objects, written out again from upstream's
 * staging/src/k8s.io/apiserver/pkg/apis/flowcontrol/bootstrap/default.go (v0.34) independently of
 * the server's data, so that a wrong value there fails the tests.
 */

const subject = (s: string) => {
  const [kind, name] = [s.slice(0, s.indexOf(':')), s.slice(s.indexOf(':') + 1)];
  if (kind === 'Group') return { kind: 'Group', group: { name } };
  if (kind === 'User') return { kind: 'User', user: { name } };
  const [namespace, sa] = name.split('/');
  return { kind: 'ServiceAccount', serviceAccount: { namespace, name: sa } };
};
const EVERYTHING = {
  resourceRules: [{ verbs: ['*'], apiGroups: ['*'], resources: ['*'], clusterScope: true, namespaces: ['*'] }],
  nonResourceRules: [{ verbs: ['*'], nonResourceURLs: ['*'] }],
};
const forAll = (priorityLevel: string, matchingPrecedence: number, distinguisher: string | undefined, ...subjects: string[]) => ({
  priorityLevelConfiguration: { name: priorityLevel },
  matchingPrecedence,
  ...(distinguisher ? { distinguisherMethod: { type: distinguisher } } : {}),
  rules: [{ subjects: subjects.map(subject), ...EVERYTHING }],
});
const queuing = (shares: number, lendable: number, queues: number, handSize: number) => ({
  type: 'Limited',
  limited: { nominalConcurrencyShares: shares, lendablePercent: lendable, limitResponse: { type: 'Queue', queuing: { queues, handSize, queueLengthLimit: 50 } } },
});

export const EXPECTED_PRIORITY_LEVELS: Record<string, unknown> = {
  exempt: { type: 'Exempt', exempt: { nominalConcurrencyShares: 0, lendablePercent: 0 } },
  'catch-all': { type: 'Limited', limited: { nominalConcurrencyShares: 5, lendablePercent: 0, limitResponse: { type: 'Reject' } } },
  system: queuing(30, 33, 64, 6),
  'node-high': queuing(40, 25, 64, 6),
  'leader-election': queuing(10, 0, 16, 4),
  'workload-high': queuing(40, 50, 128, 6),
  'workload-low': queuing(100, 90, 128, 6),
  'global-default': queuing(20, 50, 128, 6),
};

export const EXPECTED_FLOW_SCHEMAS: Record<string, unknown> = {
  exempt: forAll('exempt', 1, undefined, 'Group:system:masters'),
  'catch-all': forAll('catch-all', 10000, 'ByUser', 'Group:system:unauthenticated', 'Group:system:authenticated'),
  probes: {
    priorityLevelConfiguration: { name: 'exempt' },
    matchingPrecedence: 2,
    rules: [{ subjects: [subject('Group:system:unauthenticated'), subject('Group:system:authenticated')], nonResourceRules: [{ verbs: ['get'], nonResourceURLs: ['/healthz', '/readyz', '/livez'] }] }],
  },
  'system-leader-election': {
    priorityLevelConfiguration: { name: 'leader-election' },
    matchingPrecedence: 100,
    distinguisherMethod: { type: 'ByUser' },
    rules: [
      {
        subjects: ['User:system:kube-controller-manager', 'User:system:kube-scheduler', 'SA:kube-system/*'].map(subject),
        resourceRules: [{ verbs: ['get', 'create', 'update'], apiGroups: ['coordination.k8s.io'], resources: ['leases'], clusterScope: false, namespaces: ['*'] }],
      },
    ],
  },
  'system-node-high': {
    priorityLevelConfiguration: { name: 'node-high' },
    matchingPrecedence: 400,
    distinguisherMethod: { type: 'ByUser' },
    rules: [
      {
        subjects: [subject('Group:system:nodes')],
        resourceRules: [
          { verbs: ['*'], apiGroups: [''], resources: ['nodes', 'nodes/status'], clusterScope: true, namespaces: ['*'] },
          { verbs: ['*'], apiGroups: ['coordination.k8s.io'], resources: ['leases'], clusterScope: false, namespaces: ['*'] },
        ],
      },
    ],
  },
  'system-nodes': forAll('system', 500, 'ByUser', 'Group:system:nodes'),
  'kube-controller-manager': forAll('workload-high', 800, 'ByNamespace', 'User:system:kube-controller-manager'),
  'kube-scheduler': forAll('workload-high', 800, 'ByNamespace', 'User:system:kube-scheduler'),
  'kube-system-service-accounts': forAll('workload-high', 900, 'ByNamespace', 'SA:kube-system/*'),
  'service-accounts': forAll('workload-low', 9000, 'ByUser', 'Group:system:serviceaccounts'),
  'global-default': forAll('global-default', 9900, 'ByUser', 'Group:system:unauthenticated', 'Group:system:authenticated'),
};

/** Key order aside, as a JSON comparison should see them. */
export function canonical(v: unknown): unknown {
  if (Array.isArray(v)) return v.map(canonical);
  if (v && typeof v === 'object') return Object.fromEntries(Object.entries(v).sort(([a], [b]) => (a < b ? -1 : 1)).map(([k, x]) => [k, canonical(x)]));
  return v;
}
