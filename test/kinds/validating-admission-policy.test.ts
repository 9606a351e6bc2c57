import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { validatingAdmissionPolicies } from '../../src/kinds/validating-admission-policy.ts';
import { toTable } from '../../src/registry/table.ts';
import { openTestRegistry, testContext, type TestRegistry } from '../helpers/registry.ts';
import { runKindSuite } from './kind-suite.ts';

const deployments = { apiGroups: ['apps'], apiVersions: ['v1'], operations: ['CREATE', 'UPDATE'], resources: ['deployments'] };
const rules = { resourceRules: [deployments] };
const vap = (spec: Record<string, unknown>, name?: string) => ({ apiVersion: 'admissionregistration.k8s.io/v1', kind: 'ValidatingAdmissionPolicy', ...(name ? { metadata: { name } } : {}), spec: { matchConstraints: rules, ...spec } });
const check = { validations: [{ expression: 'object.spec.replicas <= 5' }] };
const constraints = (rule: Record<string, unknown>, more: Record<string, unknown> = {}) => ({ ...check, matchConstraints: { resourceRules: [{ ...deployments, ...rule }], ...more } });
const NAME_PART = `name part must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]')`;
const DNS1035 = `a DNS-1035 label must consist of lower case alphanumeric characters or '-', start with an alphabetic character, and end with an alphanumeric character (e.g. 'my-name',  or 'abc-123', regex used for validation is '[a-z]([-a-z0-9]*[a-z0-9])?')`;
const DNS1123 = `a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character (e.g. 'example.com', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')`;
/** cel-go's display of a compile error: position, message, the source line and a caret under the column. */
/** cel-go's parser (ANTLR) at an expression that ends where an operand is due. */
const EOF_OPERAND = "Syntax error: mismatched input '<EOF>' expecting {'[', '{', '(', '.', '-', '!', 'true', 'false', 'null', NUM_FLOAT, NUM_INT, NUM_UINT, STRING, BYTES, IDENTIFIER}";
const compileError = (line: number, column: number, message: string, source: string) => `compilation failed: ERROR: <input>:${line}:${column}: ${message}\n | ${source}\n | ${'.'.repeat(column - 1)}^`;

// Expectations from upstream's ValidatingAdmissionPolicy validation, CEL compilation, strategy,
// v1 defaults and printers (1.34).
runKindSuite({
  kind: validatingAdmissionPolicies,
  valid: [
    { name: 'a validation', object: vap(check) },
    {
      name: 'params, variables, conditions, audit annotations',
      object: vap(
        {
          paramKind: { apiVersion: 'rules.example.com/v1', kind: 'ReplicaLimit' },
          variables: [{ name: 'replicas', expression: 'object.spec.replicas' }, { name: 'limit', expression: 'params.max + variables.replicas' }],
          matchConditions: [{ name: 'not-system', expression: "!request.userInfo.username.startsWith('system:') && params.enabled" }],
          validations: [{ expression: 'variables.replicas <= params.max', messageExpression: "'too many: ' + string(variables.replicas)", message: 'too many replicas', reason: 'Forbidden' }],
          auditAnnotations: [{ key: 'high-replicas', valueExpression: "'replicas: ' + string(object.spec.replicas)" }],
        },
        'replica-limit',
      ),
    },
    {
      name: "Kubernetes' CEL: optionals, macros, bindings, libraries, typed request and namespace",
      object: vap({
        validations: [
          { expression: "object.?spec.?replicas.orValue(1) <= 5 && [?object.?metadata.?name].size() <= 1 && {?'a': object.?x}.size() >= 0" },
          { expression: "object.spec.template.spec.containers.all(c, c.image.startsWith('registry.example.com/')) && object.metadata.name != ''" },
          { expression: "quantity(object.spec.memory).isLessThan(quantity('1Gi')) && sets.contains([1, 2], [1]) && type(object) == map" },
          { expression: "authorizer.group('apps').resource('deployments').check('update').allowed() || request.dryRun", messageExpression: "namespaceObject.metadata.name + ' // not ? here'" },
          { expression: 'has(object.spec.paused) // a comment\n  && object.spec.paused == false' },
        ],
        auditAnnotations: [{ key: 'replicas', valueExpression: "'replicas: ' + string(object.spec.replicas)" }, { key: 'nothing', valueExpression: 'null' }],
      }),
    },
    { name: "'*' beside resources with subresources", object: vap(constraints({ resources: ['*', 'a/b', 'a/*', '*/b'] })) },
    { name: "'a/*' beside 'a'", object: vap(constraints({ resources: ['a/*', 'a'] })) },
    { name: 'a core group param kind', object: vap({ ...check, paramKind: { apiVersion: 'v1', kind: 'ConfigMap' } }) },
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
      object: vap(constraints({ apiGroups: ['*', 'apps'], apiVersions: [], operations: ['CREATE', '*', 'PATCH'], resources: ['*', 'pods'], scope: 'Galaxy' })),
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
      name: 'rules: required lists, empty entries, versions beside *',
      object: vap(constraints({ apiGroups: [], apiVersions: ['v1', '*', ''], operations: [], resources: ['pods', ''] })),
      errors: [
        { field: 'spec.matchConstraints.resourceRules[0].operations', message: 'Required value' },
        { field: 'spec.matchConstraints.resourceRules[0].apiGroups', message: 'Required value' },
        { field: 'spec.matchConstraints.resourceRules[0].apiVersions', message: `Invalid value: ["v1","*",""]: if '*' is present, must not specify other API versions` },
        { field: 'spec.matchConstraints.resourceRules[0].apiVersions[2]', message: 'Required value' },
        { field: 'spec.matchConstraints.resourceRules[0].resources[1]', message: 'Required value' },
      ],
    },
    {
      name: 'subresource rules: x/* and */x cover their kind, */* stands alone',
      object: vap({
        ...check,
        matchConstraints: {
          resourceRules: [
            { ...deployments, resources: ['a/*', 'a/x'] },
            { ...deployments, resources: ['*/a', 'x/a'] },
            { ...deployments, resources: ['*/*', 'a'] },
          ],
        },
      }),
      errors: [
        { field: 'spec.matchConstraints.resourceRules[0].resources[1]', message: `Invalid value: "a/x": if 'a/*' is present, must not specify a/x` },
        { field: 'spec.matchConstraints.resourceRules[1].resources[1]', message: `Invalid value: "x/a": if '*/a' is present, must not specify x/a` },
        { field: 'spec.matchConstraints.resourceRules[2].resources', message: `Invalid value: ["*/*","a"]: if '*/*' is present, must not specify other resources` },
      ],
    },
    {
      name: 'match constraints: match policy, selectors, exclusions, resource names',
      object: vap({
        ...check,
        matchConstraints: {
          ...rules,
          matchPolicy: 'Roughly',
          namespaceSelector: { matchExpressions: [{ key: 'env', operator: 'In' }] },
          objectSelector: { matchLabels: { 'bad key!': 'x' } },
          excludeResourceRules: [{ ...deployments, operations: [], resourceNames: ['a/b', 'ok', 'ok'] }],
        },
      }),
      errors: [
        { field: 'spec.matchConstraints.matchPolicy', message: 'Unsupported value: "Roughly": supported values: "Equivalent", "Exact"' },
        { field: 'spec.matchConstraints.namespaceSelector.matchExpressions[0].values', message: "Required value: must be specified when `operator` is 'In' or 'NotIn'" },
        { field: 'spec.matchConstraints.objectSelector.matchLabels', message: `Invalid value: "bad key!": ${NAME_PART}` },
        { field: 'spec.matchConstraints.excludeResourceRules[0].resourceNames[0]', message: `Invalid value: "a/b": may not contain '/'` },
        { field: 'spec.matchConstraints.excludeResourceRules[0].resourceNames[2]', message: 'Duplicate value: "ok"' },
        { field: 'spec.matchConstraints.excludeResourceRules[0].operations', message: 'Required value' },
      ],
    },
    {
      name: 'validations: expression missing or unparseable, message, reason',
      object: vap({ validations: [{ expression: ' ' }, { expression: 'object.spec.replicas <=', message: 'line\nbreak', reason: 'Unauthorized' }, { expression: 'true', message: '  ', messageExpression: ' ' }] }),
      errors: [
        { field: 'spec.validations[0].expression', message: 'Required value: expression is not specified' },
        { field: 'spec.validations[1].expression', message: `Invalid value: "object.spec.replicas <=": ${compileError(1, 24, EOF_OPERAND, 'object.spec.replicas <=')}` },
        { field: 'spec.validations[1].message', message: 'Invalid value: "line\\nbreak": message must not contain line breaks' },
        { field: 'spec.validations[1].reason', message: 'Unsupported value: "Unauthorized": supported values: "Forbidden", "Invalid", "RequestEntityTooLarge"' },
        { field: 'spec.validations[2].messageExpression', message: 'Invalid value: " ": must be non-empty if specified' },
        { field: 'spec.validations[2].message', message: 'Invalid value: "  ": message must be non-empty if specified' },
      ],
    },
    {
      name: "compile errors as upstream's parser words them: missing closers, reserved words",
      object: vap({ validations: [{ expression: 'object.x in [1, 2, ' }, { expression: "'asdf'.contains('x'" }, { expression: 'namespace == 1' }] }),
      errors: [
        { field: 'spec.validations[0].expression', message: `Invalid value: "object.x in [1, 2, ": ${compileError(1, 20, "Syntax error: missing ']' at '<EOF>'", 'object.x in [1, 2, ')}` },
        { field: 'spec.validations[1].expression', message: `Invalid value: "'asdf'.contains('x'": ${compileError(1, 20, "Syntax error: missing ')' at '<EOF>'", "'asdf'.contains('x'")}` },
        { field: 'spec.validations[2].expression', message: `Invalid value: "namespace == 1": ${compileError(1, 1, 'reserved identifier: namespace', 'namespace == 1')}` },
      ],
    },
    {
      name: 'result types: validations are bool, messages string, audit values string or null',
      object: vap({
        validations: [{ expression: 'object.spec.paused', messageExpression: '0 == 0' }, { expression: "object.spec.replicas > 1 ? 'yes' : 'no'" }, { expression: '[1, 2]' }],
        auditAnnotations: [{ key: 'a', valueExpression: 'true' }, { key: 'b', valueExpression: "{'k': [1]}" }],
      }, 'typed'),
      errors: [
        { field: 'spec.validations[0].expression', message: 'Invalid value: "object.spec.paused": must evaluate to bool but got dyn' },
        { field: 'spec.validations[0].messageExpression', message: 'Invalid value: "0 == 0": must evaluate to string but got bool' },
        { field: 'spec.validations[1].expression', message: `Invalid value: "object.spec.replicas > 1 ? 'yes' : 'no'": must evaluate to bool but got string` },
        { field: 'spec.validations[2].expression', message: 'Invalid value: "[1, 2]": must evaluate to bool but got list(int)' },
        { field: 'spec.auditAnnotations[0].valueExpression', message: 'Invalid value: "true": must evaluate to one of [string null_type] but got bool' },
        { field: 'spec.auditAnnotations[1].valueExpression', message: `Invalid value: "{'k': [1]}": must evaluate to one of [string null_type] but got map(string, list(int))` },
      ],
    },
    {
      name: 'declarations: params need a paramKind, variables need variables, messages see no authorizer',
      object: vap({
        validations: [{ expression: 'params.max > 1 && variables.x', messageExpression: "authorizer.path('/x').check('get').reason()" }],
        matchConditions: [{ name: 'm', expression: '  params.enabled  ' }],
      }),
      errors: [
        { field: 'spec.matchConditions[0].expression', message: `Invalid value: "params.enabled": ${compileError(1, 1, "undeclared reference to 'params' (in container '')", 'params.enabled')}` },
        {
          field: 'spec.validations[0].expression',
          message: `Invalid value: "params.max > 1 && variables.x": compilation failed: ERROR: <input>:1:1: undeclared reference to 'params' (in container '')\n | params.max > 1 && variables.x\n | ^\nERROR: <input>:1:19: undeclared reference to 'variables' (in container '')\n | params.max > 1 && variables.x\n | ..................^`,
        },
        {
          field: 'spec.validations[0].messageExpression',
          message: `Invalid value: "authorizer.path('/x').check('get').reason()": ${compileError(1, 1, "undeclared reference to 'authorizer' (in container '')", "authorizer.path('/x').check('get').reason()")}`,
        },
      ],
    },
    {
      name: 'variables compose in order; match conditions never see them; comprehension variables stay inside',
      object: vap({
        variables: [{ name: 'a', expression: 'variables.b + 1' }, { name: 'b', expression: '1' }],
        matchConditions: [{ name: 'm', expression: 'variables.a > 0' }],
        validations: [{ expression: 'variables.a > variables.c' }, { expression: 'object.items.all(i, i > 0) && i > 0' }],
      }),
      errors: [
        { field: 'spec.matchConditions[0].expression', message: `Invalid value: "variables.a > 0": ${compileError(1, 1, "undeclared reference to 'variables' (in container '')", 'variables.a > 0')}` },
        { field: 'spec.variables[0].expression', message: `Invalid value: "variables.b + 1": ${compileError(1, 10, "undefined field 'b'", 'variables.b + 1')}` },
        { field: 'spec.validations[0].expression', message: `Invalid value: "variables.a > variables.c": ${compileError(1, 24, "undefined field 'c'", 'variables.a > variables.c')}` },
        { field: 'spec.validations[1].expression', message: `Invalid value: "object.items.all(i, i > 0) && i > 0": ${compileError(1, 31, "undeclared reference to 'i' (in container '')", 'object.items.all(i, i > 0) && i > 0')}` },
      ],
    },
    {
      name: 'variables: names are CEL identifiers; match conditions: names, expressions, uniqueness',
      object: vap({ ...check, variables: [{ name: 'in', expression: '1' }, { name: '1x', expression: ' ' }, { name: ' ' }], matchConditions: [{ name: 'a', expression: 'true' }, { name: 'a', expression: 'true' }, { name: 'bad name!', expression: '' }, { expression: 'object.x ==' }] }),
      errors: [
        { field: 'spec.matchConditions[1].name', message: 'Duplicate value: "a"' },
        { field: 'spec.matchConditions[2].expression', message: 'Required value' },
        { field: 'spec.matchConditions[2].name', message: `Invalid value: "bad name!": ${NAME_PART}` },
        { field: 'spec.matchConditions[3].expression', message: `Invalid value: "object.x ==": ${compileError(1, 12, EOF_OPERAND, 'object.x ==')}` },
        { field: 'spec.matchConditions[3].name', message: 'Required value' },
        { field: 'spec.variables[0].name', message: 'Invalid value: "in": name is not a valid CEL identifier' },
        { field: 'spec.variables[1].name', message: 'Invalid value: "1x": name is not a valid CEL identifier' },
        { field: 'spec.variables[1].expression', message: 'Required value: expression is not specified' },
        { field: 'spec.variables[2].name', message: 'Required value: name is not specified' },
        { field: 'spec.variables[2].expression', message: 'Required value: expression is not specified' },
      ],
    },
    {
      name: 'more than 64 match conditions',
      object: vap({ ...check, matchConditions: Array.from({ length: 65 }, (_, i) => ({ name: `c${i}`, expression: 'true' })) }),
      errors: [{ field: 'spec.matchConditions', message: 'Too many: 65: must have at most 64 items' }],
    },
    {
      name: 'param kind: group version and kind',
      object: vap({ ...check, paramKind: { apiVersion: 'a/b/c', kind: 'Bad_Kind' } }),
      errors: [
        { field: 'spec.paramKind.apiVersion', message: 'Invalid value: "a/b/c": unexpected GroupVersion string: a/b/c' },
        { field: 'spec.paramKind.kind', message: `Invalid value: "Bad_Kind": may have mixed case, but should otherwise match: ${DNS1035}` },
      ],
    },
    { name: "param kind: '/' names no version", object: vap({ ...check, paramKind: { apiVersion: '/', kind: 'X' } }), errors: [{ field: 'spec.paramKind.apiVersion', message: 'Invalid value: "/": version must be specified' }] },
    {
      name: 'param kind: bad group and version; kind required',
      object: vap({ ...check, paramKind: { apiVersion: 'Example.com/V1' } }),
      errors: [
        { field: 'spec.paramKind.apiVersion', message: `Invalid value: "Example.com": ${DNS1123}` },
        { field: 'spec.paramKind.apiVersion', message: `Invalid value: "V1": ${DNS1035}` },
        { field: 'spec.paramKind.kind', message: 'Required value' },
      ],
    },
    { name: 'param kind: apiVersion required', object: vap({ ...check, paramKind: { kind: 'X' } }), errors: [{ field: 'spec.paramKind.apiVersion', message: 'Required value' }] },
    {
      name: 'audit annotations: keys joined to the policy name, unique, value expressions required',
      object: vap({ auditAnnotations: [{ key: 'x y', valueExpression: "'v'" }, { key: 'x y', valueExpression: '' }] }, 'policy'),
      errors: [
        { field: 'spec.auditAnnotations[0].key', message: `Invalid value: "policy/x y": ${NAME_PART}` },
        { field: 'spec.auditAnnotations[1].key', message: `Invalid value: "policy/x y": ${NAME_PART}` },
        { field: 'spec.auditAnnotations[1].valueExpression', message: 'Required value: valueExpression is not specified' },
        { field: 'spec.auditAnnotations[1].key', message: 'Duplicate value: "x y"' },
      ],
    },
    {
      name: 'audit annotations: value expressions up to 5 KiB, compiled trimmed',
      object: vap({ auditAnnotations: [{ key: 'long', valueExpression: `'${'x'.repeat(5119)}'` }, { key: 'syntax', valueExpression: '  object.x +  ' }] }, 'policy'),
      errors: [
        { field: 'spec.auditAnnotations[0].valueExpression', message: 'Required value: must not exceed 5120 bytes in length' },
        { field: 'spec.auditAnnotations[1].valueExpression', message: `Invalid value: "  object.x +  ": ${compileError(1, 11, EOF_OPERAND, 'object.x +')}` },
      ],
    },
    {
      name: 'at most 20 audit annotations',
      object: vap({ auditAnnotations: Array.from({ length: 21 }, (_, i) => ({ valueExpression: "'v'", key: `k${i}` })) }, 'policy'),
      errors: [
        {
          field: 'spec.auditAnnotations',
          message: `Invalid value: [${Array.from({ length: 21 }, (_, i) => `{"Key":"k${i}","ValueExpression":"'v'"}`).join(',')}]: must not have more than 20 auditAnnotations`,
        },
      ],
    },
  ],
  updates: [
    { name: 'a spec change bumps the generation', object: vap(check), change: (o) => ({ ...o, spec: { ...(o.spec as object), failurePolicy: 'Ignore' } }), expect: (o) => assert.equal(o.metadata?.generation, 2) },
    { name: 'a metadata change does not', object: vap(check), change: (o) => ({ ...o, metadata: { ...o.metadata, labels: { a: 'b' } } }), expect: (o) => assert.equal(o.metadata?.generation, 1) },
    {
      name: 'the main resource keeps the status',
      object: vap(check),
      change: (o) => ({ ...o, status: { observedGeneration: 7 } }),
      expect: (o) => assert.deepEqual(o.status, {}),
    },
    {
      name: 'match conditions are judged again once the param kind changes',
      object: vap({ ...check, paramKind: { apiVersion: 'v1', kind: 'ConfigMap' }, matchConditions: [{ name: 'm', expression: "params.data.enabled == 'true'" }] }),
      change: (o) => {
        const { paramKind: _dropped, ...spec } = o.spec as Record<string, unknown>;
        return { ...o, spec };
      },
      errors: [{ field: 'spec.matchConditions[0].expression', message: `Invalid value: "params.data.enabled == 'true'": ${compileError(1, 1, "undeclared reference to 'params' (in container '')", "params.data.enabled == 'true'")}` }],
    },
    {
      name: 'the rules hold on update',
      object: vap(check),
      change: (o) => ({ ...o, spec: { ...(o.spec as object), failurePolicy: 'Never' } }),
      errors: [{ field: 'spec.failurePolicy', message: 'Unsupported value: "Never": supported values: "Fail", "Ignore"' }],
    },
  ],
  statusUpdates: [
    {
      name: 'type-checking warnings need their field and text',
      object: vap(check),
      change: (o) => ({ ...o, status: { typeChecking: { expressionWarnings: [{ fieldRef: '', warning: '' }] } } }),
      errors: [{ field: 'status.typeChecking.expressionWarnings[0].warning', message: 'Required value' }, { field: 'status.typeChecking.expressionWarnings[0].fieldRef', message: 'Required value' }],
    },
    {
      name: 'conditions are metav1 conditions',
      object: vap(check),
      change: (o) => ({ ...o, status: { conditions: [{ type: 'Ready', status: 'Maybe', lastTransitionTime: '2024-01-01T00:00:00Z', reason: 'Checked' }] } }),
      errors: [{ field: 'status.conditions[0].status', message: 'Unsupported value: "Maybe": supported values: "False", "True", "Unknown"' }],
    },
    {
      name: 'status changes; spec, labels and generation stay',
      object: { ...vap(check), metadata: { labels: { keep: 'me' } } },
      change: (o) => ({ ...o, metadata: { ...o.metadata, labels: { other: 'x' } }, spec: { ...(o.spec as object), failurePolicy: 'Ignore' }, status: { observedGeneration: 1, typeChecking: { expressionWarnings: [{ fieldRef: 'spec.validations[0].expression', warning: 'int vs string' }] } } }),
      expect: (o) => {
        assert.equal((o.spec as { failurePolicy: string }).failurePolicy, 'Fail');
        assert.deepEqual(o.metadata?.labels, { keep: 'me' });
        assert.equal(o.metadata?.generation, 1);
        assert.deepEqual(o.status, { observedGeneration: 1, typeChecking: { expressionWarnings: [{ fieldRef: 'spec.validations[0].expression', warning: 'int vs string' }] } });
      },
    },
  ],
  defaults: [
    {
      name: 'failurePolicy Fail, matchPolicy Equivalent, selectors {}, scope *; a create starts with an empty status',
      object: { ...vap({ ...check, matchConstraints: { ...rules, excludeResourceRules: [{ ...deployments, scope: 'Namespaced' }, deployments] } }), status: { observedGeneration: 3 } },
      expect: (o) => {
        const spec = o.spec as { failurePolicy: string; matchConstraints: Record<string, unknown> };
        assert.equal(spec.failurePolicy, 'Fail');
        assert.deepEqual(spec.matchConstraints, {
          resourceRules: [{ ...deployments, scope: '*' }],
          excludeResourceRules: [{ ...deployments, scope: 'Namespaced' }, { ...deployments, scope: '*' }],
          matchPolicy: 'Equivalent',
          namespaceSelector: {},
          objectSelector: {},
        });
        assert.deepEqual(o.status, {});
        assert.equal(o.metadata?.generation, 1);
      },
    },
    {
      name: 'values given are kept',
      object: vap({ ...check, failurePolicy: 'Ignore', matchConstraints: { ...rules, matchPolicy: 'Exact', namespaceSelector: { matchLabels: { a: 'b' } } } }),
      expect: (o) => {
        const spec = o.spec as { failurePolicy: string; matchConstraints: { matchPolicy: string; namespaceSelector: unknown } };
        assert.equal(spec.failurePolicy, 'Ignore');
        assert.equal(spec.matchConstraints.matchPolicy, 'Exact');
        assert.deepEqual(spec.matchConstraints.namespaceSelector, { matchLabels: { a: 'b' } });
      },
    },
  ],
  columns: [
    { name: 'without params', object: vap(check), cells: [1, '<unset>'] },
    { name: 'with params', object: vap({ validations: [...check.validations, { expression: 'true' }], paramKind: { apiVersion: 'v1', kind: 'ConfigMap' } }), cells: [2, 'v1/ConfigMap'] },
    { name: 'audit annotations only', object: vap({ auditAnnotations: [{ key: 'a', valueExpression: "'v'" }] }, 'audit-only'), cells: [0, '<unset>'] },
  ],
});

describe('ValidatingAdmissionPolicy: the rest of upstream strategy', () => {
  let registry: TestRegistry;
  const store = () => registry.store('validatingadmissionpolicies', 'admissionregistration.k8s.io');
  before(async () => {
    registry = await openTestRegistry();
  });
  after(async () => {
    await registry.close();
  });

  test('an update must name the resourceVersion it replaces, and a PUT does not create', async () => {
    await store().create(testContext(), '', { ...vap(check), metadata: { name: 'unconditional' } });
    await assert.rejects(store().replace(testContext(), '', 'unconditional', { ...vap(check), metadata: { name: 'unconditional' } }), (err: { code?: number; message?: string }) => {
      assert.equal(err.code, 422);
      assert.match(String(err.message), /metadata\.resourceVersion: Invalid value: 0x0: must be specified for an update/);
      return true;
    });
    await assert.rejects(store().replace(testContext(), '', 'missing', { ...vap(check), metadata: { name: 'missing' } }), (err: { code?: number }) => err.code === 404);
  });

  test('the table has Name, Validations, ParamKind and Age', () => {
    const table = toTable(validatingAdmissionPolicies, []);
    assert.deepEqual(table.columnDefinitions.map((c) => [c.name, c.type]), [['Name', 'string'], ['Validations', 'integer'], ['ParamKind', 'string'], ['Age', 'string']]);
  });
});
