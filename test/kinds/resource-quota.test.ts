import assert from 'node:assert/strict';
import { resourceQuotas } from '../../src/kinds/resource-quota.ts';
import { runKindSuite } from './kind-suite.ts';

const quota = (spec: Record<string, unknown>, extra: Record<string, unknown> = {}) => ({ apiVersion: 'v1', kind: 'ResourceQuota', spec, ...extra });

// Expectations from upstream's ValidateResourceQuota(Update, StatusUpdate) and the quota printer (1.34).
runKindSuite({
  kind: resourceQuotas,
  valid: [
    { name: 'compute and object counts', object: quota({ hard: { 'requests.cpu': '4', 'limits.memory': '8Gi', pods: '10', configmaps: '20', 'count/deployments.apps': '5', 'example.com/gpu': '2' } }) },
    { name: 'scopes', object: quota({ hard: { pods: '5' }, scopes: ['BestEffort'] }) },
    { name: 'a scope selector', object: quota({ hard: { pods: '5', cpu: '2' }, scopeSelector: { matchExpressions: [{ scopeName: 'PriorityClass', operator: 'In', values: ['high'] }] } }) },
  ],
  invalid: [
    {
      name: 'unknown resources, negative and fractional counts',
      object: quota({ hard: { widgets: '1', pods: '1.5', cpu: '-1' } }),
      errors: [
        { field: 'spec.hard[cpu]', message: 'Invalid value: "-1": must be greater than or equal to 0' },
        { field: 'spec.hard[pods]', message: 'Invalid value: "1500m": must be an integer' },
        { field: 'spec.hard[widgets]', message: 'Invalid value: "widgets": must be a standard resource type or fully qualified' },
        { field: 'spec.hard[widgets]', message: 'Invalid value: "widgets": must be a standard resource for quota' },
      ],
    },
    {
      name: 'unsupported, misapplied and conflicting scopes',
      object: quota({ hard: { cpu: '1' }, scopes: ['BestEffort', 'NotBestEffort', 'Someday'] }),
      errors: [
        { field: 'spec.scopes', message: 'Invalid value: ["BestEffort","NotBestEffort","Someday"]: unsupported scope applied to resource' },
        { field: 'spec.scopes', message: 'Invalid value: ["BestEffort","NotBestEffort","Someday"]: unsupported scope' },
        { field: 'spec.scopes', message: 'Invalid value: ["BestEffort","NotBestEffort","Someday"]: conflicting scopes' },
      ],
    },
    {
      name: 'scope selector operators and values',
      object: quota({ hard: { pods: '1' }, scopeSelector: { matchExpressions: [{ scopeName: 'Terminating', operator: 'In', values: [] }, { scopeName: 'PriorityClass', operator: 'Exists', values: ['x'] }] } }),
      errors: [
        { field: 'spec.scopeSelector.matchExpressions.operator', message: "Invalid value: \"In\": must be 'Exist' when scope is any of ResourceQuotaScopeTerminating, ResourceQuotaScopeNotTerminating, ResourceQuotaScopeBestEffort, ResourceQuotaScopeNotBestEffort or ResourceQuotaScopeCrossNamespacePodAffinity" },
        { field: 'spec.scopeSelector.matchExpressions.values', message: "Required value: must be at least one value when `operator` is 'In' or 'NotIn' for scope selector" },
        { field: 'spec.scopeSelector.matchExpressions.values', message: `Invalid value: ["x"]: must be no value when \`operator\` is 'Exist' or 'DoesNotExist' for scope selector` },
      ],
    },
    {
      name: 'a selector scope that does not fit the resources',
      object: quota({ hard: { cpu: '1' }, scopeSelector: { matchExpressions: [{ scopeName: 'BestEffort', operator: 'Exists' }] } }),
      errors: [{ field: 'spec.scopeSelector.matchExpressions.scopeName', message: 'Invalid value: {"MatchExpressions":[{"ScopeName":"BestEffort","Operator":"Exists","Values":null}]}: unsupported scope applied to resource' }],
    },
  ],
  updates: [
    { name: 'scopes are immutable', object: quota({ hard: { pods: '1' }, scopes: ['BestEffort'] }), change: (o) => ({ ...o, spec: { hard: { pods: '1' }, scopes: ['NotBestEffort'] } }), errors: [{ field: 'spec.scopes', message: 'Invalid value: ["NotBestEffort"]: field is immutable' }] },
    { name: 'hard limits may change', object: quota({ hard: { pods: '1' } }), change: (o) => ({ ...o, spec: { hard: { pods: '2' } } }), expect: (o) => assert.deepEqual(o.spec, { hard: { pods: '2' } }) },
  ],
  statusUpdates: [
    { name: 'usage is checked like limits', object: quota({ hard: { pods: '1' } }), change: (o) => ({ ...o, status: { hard: { pods: '1' }, used: { pods: '-1' } } }), errors: [{ field: 'status.used[pods]', message: 'Invalid value: "-1": must be greater than or equal to 0' }] },
  ],
  defaults: [{ name: 'status starts empty', object: quota({ hard: { pods: '1' } }, { status: { hard: { pods: '1' }, used: { pods: '1' } } }), expect: (o) => assert.deepEqual(o.status, {}) }],
  columns: [{ name: 'request and limit usage', object: quota({ hard: { 'limits.cpu': '2', pods: '10', 'requests.memory': '1Gi' } }), cells: ['pods: 0/0, requests.memory: 0/0', 'limits.cpu: 0/0'] }],
});
