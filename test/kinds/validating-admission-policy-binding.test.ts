import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { validatingAdmissionPolicyBindings } from '../../src/kinds/validating-admission-policy-binding.ts';
import { toTable } from '../../src/registry/table.ts';
import { openTestRegistry, testContext, type TestRegistry } from '../helpers/registry.ts';
import { runKindSuite } from './kind-suite.ts';

const binding = (spec: Record<string, unknown>) => ({ apiVersion: 'admissionregistration.k8s.io/v1', kind: 'ValidatingAdmissionPolicyBinding', spec: { policyName: 'replica-limit', validationActions: ['Deny'], ...spec } });
const pods = { apiGroups: [''], apiVersions: ['v1'], operations: ['CREATE'], resources: ['pods'] };
const DNS1123 = `a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character (e.g. 'example.com', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')`;

// Expectations from upstream's ValidatingAdmissionPolicyBinding validation, strategy, v1 defaults
// and printers (1.34).
runKindSuite({
  kind: validatingAdmissionPolicyBindings,
  valid: [
    { name: 'a binding by name', object: binding({ paramRef: { name: 'limits', namespace: 'default', parameterNotFoundAction: 'Deny' } }) },
    { name: 'a binding by selector, warn and audit', object: binding({ validationActions: ['Warn', 'Audit'], paramRef: { selector: { matchLabels: { env: 'test' } }, parameterNotFoundAction: 'Allow' } }) },
    { name: 'deny and audit, with match resources', object: binding({ validationActions: ['Deny', 'Audit'], matchResources: { resourceRules: [pods], excludeResourceRules: [{ ...pods, resourceNames: ['skip-me'] }], namespaceSelector: { matchLabels: { team: 'a' } } } }) },
  ],
  invalid: [
    {
      name: 'no policy, no actions',
      object: binding({ policyName: '', validationActions: [] }),
      errors: [
        { field: 'spec.policyName', message: 'Required value' },
        { field: 'spec.validationActions', message: 'Required value: at least one validation action is required' },
      ],
    },
    { name: 'the policy name is a DNS subdomain', object: binding({ policyName: 'Replica_Limit' }), errors: [{ field: 'spec.policyName', message: `Invalid value: "Replica_Limit": ${DNS1123}` }] },
    {
      name: 'actions: unknown, repeated, Deny with Warn',
      object: binding({ validationActions: ['Deny', 'Warn', 'Deny', 'Shout'] }),
      errors: [
        { field: 'spec.validationActions[2]', message: 'Duplicate value: "Deny"' },
        { field: 'spec.validationActions[3]', message: 'Unsupported value: "Shout": supported values: "Audit", "Deny", "Warn"' },
        { field: 'spec.validationActions', message: 'Invalid value: ["Deny","Warn","Deny","Shout"]: must not contain both Deny and Warn (repeating the same validation failure information in the API response and headers serves no purpose)' },
      ],
    },
    {
      name: 'param refs: name xor selector, action required',
      object: binding({ paramRef: { name: 'a', selector: {} } }),
      errors: [
        { field: 'spec.paramRef.name', message: 'Forbidden: name and selector are mutually exclusive' },
        { field: 'spec.paramRef.selector', message: 'Forbidden: name and selector are mutually exclusive' },
        { field: 'spec.paramRef.parameterNotFoundAction', message: 'Required value' },
      ],
    },
    { name: 'a param ref naming nothing', object: binding({ paramRef: { parameterNotFoundAction: 'Maybe' } }), errors: [{ field: 'spec.paramRef', message: 'Required value: one of name or selector must be specified' }, { field: 'spec.paramRef.parameterNotFoundAction', message: 'Unsupported value: "Maybe": supported values: "Deny", "Allow"' }] },
    { name: 'a param name is a path segment', object: binding({ paramRef: { name: '..', parameterNotFoundAction: 'Deny' } }), errors: [{ field: 'spec.paramRef.name', message: `Invalid value: "..": may not be '..'` }] },
    {
      name: 'a param selector is a valid label selector',
      object: binding({ paramRef: { selector: { matchExpressions: [{ key: 'env', operator: 'Exists', values: ['x'] }] }, parameterNotFoundAction: 'Allow' } }),
      errors: [{ field: 'spec.paramRef.selector.matchExpressions[0].values', message: "Forbidden: may not be specified when `operator` is 'Exists' or 'DoesNotExist'" }],
    },
    {
      name: 'match resources (upstream spells the path matchResouces)',
      object: binding({ matchResources: { resourceRules: [{ ...pods, resources: [] }], excludeResourceRules: [{ ...pods, operations: ['*', 'CREATE'] }], matchPolicy: 'Roughly', objectSelector: { matchExpressions: [{ key: 'a', operator: 'Near' }] } } }),
      errors: [
        { field: 'spec.matchResouces.matchPolicy', message: 'Unsupported value: "Roughly": supported values: "Equivalent", "Exact"' },
        { field: 'spec.matchResouces.objectSelector.matchExpressions[0].operator', message: 'Invalid value: "Near": not a valid selector operator' },
        { field: 'spec.matchResouces.resourceRules[0].resources', message: 'Required value' },
        { field: 'spec.matchResouces.excludeResourceRules[0].operations', message: `Invalid value: ["*","CREATE"]: if '*' is present, must not specify other operations` },
      ],
    },
  ],
  updates: [
    { name: 'a spec change bumps the generation', object: binding({}), change: (o) => ({ ...o, spec: { ...(o.spec as object), validationActions: ['Audit'] } }), expect: (o) => assert.equal(o.metadata?.generation, 2) },
    { name: 'a label change does not', object: binding({}), change: (o) => ({ ...o, metadata: { ...o.metadata, labels: { a: 'b' } } }), expect: (o) => assert.equal(o.metadata?.generation, 1) },
    {
      name: 'the rules hold on update',
      object: binding({}),
      change: (o) => ({ ...o, spec: { ...(o.spec as object), validationActions: ['Deny', 'Warn'] } }),
      errors: [{ field: 'spec.validationActions', message: 'Invalid value: ["Deny","Warn"]: must not contain both Deny and Warn (repeating the same validation failure information in the API response and headers serves no purpose)' }],
    },
  ],
  defaults: [
    { name: 'match resources: Equivalent, selectors {}', object: binding({ matchResources: {} }), expect: (o) => assert.deepEqual((o.spec as { matchResources: unknown }).matchResources, { matchPolicy: 'Equivalent', namespaceSelector: {}, objectSelector: {} }) },
    {
      name: 'rules default to every scope; a missing parameterNotFoundAction is not defaulted',
      object: binding({ matchResources: { resourceRules: [pods], excludeResourceRules: [{ ...pods, scope: 'Cluster' }] } }),
      expect: (o) => {
        const m = (o.spec as { matchResources: { resourceRules: unknown[]; excludeResourceRules: unknown[] } }).matchResources;
        assert.deepEqual(m.resourceRules, [{ ...pods, scope: '*' }]);
        assert.deepEqual(m.excludeResourceRules, [{ ...pods, scope: 'Cluster' }]);
        assert.equal(o.metadata?.generation, 1);
      },
    },
    { name: 'no match resources stays none', object: binding({}), expect: (o) => assert.equal((o.spec as { matchResources?: unknown }).matchResources, undefined) },
  ],
  columns: [
    { name: 'no params', object: binding({}), cells: ['replica-limit', '<unset>'] },
    { name: 'a named param without namespace', object: binding({ paramRef: { name: 'limits', parameterNotFoundAction: 'Deny' } }), cells: ['replica-limit', '*/limits'] },
    { name: 'a named param in a namespace', object: binding({ paramRef: { name: 'limits', namespace: 'team-a', parameterNotFoundAction: 'Deny' } }), cells: ['replica-limit', 'team-a/limits'] },
    {
      name: 'a selector, as its generated String() prints it',
      object: binding({ paramRef: { selector: { matchLabels: { env: 'test', app: 'x' }, matchExpressions: [{ key: 'tier', operator: 'In', values: ['a', 'b'] }, { key: 'gone', operator: 'DoesNotExist' }] }, parameterNotFoundAction: 'Deny' } }),
      cells: ['replica-limit', '&LabelSelector{MatchLabels:map[string]string{app: x,env: test,},MatchExpressions:[]LabelSelectorRequirement{LabelSelectorRequirement{Key:tier,Operator:In,Values:[a b],},LabelSelectorRequirement{Key:gone,Operator:DoesNotExist,Values:[],},},}'],
    },
  ],
});

describe('ValidatingAdmissionPolicyBinding: the rest of upstream strategy', () => {
  let registry: TestRegistry;
  const store = () => registry.store('validatingadmissionpolicybindings', 'admissionregistration.k8s.io');
  before(async () => {
    registry = await openTestRegistry();
  });
  after(async () => {
    await registry.close();
  });

  test('an update must name the resourceVersion it replaces, and a PUT does not create', async () => {
    await store().create(testContext(), '', { ...binding({}), metadata: { name: 'unconditional' } });
    await assert.rejects(store().replace(testContext(), '', 'unconditional', { ...binding({}), metadata: { name: 'unconditional' } }), (err: { code?: number; message?: string }) => {
      assert.equal(err.code, 422);
      assert.match(String(err.message), /metadata\.resourceVersion: Invalid value: 0x0: must be specified for an update/);
      return true;
    });
    await assert.rejects(store().replace(testContext(), '', 'missing', { ...binding({}), metadata: { name: 'missing' } }), (err: { code?: number }) => err.code === 404);
  });

  test('the table has Name, PolicyName, ParamRef and Age', () => {
    const table = toTable(validatingAdmissionPolicyBindings, []);
    assert.deepEqual(table.columnDefinitions.map((c) => [c.name, c.type]), [['Name', 'string'], ['PolicyName', 'string'], ['ParamRef', 'string'], ['Age', 'string']]);
  });
});
