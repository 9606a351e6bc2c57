/**
 * The API priority and fairness configuration objects every Kubernetes 1.34 server keeps (upstream's
 * apiserver flowcontrol bootstrap defaults), as data in their flowcontrol.apiserver.k8s.io/v1 form.
 *
 * Mandatory objects (`exempt`, `catch-all`) keep the system working whatever the administrators
 * do: their specs are restored on every pass, and validation refuses any other spec under their
 * names. Suggested objects are the initial configuration; administrators may change or delete them
 * (the `apf.kubernetes.io/autoupdate-spec` annotation says whether the server may overwrite them).
 * Every spec here is already in its defaulted form, so that a stored object equals it field by field.
 */

/** The annotation that says whether the server keeps a configuration object's spec current. */
export const AUTO_UPDATE_ANNOTATION = 'apf.kubernetes.io/autoupdate-spec';

export interface BootstrapConfiguration {
  readonly name: string;
  readonly spec: Readonly<Record<string, unknown>>;
}

type Subject = Record<string, unknown>;
const groups = (...names: string[]): Subject[] => names.map((name) => ({ kind: 'Group', group: { name } }));
const users = (...names: string[]): Subject[] => names.map((name) => ({ kind: 'User', user: { name } }));
/** Every service account of kube-system. */
const kubeSystemServiceAccounts = (): Subject[] => [{ kind: 'ServiceAccount', serviceAccount: { namespace: 'kube-system', name: '*' } }];

const resourceRule = (verbs: string[], apiGroups: string[], resources: string[], namespaces: string[], clusterScope: boolean) => ({
  verbs,
  apiGroups,
  resources,
  clusterScope,
  namespaces,
});
const EVERY_RESOURCE = () => [resourceRule(['*'], ['*'], ['*'], ['*'], true)];
const EVERY_NON_RESOURCE = () => [{ verbs: ['*'], nonResourceURLs: ['*'] }];

function flowSchema(name: string, priorityLevel: string, matchingPrecedence: number, distinguisher: 'ByUser' | 'ByNamespace' | '', rules: Record<string, unknown>[]): BootstrapConfiguration {
  return {
    name,
    spec: {
      priorityLevelConfiguration: { name: priorityLevel },
      matchingPrecedence,
      ...(distinguisher ? { distinguisherMethod: { type: distinguisher } } : {}),
      rules,
    },
  };
}

/** A schema whose one rule matches every request of its subjects. */
const flowSchemaForAll = (name: string, priorityLevel: string, matchingPrecedence: number, distinguisher: 'ByUser' | 'ByNamespace' | '', subjects: Subject[]) =>
  flowSchema(name, priorityLevel, matchingPrecedence, distinguisher, [{ subjects, resourceRules: EVERY_RESOURCE(), nonResourceRules: EVERY_NON_RESOURCE() }]);

function queuingLevel(name: string, nominalConcurrencyShares: number, lendablePercent: number, queues: number, handSize: number): BootstrapConfiguration {
  return {
    name,
    spec: {
      type: 'Limited',
      limited: {
        nominalConcurrencyShares,
        limitResponse: { type: 'Queue', queuing: { queues, handSize, queueLengthLimit: 50 } },
        lendablePercent,
      },
    },
  };
}

/** In upstream's order: `exempt` last, so that a first start cut short leaves it missing and retries. */
export const MANDATORY_PRIORITY_LEVELS: readonly BootstrapConfiguration[] = [
  {
    name: 'catch-all',
    spec: { type: 'Limited', limited: { nominalConcurrencyShares: 5, limitResponse: { type: 'Reject' }, lendablePercent: 0 } },
  },
  { name: 'exempt', spec: { type: 'Exempt', exempt: { nominalConcurrencyShares: 0, lendablePercent: 0 } } },
];

export const MANDATORY_FLOW_SCHEMAS: readonly BootstrapConfiguration[] = [
  flowSchemaForAll('exempt', 'exempt', 1, '', groups('system:masters')),
  flowSchemaForAll('catch-all', 'catch-all', 10000, 'ByUser', groups('system:unauthenticated', 'system:authenticated')),
];

export const SUGGESTED_PRIORITY_LEVELS: readonly BootstrapConfiguration[] = [
  queuingLevel('system', 30, 33, 64, 6),
  // Node health reports, kept apart from `system` so that nodes can report while pods start.
  queuingLevel('node-high', 40, 25, 64, 6),
  queuingLevel('leader-election', 10, 0, 16, 4),
  queuingLevel('workload-high', 40, 50, 128, 6),
  queuingLevel('workload-low', 100, 90, 128, 6),
  queuingLevel('global-default', 20, 50, 128, 6),
];

export const SUGGESTED_FLOW_SCHEMAS: readonly BootstrapConfiguration[] = [
  flowSchemaForAll('system-nodes', 'system', 500, 'ByUser', groups('system:nodes')),
  flowSchema('system-node-high', 'node-high', 400, 'ByUser', [
    {
      subjects: groups('system:nodes'),
      resourceRules: [resourceRule(['*'], [''], ['nodes', 'nodes/status'], ['*'], true), resourceRule(['*'], ['coordination.k8s.io'], ['leases'], ['*'], false)],
    },
  ]),
  // Probes are exempt, whoever sends them.
  flowSchema('probes', 'exempt', 2, '', [
    { subjects: groups('system:unauthenticated', 'system:authenticated'), nonResourceRules: [{ verbs: ['get'], nonResourceURLs: ['/healthz', '/readyz', '/livez'] }] },
  ]),
  flowSchema('system-leader-election', 'leader-election', 100, 'ByUser', [
    {
      subjects: [...users('system:kube-controller-manager', 'system:kube-scheduler'), ...kubeSystemServiceAccounts()],
      resourceRules: [resourceRule(['get', 'create', 'update'], ['coordination.k8s.io'], ['leases'], ['*'], false)],
    },
  ]),
  flowSchemaForAll('kube-controller-manager', 'workload-high', 800, 'ByNamespace', users('system:kube-controller-manager')),
  flowSchemaForAll('kube-scheduler', 'workload-high', 800, 'ByNamespace', users('system:kube-scheduler')),
  flowSchemaForAll('kube-system-service-accounts', 'workload-high', 900, 'ByNamespace', kubeSystemServiceAccounts()),
  flowSchemaForAll('service-accounts', 'workload-low', 9000, 'ByUser', groups('system:serviceaccounts')),
  flowSchemaForAll('global-default', 'global-default', 9900, 'ByUser', groups('system:unauthenticated', 'system:authenticated')),
];

const byName = (list: readonly BootstrapConfiguration[]) => new Map(list.map((c) => [c.name, c]));
const MANDATORY_FLOW_SCHEMAS_BY_NAME = byName(MANDATORY_FLOW_SCHEMAS);
const MANDATORY_PRIORITY_LEVELS_BY_NAME = byName(MANDATORY_PRIORITY_LEVELS);

/** The fixed spec of a mandatory FlowSchema, or undefined for any other name. */
export const mandatoryFlowSchemaSpec = (name: string) => MANDATORY_FLOW_SCHEMAS_BY_NAME.get(name)?.spec;
/** The fixed spec of a mandatory PriorityLevelConfiguration, or undefined for any other name. */
export const mandatoryPriorityLevelSpec = (name: string) => MANDATORY_PRIORITY_LEVELS_BY_NAME.get(name)?.spec;
