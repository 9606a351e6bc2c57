import assert from 'node:assert/strict';
import { validatingAdmissionPolicyBindings } from '../../src/kinds/validating-admission-policy-binding.ts';
import { runKindSuite } from './kind-suite.ts';

const binding = (spec: Record<string, unknown>) => ({ apiVersion: 'admissionregistration.k8s.io/v1', kind: 'ValidatingAdmissionPolicyBinding', spec: { policyName: 'replica-limit', validationActions: ['Deny'], ...spec } });

// Expectations from upstream's ValidatingAdmissionPolicyBinding validation and the v1 defaults (1.34).
runKindSuite({
  kind: validatingAdmissionPolicyBindings,
  valid: [
    { name: 'a binding by name', object: binding({ paramRef: { name: 'limits', namespace: 'default', parameterNotFoundAction: 'Deny' } }) },
    { name: 'a binding by selector, warn and audit', object: binding({ validationActions: ['Warn', 'Audit'], paramRef: { selector: { matchLabels: { env: 'test' } }, parameterNotFoundAction: 'Allow' } }) },
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
    {
      name: 'match resources (upstream spells the path matchResouces)',
      object: binding({ matchResources: { resourceRules: [{ apiGroups: [''], apiVersions: ['v1'], operations: ['CREATE'], resources: [] }], matchPolicy: 'Roughly' } }),
      errors: [
        { field: 'spec.matchResouces.matchPolicy', message: 'Unsupported value: "Roughly": supported values: "Equivalent", "Exact"' },
        { field: 'spec.matchResouces.resourceRules[0].resources', message: 'Required value' },
      ],
    },
  ],
  defaults: [{ name: 'match resources are defaulted', object: binding({ matchResources: {} }), expect: (o) => assert.deepEqual((o.spec as { matchResources: unknown }).matchResources, { matchPolicy: 'Equivalent', namespaceSelector: {}, objectSelector: {} }) }],
  columns: [
    { name: 'no params', object: binding({}), cells: ['replica-limit', '<unset>'] },
    { name: 'a named param without namespace', object: binding({ paramRef: { name: 'limits', parameterNotFoundAction: 'Deny' } }), cells: ['replica-limit', '*/limits'] },
    { name: 'a selector', object: binding({ paramRef: { selector: { matchLabels: { env: 'test' } }, parameterNotFoundAction: 'Deny' } }), cells: ['replica-limit', '&LabelSelector{MatchLabels:map[string]string{env: test,},MatchExpressions:[]LabelSelectorRequirement{},}'] },
  ],
});
