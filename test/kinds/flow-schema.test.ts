import assert from 'node:assert/strict';
import { flowSchemas } from '../../src/kinds/flow-schema.ts';
import { runKindSuite } from './kind-suite.ts';

const fs = (spec: Record<string, unknown>, name?: string) => ({ apiVersion: 'flowcontrol.apiserver.k8s.io/v1', kind: 'FlowSchema', ...(name ? { metadata: { name } } : {}), spec });
const pl = { priorityLevelConfiguration: { name: 'workload-low' } };
const everything = { resourceRules: [{ verbs: ['*'], apiGroups: ['*'], resources: ['*'], clusterScope: true, namespaces: ['*'] }] };

// Expectations from upstream's ValidateFlowSchema and the v1 defaults (1.34).
runKindSuite({
  kind: flowSchemas,
  valid: [
    {
      name: 'rules for users, groups and service accounts',
      object: fs({
        ...pl,
        matchingPrecedence: 500,
        distinguisherMethod: { type: 'ByNamespace' },
        rules: [
          { subjects: [{ kind: 'User', user: { name: 'alice' } }, { kind: 'Group', group: { name: 'system:nodes' } }, { kind: 'ServiceAccount', serviceAccount: { name: '*', namespace: 'kube-system' } }], resourceRules: [{ verbs: ['get', 'list'], apiGroups: [''], resources: ['pods'], namespaces: ['default'] }], nonResourceRules: [{ verbs: ['get'], nonResourceURLs: ['/healthz', '/metrics/*'] }] },
        ],
      }),
    },
    { name: 'no rules (matches nothing)', object: fs(pl) },
  ],
  invalid: [
    {
      name: 'precedence, distinguisher, priority level',
      object: fs({ matchingPrecedence: 10001, distinguisherMethod: { type: 'ByColor' } }),
      errors: [
        { field: 'spec.matchingPrecedence', message: 'Invalid value: 10001: must not be greater than 10000' },
        { field: 'spec.distinguisherMethod.type', message: 'Unsupported value: {"Type":"ByColor"}: supported values: "ByNamespace", "ByUser"' },
        { field: 'spec.priorityLevelConfiguration.name', message: 'Required value: must reference a priority level' },
      ],
    },
    { name: 'precedence 1 is for exempt only', object: fs({ ...pl, matchingPrecedence: 1 }), errors: [{ field: 'spec.matchingPrecedence', message: "Invalid value: 1: only the schema named 'exempt' may have matchingPrecedence 1" }] },
    {
      name: 'a rule without subjects or rules',
      object: fs({ ...pl, rules: [{}] }),
      errors: [
        { field: 'spec.rules[0].subjects', message: 'Required value: subjects must contain at least one value' },
        { field: 'spec.rules[0]', message: 'Required value: at least one of resourceRules and nonResourceRules has to be non-empty' },
      ],
    },
    {
      name: 'subjects of each kind',
      object: fs({ ...pl, rules: [{ subjects: [{ kind: 'User' }, { kind: 'Group', group: { name: '' }, user: { name: 'x' } }, { kind: 'ServiceAccount', serviceAccount: { name: 'Bad_Name' } }, { kind: 'Robot' }], ...everything }] }),
      errors: [
        { field: 'spec.rules[0].subjects[0].user', message: "Required value: user is required when subject kind is 'User'" },
        { field: 'spec.rules[0].subjects[1].group.name', message: 'Required value' },
        { field: 'spec.rules[0].subjects[1].user', message: "Forbidden: user is forbidden when subject kind is not 'User'" },
        { field: 'spec.rules[0].subjects[2].serviceAccount.name', message: `Invalid value: "Bad_Name": a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character (e.g. 'example.com', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')` },
        { field: 'spec.rules[0].subjects[2].serviceAccount.namespace', message: 'Required value: must specify namespace for service account' },
        { field: 'spec.rules[0].subjects[3].kind', message: 'Unsupported value: "Robot": supported values: "Group", "ServiceAccount", "User"' },
      ],
    },
    {
      name: "'*' only as the sole entry; verbs; namespaces; URLs",
      object: fs({
        ...pl,
        rules: [
          {
            subjects: [{ kind: 'Group', group: { name: 'g' } }],
            resourceRules: [{ verbs: ['get', '*'], apiGroups: ['*', 'apps'], resources: ['*', 'pods'], namespaces: ['*', 'default'] }, { verbs: ['fly'], apiGroups: [''], resources: ['pods'] }],
            nonResourceRules: [{ verbs: ['get'], nonResourceURLs: ['healthz', '/a//b', '/a*'] }],
          },
        ],
      }),
      errors: [
        { field: 'spec.rules[0].resourceRules[0].verbs', message: `Invalid value: ["get","*"]: if '*' is present, must not specify other verbs` },
        { field: 'spec.rules[0].resourceRules[0].apiGroups', message: `Invalid value: ["*","apps"]: if '*' is present, must not specify other api groups` },
        { field: 'spec.rules[0].resourceRules[0].resources', message: `Invalid value: ["*","pods"]: if '*' is present, must not specify other resources` },
        { field: 'spec.rules[0].resourceRules[0].namespaces', message: `Invalid value: ["*","default"]: if '*' is present, must not specify other namespaces` },
        { field: 'spec.rules[0].resourceRules[1].verbs', message: 'Unsupported value: ["fly"]: supported values: "create", "delete", "deletecollection", "get", "list", "patch", "proxy", "update", "watch"' },
        { field: 'spec.rules[0].resourceRules[1].namespaces', message: 'Required value: resource rules that are not cluster scoped must supply at least one namespace' },
        { field: 'spec.rules[0].nonResourceRules[0].nonResourceURLs[0]', message: 'Invalid value: "healthz": must start with slash' },
        { field: 'spec.rules[0].nonResourceRules[0].nonResourceURLs[1]', message: 'Invalid value: "/a//b": must not contain double slash' },
        { field: 'spec.rules[0].nonResourceRules[0].nonResourceURLs[2]', message: 'Invalid value: "/a*": wildcard can only do suffix matching' },
      ],
    },
    {
      name: 'the mandatory catch-all schema has a fixed spec',
      object: fs({ priorityLevelConfiguration: { name: 'catch-all' }, matchingPrecedence: 9000 }, 'catch-all'),
      errors: [{ field: 'spec', message: `Invalid value: {"matchingPrecedence":9000,"priorityLevelConfiguration":{"name":"catch-all"}}: spec of 'catch-all' must equal the fixed value` }],
    },
  ],
  updates: [{ name: 'a spec change bumps the generation', object: fs(pl), change: (o) => ({ ...o, spec: { ...(o.spec as object), matchingPrecedence: 200 } }), expect: (o) => assert.equal(o.metadata?.generation, 2) }],
  statusUpdates: [{ name: 'condition types are set and unique', object: fs(pl), change: (o) => ({ ...o, status: { conditions: [{ type: 'Dangling', status: 'False' }, { type: 'Dangling', status: 'True' }, { status: 'True' }] } }), errors: [{ field: 'status.conditions[1].type', message: 'Duplicate value: "Dangling"' }, { field: 'status.conditions[2].type', message: 'Required value: must not be empty' }] }],
  defaults: [{ name: 'matchingPrecedence defaults to 1000', object: fs(pl), expect: (o) => assert.equal((o.spec as { matchingPrecedence: number }).matchingPrecedence, 1000) }],
  columns: [
    { name: 'no distinguisher, priority level status unknown', object: fs(pl), cells: ['workload-low', 1000, '<none>', '?'] },
    { name: 'a distinguisher', object: fs({ ...pl, matchingPrecedence: 5, distinguisherMethod: { type: 'ByUser' } }), cells: ['workload-low', 5, 'ByUser', '?'] },
  ],
});
