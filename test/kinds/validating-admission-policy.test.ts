import assert from 'node:assert/strict';
import { validatingAdmissionPolicies } from '../../src/kinds/validating-admission-policy.ts';
import { runKindSuite } from './kind-suite.ts';

const rules = { resourceRules: [{ apiGroups: ['apps'], apiVersions: ['v1'], operations: ['CREATE', 'UPDATE'], resources: ['deployments'] }] };
const vap = (spec: Record<string, unknown>, name?: string) => ({ apiVersion: 'admissionregistration.k8s.io/v1', kind: 'ValidatingAdmissionPolicy', ...(name ? { metadata: { name } } : {}), spec: { matchConstraints: rules, ...spec } });
const check = { validations: [{ expression: 'object.spec.replicas <= 5' }] };

// Expectations from upstream's ValidatingAdmissionPolicy validation and the v1 defaults (1.34).
runKindSuite({
  kind: validatingAdmissionPolicies,
  valid: [
    { name: 'a validation', object: vap(check) },
    {
      name: 'params, variables, conditions, audit annotations',
      object: vap(
        {
          paramKind: { apiVersion: 'rules.example.com/v1', kind: 'ReplicaLimit' },
          variables: [{ name: 'replicas', expression: 'object.spec.replicas' }],
          matchConditions: [{ name: 'not-system', expression: "!request.userInfo.username.startsWith('system:')" }],
          validations: [{ expression: 'variables.replicas <= params.max', messageExpression: "'too many: ' + string(variables.replicas)", reason: 'Forbidden' }],
          auditAnnotations: [{ key: 'high-replicas', valueExpression: "'replicas: ' + string(object.spec.replicas)" }],
        },
        'replica-limit',
      ),
    },
  ],
  invalid: [
    {
      name: 'no validations, no resource rules, bad failure policy',
      object: vap({ failurePolicy: 'Sometimes', matchConstraints: {} }),
      errors: [
        { field: 'spec.failurePolicy', message: 'Unsupported value: "Sometimes": supported values: "Fail", "Ignore"' },
        { field: 'spec.matchConstraints.resourceRules', message: 'Required value' },
        { field: 'spec.validations', message: 'Required value: validations or auditAnnotations must contain at least one item' },
        { field: 'spec.auditAnnotations', message: 'Required value: validations or auditAnnotations must contain at least one item' },
      ],
    },
    {
      name: "rules: '*' only alone, operations, scope",
      object: vap({ ...check, matchConstraints: { resourceRules: [{ apiGroups: ['*', 'apps'], apiVersions: [], operations: ['CREATE', '*', 'PATCH'], resources: ['*', 'pods'], scope: 'Galaxy' }] } }),
      errors: [
        { field: 'spec.matchConstraints.resourceRules[0].operations', message: `Invalid value: ["CREATE","*","PATCH"]: if '*' is present, must not specify other operations` },
        { field: 'spec.matchConstraints.resourceRules[0].operations[2]', message: 'Unsupported value: "PATCH": supported values: "*", "CONNECT", "CREATE", "DELETE", "UPDATE"' },
        { field: 'spec.matchConstraints.resourceRules[0].apiGroups', message: `Invalid value: ["*","apps"]: if '*' is present, must not specify other API groups` },
        { field: 'spec.matchConstraints.resourceRules[0].apiVersions', message: 'Required value' },
        { field: 'spec.matchConstraints.resourceRules[0].resources', message: `Invalid value: ["*","pods"]: if '*' is present, must not specify other resources without subresources` },
        { field: 'spec.matchConstraints.resourceRules[0].scope', message: 'Unsupported value: "Galaxy": supported values: "*", "Cluster", "Namespaced"' },
      ],
    },
    {
      name: 'expressions: missing, unparseable; message with line breaks; reason',
      object: vap({ validations: [{ expression: ' ' }, { expression: 'object.spec.replicas <=', message: 'line\nbreak', reason: 'Teapot' }] }),
      errors: [
        { field: 'spec.validations[0].expression', message: 'Required value: expression is not specified' },
        { field: 'spec.validations[1].expression', message: 'Invalid value: "object.spec.replicas <=": compilation failed: ERROR: <input>:1:24: Syntax error: Unexpected token: EOF' },
        { field: 'spec.validations[1].message', message: 'Invalid value: "line\\nbreak": message must not contain line breaks' },
        { field: 'spec.validations[1].reason', message: 'Unsupported value: "Teapot": supported values: "Forbidden", "Invalid", "RequestEntityTooLarge", "Unauthorized"' },
      ],
    },
    {
      name: 'variables and match conditions',
      object: vap({ ...check, variables: [{ name: 'in', expression: '1' }, { name: 'ok' }], matchConditions: [{ name: 'a', expression: 'true' }, { name: 'a', expression: 'true' }, { name: 'bad name!', expression: '' }] }),
      errors: [
        { field: 'spec.matchConditions[1].name', message: 'Duplicate value: "a"' },
        { field: 'spec.matchConditions[2].expression', message: 'Required value' },
        { field: 'spec.matchConditions[2].name', message: `Invalid value: "bad name!": name part must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]')` },
        { field: 'spec.variables[0].name', message: 'Invalid value: "in": name is not a valid CEL identifier' },
        { field: 'spec.variables[1].expression', message: 'Required value: expression is not specified' },
      ],
    },
    {
      name: 'more than 64 match conditions',
      object: vap({ ...check, matchConditions: Array.from({ length: 65 }, (_, i) => ({ name: `c${i}`, expression: 'true' })) }),
      errors: [{ field: 'spec.matchConditions', message: 'Too many: 65: must have at most 64 items' }],
    },
    {
      name: 'param kind and audit annotation keys',
      object: vap({ paramKind: { apiVersion: 'a/b/c', kind: 'Bad_Kind' }, auditAnnotations: [{ key: 'x y', valueExpression: "'v'" }, { key: 'x y', valueExpression: '' }] }, 'policy'),
      errors: [
        { field: 'spec.paramKind.apiVersion', message: 'Invalid value: "a/b/c": unexpected GroupVersion string: a/b/c' },
        { field: 'spec.paramKind.kind', message: `Invalid value: "Bad_Kind": may have mixed case, but should otherwise match: a DNS-1035 label must consist of lower case alphanumeric characters or '-', start with an alphabetic character, and end with an alphanumeric character (e.g. 'my-name',  or 'abc-123', regex used for validation is '[a-z]([-a-z0-9]*[a-z0-9])?')` },
        { field: 'spec.auditAnnotations[0].key', message: `Invalid value: "policy/x y": name part must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]')` },
        { field: 'spec.auditAnnotations[1].key', message: `Invalid value: "policy/x y": name part must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]')` },
        { field: 'spec.auditAnnotations[1].valueExpression', message: 'Required value: valueExpression is not specified' },
        { field: 'spec.auditAnnotations[1].key', message: 'Duplicate value: "x y"' },
      ],
    },
  ],
  updates: [{ name: 'a spec change bumps the generation', object: vap(check), change: (o) => ({ ...o, spec: { ...(o.spec as object), failurePolicy: 'Ignore' } }), expect: (o) => assert.equal(o.metadata?.generation, 2) }],
  statusUpdates: [
    {
      name: 'type-checking warnings need their field and text',
      object: vap(check),
      change: (o) => ({ ...o, status: { typeChecking: { expressionWarnings: [{ fieldRef: '', warning: '' }] } } }),
      errors: [{ field: 'status.typeChecking.expressionWarnings[0].warning', message: 'Required value' }, { field: 'status.typeChecking.expressionWarnings[0].fieldRef', message: 'Required value' }],
    },
  ],
  defaults: [
    {
      name: 'failurePolicy Fail, matchPolicy Equivalent, selectors {}, scope *',
      object: vap(check),
      expect: (o) => {
        const spec = o.spec as { failurePolicy: string; matchConstraints: Record<string, unknown> };
        assert.equal(spec.failurePolicy, 'Fail');
        assert.deepEqual(spec.matchConstraints, { resourceRules: [{ apiGroups: ['apps'], apiVersions: ['v1'], operations: ['CREATE', 'UPDATE'], resources: ['deployments'], scope: '*' }], matchPolicy: 'Equivalent', namespaceSelector: {}, objectSelector: {} });
      },
    },
  ],
  columns: [
    { name: 'without params', object: vap(check), cells: [1, '<unset>'] },
    { name: 'with params', object: vap({ ...check, paramKind: { apiVersion: 'v1', kind: 'ConfigMap' } }), cells: [1, 'v1/ConfigMap'] },
  ],
});
