import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { KubeObject } from '../../src/api/types.ts';
import { resourceQuotas } from '../../src/kinds/resource-quota.ts';
import { parseDeleteOptions } from '../../src/registry/delete-options.ts';
import { toTable } from '../../src/registry/table.ts';
import { openTestRegistry, testContext, type TestRegistry } from '../helpers/registry.ts';
import { runKindSuite } from './kind-suite.ts';

const quota = (spec: Record<string, unknown>, extra: Record<string, unknown> = {}): KubeObject => ({ apiVersion: 'v1', kind: 'ResourceQuota', spec, ...extra });
const selector = (...matchExpressions: Record<string, unknown>[]) => ({ matchExpressions });
const EXISTS_ONLY =
  "must be 'Exists' when scope is any of ResourceQuotaScopeTerminating, ResourceQuotaScopeNotTerminating, ResourceQuotaScopeBestEffort, ResourceQuotaScopeNotBestEffort or ResourceQuotaScopeCrossNamespacePodAffinity";

// Expectations from upstream's ValidateResourceQuota(Update, StatusUpdate), the resourcequota strategies and printResourceQuota (1.34).
runKindSuite({
  kind: resourceQuotas,
  valid: [
    { name: 'compute, storage and object counts', object: quota({ hard: { 'requests.cpu': '4', 'limits.memory': '8Gi', 'requests.storage': '100Gi', pods: '10', configmaps: '20', 'services.loadbalancers': '0', 'requests.hugepages-2Mi': '1Gi', 'count/deployments.apps': '5', 'example.com/gpu': '2' } }) },
    { name: 'scopes that fit the resources', object: quota({ hard: { pods: '5' }, scopes: ['BestEffort', 'Terminating'] }) },
    { name: 'scopes do not judge non-standard resources', object: quota({ hard: { 'count/jobs.batch': '5', pods: '1' }, scopes: ['BestEffort'] }) },
    { name: 'a volume attributes class scope over claims', object: quota({ hard: { persistentvolumeclaims: '5', 'requests.storage': '1Ti' }, scopes: ['VolumeAttributesClass'] }) },
    {
      name: 'scope selectors',
      object: quota({
        hard: { pods: '5', cpu: '2' },
        scopeSelector: selector({ scopeName: 'PriorityClass', operator: 'In', values: ['high'] }, { scopeName: 'CrossNamespacePodAffinity', operator: 'Exists' }, { scopeName: 'NotBestEffort', operator: 'Exists' }),
      }),
    },
    { name: 'a volume attributes class selector', object: quota({ hard: { 'requests.storage': '1Ti' }, scopeSelector: selector({ scopeName: 'VolumeAttributesClass', operator: 'NotIn', values: ['gold'] }, { scopeName: 'VolumeAttributesClass', operator: 'DoesNotExist' }) }) },
    { name: 'an empty spec', object: quota({}) },
  ],
  invalid: [
    {
      name: 'unknown resources, negative and fractional counts',
      object: quota({ hard: { widgets: '1', pods: '1.5', cpu: '-1', 'count/deployments.apps': '500m', 'example.com/gpu': '0.5', 'Bad Name': '1' } }),
      errors: [
        { field: 'spec.hard[Bad Name]', message: `Invalid value: "Bad Name": name part must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]')` },
        { field: 'spec.hard[Bad Name]', message: 'Invalid value: "Bad Name": must be a standard resource for quota' },
        // Extended resources and count/ resources are counted, so whole numbers only.
        { field: 'spec.hard[count/deployments.apps]', message: 'Invalid value: "500m": must be an integer' },
        { field: 'spec.hard[cpu]', message: 'Invalid value: "-1": must be greater than or equal to 0' },
        { field: 'spec.hard[example.com/gpu]', message: 'Invalid value: "500m": must be an integer' },
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
      name: 'a misapplied scope is reported once per resource it cannot track',
      object: quota({ hard: { cpu: '1', services: '2', 'example.com/gpu': '1' }, scopes: ['BestEffort'] }),
      errors: [
        { field: 'spec.scopes', message: 'Invalid value: ["BestEffort"]: unsupported scope applied to resource' },
        { field: 'spec.scopes', message: 'Invalid value: ["BestEffort"]: unsupported scope applied to resource' },
      ],
    },
    {
      name: 'claim and pod scopes do not mix with the other kind of resource',
      object: quota({ hard: { pods: '1', 'requests.storage': '1Gi' }, scopes: ['VolumeAttributesClass', 'Terminating', 'NotTerminating'] }),
      errors: [
        { field: 'spec.scopes', message: 'Invalid value: ["VolumeAttributesClass","Terminating","NotTerminating"]: unsupported scope applied to resource' },
        { field: 'spec.scopes', message: 'Invalid value: ["VolumeAttributesClass","Terminating","NotTerminating"]: unsupported scope applied to resource' },
        { field: 'spec.scopes', message: 'Invalid value: ["VolumeAttributesClass","Terminating","NotTerminating"]: unsupported scope applied to resource' },
        { field: 'spec.scopes', message: 'Invalid value: ["VolumeAttributesClass","Terminating","NotTerminating"]: conflicting scopes' },
      ],
    },
    {
      name: 'scope selector operators and values',
      object: quota({
        hard: { pods: '1' },
        scopeSelector: selector(
          { scopeName: 'Terminating', operator: 'In', values: [] },
          { scopeName: 'PriorityClass', operator: 'Exists', values: ['x'] },
          { scopeName: 'PriorityClass', operator: 'Equals', values: ['x'] },
          { scopeName: 'Someday', operator: 'Exists' },
        ),
      }),
      errors: [
        { field: 'spec.scopeSelector.matchExpressions.operator', message: `Invalid value: "In": ${EXISTS_ONLY}` },
        { field: 'spec.scopeSelector.matchExpressions.values', message: "Required value: must be at least one value when `operator` is 'In' or 'NotIn' for scope selector" },
        { field: 'spec.scopeSelector.matchExpressions.values', message: `Invalid value: ["x"]: must be no value when \`operator\` is 'Exist' or 'DoesNotExist' for scope selector` },
        { field: 'spec.scopeSelector.matchExpressions.operator', message: 'Invalid value: "Equals": not a valid selector operator' },
        { field: 'spec.scopeSelector.matchExpressions.scopeName', message: 'Invalid value: "Someday": unsupported scope' },
      ],
    },
    {
      name: 'a selector scope that does not fit the resources shows the whole selector',
      object: quota({ hard: { cpu: '1' }, scopeSelector: selector({ scopeName: 'BestEffort', operator: 'Exists' }) }),
      errors: [{ field: 'spec.scopeSelector.matchExpressions', message: 'Invalid value: {"MatchExpressions":[{"ScopeName":"BestEffort","Operator":"Exists","Values":null}]}: unsupported scope applied to resource' }],
    },
    {
      name: 'conflicting selector scopes show spec.scopes (null when unset)',
      object: quota({ hard: { pods: '1' }, scopeSelector: selector({ scopeName: 'Terminating', operator: 'Exists' }, { scopeName: 'NotTerminating', operator: 'DoesNotExist' }) }),
      errors: [
        { field: 'spec.scopeSelector.matchExpressions.operator', message: `Invalid value: "DoesNotExist": ${EXISTS_ONLY}` },
        { field: 'spec.scopeSelector.matchExpressions', message: 'Invalid value: null: conflicting scopes' },
      ],
    },
    {
      name: 'conflicting selector scopes next to spec.scopes',
      object: quota({ hard: { pods: '1' }, scopes: ['Terminating'], scopeSelector: selector({ scopeName: 'BestEffort', operator: 'Exists' }, { scopeName: 'NotBestEffort', operator: 'Exists' }) }),
      errors: [{ field: 'spec.scopeSelector.matchExpressions', message: 'Invalid value: ["Terminating"]: conflicting scopes' }],
    },
  ],
  updates: [
    { name: 'scopes are immutable', object: quota({ hard: { pods: '1' }, scopes: ['BestEffort'] }), change: (o) => ({ ...o, spec: { hard: { pods: '1' }, scopes: ['NotBestEffort'] } }), errors: [{ field: 'spec.scopes', message: 'Invalid value: ["NotBestEffort"]: field is immutable' }] },
    { name: 'removing every scope is a change too', object: quota({ hard: { pods: '1' }, scopes: ['BestEffort'] }), change: (o) => ({ ...o, spec: { hard: { pods: '1' } } }), errors: [{ field: 'spec.scopes', message: 'Invalid value: null: field is immutable' }] },
    {
      name: 'scopes compare as a set (order may change)',
      object: quota({ hard: { pods: '1' }, scopes: ['BestEffort', 'Terminating'] }),
      change: (o) => ({ ...o, spec: { hard: { pods: '2' }, scopes: ['Terminating', 'BestEffort'] } }),
      expect: (o) => assert.deepEqual(o.spec, { hard: { pods: '2' }, scopes: ['Terminating', 'BestEffort'] }),
    },
    { name: 'the spec is validated again', object: quota({ hard: { pods: '1' } }), change: (o) => ({ ...o, spec: { hard: { pods: '-2' } } }), errors: [{ field: 'spec.hard[pods]', message: 'Invalid value: "-2": must be greater than or equal to 0' }] },
    {
      name: 'hard limits may change; an update keeps the stored status',
      object: quota({ hard: { pods: '1' } }),
      change: (o) => ({ ...o, spec: { hard: { pods: '2' } }, status: { hard: { pods: '2' }, used: { pods: '1' } } }),
      expect: (o) => {
        assert.deepEqual(o.spec, { hard: { pods: '2' } });
        assert.deepEqual(o.status, {});
      },
    },
  ],
  statusUpdates: [
    { name: 'usage is checked like limits', object: quota({ hard: { pods: '1' } }), change: (o) => ({ ...o, status: { hard: { pods: '1' }, used: { pods: '-1', widgets: '1' } } }), errors: [
      { field: 'status.used[pods]', message: 'Invalid value: "-1": must be greater than or equal to 0' },
      { field: 'status.used[widgets]', message: 'Invalid value: "widgets": must be a standard resource type or fully qualified' },
      { field: 'status.used[widgets]', message: 'Invalid value: "widgets": must be a standard resource for quota' },
    ] },
    { name: 'status.hard too', object: quota({ hard: { pods: '1' } }), change: (o) => ({ ...o, status: { hard: { pods: '0.5' } } }), errors: [{ field: 'status.hard[pods]', message: 'Invalid value: "500m": must be an integer' }] },
    {
      name: 'a status write keeps the spec (even an invalid one) and stores canonical quantities',
      object: quota({ hard: { pods: '1', cpu: '2' } }),
      change: (o) => ({ ...o, spec: { hard: { pods: '-5' } }, status: { hard: { pods: '1', cpu: '2000m' }, used: { pods: '1', cpu: '0.5' } } }),
      expect: (o) => {
        assert.deepEqual(o.spec, { hard: { pods: '1', cpu: '2' } });
        assert.deepEqual(o.status, { hard: { pods: '1', cpu: '2' }, used: { pods: '1', cpu: '500m' } });
      },
    },
  ],
  defaults: [
    { name: 'status starts empty', object: quota({ hard: { pods: '1' } }, { status: { hard: { pods: '1' }, used: { pods: '1' } } }), expect: (o) => assert.deepEqual(o.status, {}) },
    { name: 'hard quantities are stored in canonical form', object: quota({ hard: { 'requests.memory': '1024Mi', 'limits.cpu': '1500m', pods: '1e1' } }), expect: (o) => assert.deepEqual(o.spec, { hard: { 'requests.memory': '1Gi', 'limits.cpu': '1500m', pods: '10' } }) },
    { name: 'an empty hard map is left off', object: quota({ hard: {} }), expect: (o) => assert.deepEqual(o.spec, {}) },
  ],
  // A new quota has no status yet: the usage columns are empty whatever spec.hard holds.
  columns: [{ name: 'a new quota', object: quota({ hard: { 'limits.cpu': '2', pods: '10' } }), cells: ['', ''] }],
});

describe('ResourceQuota table and delete', () => {
  let registry: TestRegistry;
  before(async () => {
    registry = await openTestRegistry();
  });
  after(async () => {
    await registry.close();
  });

  test('columns: Name, Age, Request, Limit', () => {
    const table = toTable(resourceQuotas, []);
    assert.deepEqual(
      table.columnDefinitions.map((c) => [c.name, c.type, c.format, c.priority]),
      [
        ['Name', 'string', 'name', 0],
        ['Age', 'string', '', 0],
        ['Request', 'string', '', 0],
        ['Limit', 'string', '', 0],
      ],
    );
  });

  test('usage cells follow status.hard: used/hard sorted by name, limits.* apart, a missing amount is 0', () => {
    const created = new Date(Date.now() - 3 * 60_000).toISOString().replace(/\.\d+Z$/, 'Z');
    const obj = quota(
      { hard: { pods: '10' } },
      {
        metadata: { name: 'compute', creationTimestamp: created },
        status: { hard: { 'limits.cpu': '4', pods: '10', 'requests.memory': '1Gi', limitsx: '1', 'limits.memory': '2Gi' }, used: { pods: '3', 'limits.cpu': '1500m', 'requests.memory': '512Mi' } },
      },
    );
    assert.deepEqual(toTable(resourceQuotas, [obj]).rows[0]!.cells, ['compute', '3m', 'limitsx: 0/1, pods: 3/10, requests.memory: 512Mi/1Gi', 'limits.cpu: 1500m/4, limits.memory: 0/2Gi']);
  });

  test('a delete answers with the deleted quota', async () => {
    const store = registry.store('resourcequotas');
    await store.create(testContext(), 'default', { ...quota({ hard: { pods: '1' } }), metadata: { name: 'gone' } });
    const outcome = await store.delete(testContext(), 'default', 'gone', parseDeleteOptions(new URLSearchParams(), undefined));
    assert.equal(outcome.gone, true);
    assert.equal(outcome.gone && outcome.status, undefined);
    assert.equal(outcome.object.object.metadata.name, 'gone');
    assert.equal(resourceQuotas.returnDeletedObject, true);
  });

  test('short name quota, a status subresource, no categories or extra field selectors', () => {
    assert.deepEqual(resourceQuotas.shortNames, ['quota']);
    assert.deepEqual(resourceQuotas.categories, []);
    assert.deepEqual(resourceQuotas.subresources.map((s) => [s.name, s.verbs]), [['status', ['get', 'update', 'patch']]]);
    assert.deepEqual(resourceQuotas.fieldSelectors, {});
    assert.equal(resourceQuotas.allowCreateOnUpdate, false);
  });
});
