/**
 * The mandatory API priority and fairness objects (`exempt` and `catch-all`), whose specs are fixed:
 * validation refuses any other spec under their names, as upstream's internalbootstrap does. These
 * are the specs after v1 defaulting.
 */
const ALL_RULES = {
  resourceRules: [{ verbs: ['*'], apiGroups: ['*'], resources: ['*'], clusterScope: true, namespaces: ['*'] }],
  nonResourceRules: [{ verbs: ['*'], nonResourceURLs: ['*'] }],
};

export const MANDATORY_FLOW_SCHEMAS: Readonly<Record<string, unknown>> = {
  exempt: {
    priorityLevelConfiguration: { name: 'exempt' },
    matchingPrecedence: 1,
    rules: [{ subjects: [{ kind: 'Group', group: { name: 'system:masters' } }], ...ALL_RULES }],
  },
  'catch-all': {
    priorityLevelConfiguration: { name: 'catch-all' },
    matchingPrecedence: 10000,
    distinguisherMethod: { type: 'ByUser' },
    rules: [{ subjects: [{ kind: 'Group', group: { name: 'system:unauthenticated' } }, { kind: 'Group', group: { name: 'system:authenticated' } }], ...ALL_RULES }],
  },
};

export const MANDATORY_PRIORITY_LEVELS: Readonly<Record<string, unknown>> = {
  exempt: { type: 'Exempt', exempt: { nominalConcurrencyShares: 0, lendablePercent: 0 } },
  'catch-all': { type: 'Limited', limited: { nominalConcurrencyShares: 5, lendablePercent: 0, limitResponse: { type: 'Reject' } } },
};
