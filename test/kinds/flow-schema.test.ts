import assert from 'node:assert/strict';
import { test } from 'node:test';
import { flowSchemas } from '../../src/kinds/flow-schema.ts';
import { toTable } from '../../src/registry/table.ts';
import { runKindSuite } from './kind-suite.ts';

const fs = (spec: Record<string, unknown>, name?: string) => ({ apiVersion: 'flowcontrol.apiserver.k8s.io/v1', kind: 'FlowSchema', ...(name ? { metadata: { name } } : {}), spec });
const pl = { priorityLevelConfiguration: { name: 'workload-low' } };
const group = (name: string) => ({ kind: 'Group', group: { name } });
const everything = { resourceRules: [{ verbs: ['*'], apiGroups: ['*'], resources: ['*'], clusterScope: true, namespaces: ['*'] }] };
const anyone = (rest: Record<string, unknown>) => ({ ...pl, rules: [{ subjects: [group('g')], ...rest }] });
const allRules = { ...everything, nonResourceRules: [{ verbs: ['*'], nonResourceURLs: ['*'] }] };
const SUBDOMAIN = `a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character (e.g. 'example.com', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')`;
const LABEL = `a lowercase RFC 1123 label must consist of lower case alphanumeric characters or '-', and must start and end with an alphanumeric character (e.g. 'my-name',  or '123-abc', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?')`;
const VERBS = 'supported values: "create", "delete", "deletecollection", "get", "list", "patch", "proxy", "update", "watch"';

// Expectations from upstream's ValidateFlowSchema, the v1 defaults and printers.go (1.34).
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
          {
            subjects: [{ kind: 'User', user: { name: 'alice' } }, group('system:nodes'), { kind: 'ServiceAccount', serviceAccount: { name: '*', namespace: 'kube-system' } }],
            resourceRules: [{ verbs: ['get', 'list'], apiGroups: [''], resources: ['pods'], namespaces: ['default'] }],
            nonResourceRules: [{ verbs: ['get'], nonResourceURLs: ['/', '/healthz', '/metrics/*', '/apis/'] }],
          },
        ],
      }),
    },
    { name: 'no rules (matches nothing)', object: fs(pl) },
    { name: 'cluster scope needs no namespaces', object: fs(anyone({ resourceRules: [{ verbs: ['*'], apiGroups: ['*'], resources: ['*'], clusterScope: true }] })) },
    { name: 'the exempt schema with its fixed spec (precedence 1 is its own)', object: fs({ priorityLevelConfiguration: { name: 'exempt' }, matchingPrecedence: 1, rules: [{ subjects: [group('system:masters')], ...allRules }] }, 'exempt') },
    {
      name: 'the catch-all schema with its fixed spec',
      object: fs({ priorityLevelConfiguration: { name: 'catch-all' }, matchingPrecedence: 10000, distinguisherMethod: { type: 'ByUser' }, rules: [{ subjects: [group('system:unauthenticated'), group('system:authenticated')], ...allRules }] }, 'catch-all'),
    },
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
    { name: 'a negative precedence', object: fs({ ...pl, matchingPrecedence: -3 }), errors: [{ field: 'spec.matchingPrecedence', message: 'Invalid value: -3: must be a positive value' }] },
    { name: 'precedence 1 is for exempt only', object: fs({ ...pl, matchingPrecedence: 1 }), errors: [{ field: 'spec.matchingPrecedence', message: "Invalid value: 1: only the schema named 'exempt' may have matchingPrecedence 1" }] },
    { name: 'a malformed priority level name', object: fs({ priorityLevelConfiguration: { name: 'system+++$$' } }), errors: [{ field: 'spec.priorityLevelConfiguration.name', message: `Invalid value: "system+++$$": ${SUBDOMAIN}` }] },
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
      object: fs({
        ...pl,
        rules: [
          {
            subjects: [
              { kind: 'User', group: { name: 'g' } },
              { kind: 'Group', group: { name: '' }, user: { name: 'x' }, serviceAccount: { name: 'a', namespace: 'b' } },
              { kind: 'ServiceAccount', serviceAccount: { name: 'Bad_Name' }, user: { name: 'x' } },
              { kind: 'ServiceAccount', serviceAccount: { namespace: '-ns' } },
              { kind: 'ServiceAccount', group: { name: 'g' } },
              { kind: 'User', user: {} },
              { kind: 'Group' },
              { kind: 'Robot' },
            ],
            ...everything,
          },
        ],
      }),
      errors: [
        { field: 'spec.rules[0].subjects[0].user', message: "Required value: user is required when subject kind is 'User'" },
        { field: 'spec.rules[0].subjects[0].group', message: "Forbidden: group is forbidden when subject kind is not 'Group'" },
        { field: 'spec.rules[0].subjects[1].group.name', message: 'Required value' },
        { field: 'spec.rules[0].subjects[1].serviceAccount', message: "Forbidden: serviceAccount is forbidden when subject kind is not 'ServiceAccount'" },
        { field: 'spec.rules[0].subjects[1].user', message: "Forbidden: user is forbidden when subject kind is not 'User'" },
        { field: 'spec.rules[0].subjects[2].serviceAccount.name', message: `Invalid value: "Bad_Name": ${SUBDOMAIN}` },
        { field: 'spec.rules[0].subjects[2].serviceAccount.namespace', message: 'Required value: must specify namespace for service account' },
        { field: 'spec.rules[0].subjects[2].user', message: "Forbidden: user is forbidden when subject kind is not 'User'" },
        { field: 'spec.rules[0].subjects[3].serviceAccount.name', message: 'Required value' },
        { field: 'spec.rules[0].subjects[3].serviceAccount.namespace', message: `Invalid value: "-ns": ${LABEL}` },
        { field: 'spec.rules[0].subjects[4].serviceAccount', message: "Required value: serviceAccount is required when subject kind is 'ServiceAccount'" },
        { field: 'spec.rules[0].subjects[4].group', message: "Forbidden: group is forbidden when subject kind is not 'Group'" },
        { field: 'spec.rules[0].subjects[5].user.name', message: 'Required value' },
        { field: 'spec.rules[0].subjects[6].group', message: "Required value: group is required when subject kind is 'Group'" },
        { field: 'spec.rules[0].subjects[7].kind', message: 'Unsupported value: "Robot": supported values: "Group", "ServiceAccount", "User"' },
      ],
    },
    {
      name: "resource rules: '*' only as the sole entry, verbs, namespaces",
      object: fs(
        anyone({
          resourceRules: [
            { verbs: ['get', '*'], apiGroups: ['*', 'apps'], resources: ['*', 'pods'], namespaces: ['*', 'default'] },
            { verbs: ['fly'], apiGroups: [''], resources: ['pods'] },
            { verbs: [], apiGroups: [], resources: [], namespaces: ['-foo', 'ok', 'Bad'] },
          ],
        }),
      ),
      errors: [
        { field: 'spec.rules[0].resourceRules[0].verbs', message: `Invalid value: ["get","*"]: if '*' is present, must not specify other verbs` },
        { field: 'spec.rules[0].resourceRules[0].apiGroups', message: `Invalid value: ["*","apps"]: if '*' is present, must not specify other api groups` },
        { field: 'spec.rules[0].resourceRules[0].resources', message: `Invalid value: ["*","pods"]: if '*' is present, must not specify other resources` },
        { field: 'spec.rules[0].resourceRules[0].namespaces', message: `Invalid value: ["*","default"]: if '*' is present, must not specify other namespaces` },
        { field: 'spec.rules[0].resourceRules[1].verbs', message: `Unsupported value: ["fly"]: ${VERBS}` },
        { field: 'spec.rules[0].resourceRules[1].namespaces', message: 'Required value: resource rules that are not cluster scoped must supply at least one namespace' },
        { field: 'spec.rules[0].resourceRules[2].verbs', message: 'Required value: verbs must contain at least one value' },
        { field: 'spec.rules[0].resourceRules[2].apiGroups', message: 'Required value: resource rules must supply at least one api group' },
        { field: 'spec.rules[0].resourceRules[2].resources', message: 'Required value: resource rules must supply at least one resource' },
        { field: 'spec.rules[0].resourceRules[2].namespaces[0]', message: `Invalid value: "-foo": each member of this list must be '*' or a DNS-1123 label; ${LABEL}` },
        { field: 'spec.rules[0].resourceRules[2].namespaces[2]', message: `Invalid value: "Bad": each member of this list must be '*' or a DNS-1123 label; ${LABEL}` },
      ],
    },
    {
      name: "non-resource rules: '*' only as the sole entry, URL shapes",
      object: fs(
        anyone({
          nonResourceRules: [
            { verbs: ['*', 'get'], nonResourceURLs: ['*', '/healthz'] },
            { verbs: ['fly'], nonResourceURLs: ['', 'healthz', '/a b', '/a//b', '/a*', '/*/x', '/*/*', '/ok/*'] },
            { verbs: [], nonResourceURLs: [] },
          ],
        }),
      ),
      errors: [
        { field: 'spec.rules[0].nonResourceRules[0].verbs', message: `Invalid value: ["*","get"]: if '*' is present, must not specify other verbs` },
        { field: 'spec.rules[0].nonResourceRules[0].nonResourceURLs', message: `Invalid value: ["*","/healthz"]: if '*' is present, must not specify other non-resource URLs` },
        { field: 'spec.rules[0].nonResourceRules[1].verbs', message: `Unsupported value: ["fly"]: ${VERBS}` },
        { field: 'spec.rules[0].nonResourceRules[1].nonResourceURLs[0]', message: 'Invalid value: "": must not be empty' },
        { field: 'spec.rules[0].nonResourceRules[1].nonResourceURLs[1]', message: 'Invalid value: "healthz": must start with slash' },
        { field: 'spec.rules[0].nonResourceRules[1].nonResourceURLs[2]', message: 'Invalid value: "/a b": must not contain white-space' },
        { field: 'spec.rules[0].nonResourceRules[1].nonResourceURLs[3]', message: 'Invalid value: "/a//b": must not contain double slash' },
        { field: 'spec.rules[0].nonResourceRules[1].nonResourceURLs[4]', message: 'Invalid value: "/a*": wildcard can only do suffix matching' },
        { field: 'spec.rules[0].nonResourceRules[1].nonResourceURLs[5]', message: 'Invalid value: "/*/x": wildcard can only do suffix matching' },
        { field: 'spec.rules[0].nonResourceRules[1].nonResourceURLs[6]', message: 'Invalid value: "/*/*": wildcard can only do suffix matching' },
        { field: 'spec.rules[0].nonResourceRules[2].verbs', message: 'Required value: verbs must contain at least one value' },
        { field: 'spec.rules[0].nonResourceRules[2].nonResourceURLs', message: 'Required value: nonResourceURLs must contain at least one value' },
      ],
    },
    {
      name: 'the mandatory catch-all schema has a fixed spec (printed as the internal struct)',
      object: fs({ priorityLevelConfiguration: { name: 'catch-all' }, matchingPrecedence: 9000 }, 'catch-all'),
      errors: [
        {
          field: 'spec',
          message: `Invalid value: {"PriorityLevelConfiguration":{"Name":"catch-all"},"MatchingPrecedence":9000,"DistinguisherMethod":null,"Rules":null}: spec of 'catch-all' must equal the fixed value`,
        },
      ],
    },
    {
      name: 'the mandatory exempt schema has a fixed spec',
      object: fs({ priorityLevelConfiguration: { name: 'exempt' }, matchingPrecedence: 1, rules: [{ subjects: [group('system:masters')], ...everything, nonResourceRules: [{ verbs: ['*'], nonResourceURLs: ['/'] }] }] }, 'exempt'),
      errors: [
        {
          field: 'spec',
          message:
            `Invalid value: {"PriorityLevelConfiguration":{"Name":"exempt"},"MatchingPrecedence":1,"DistinguisherMethod":null,"Rules":[{"Subjects":[{"Kind":"Group","User":null,"Group":{"Name":"system:masters"},"ServiceAccount":null}],` +
            `"ResourceRules":[{"Verbs":["*"],"APIGroups":["*"],"Resources":["*"],"ClusterScope":true,"Namespaces":["*"]}],"NonResourceRules":[{"Verbs":["*"],"NonResourceURLs":["/"]}]}]}: spec of 'exempt' must equal the fixed value`,
        },
      ],
    },
  ],
  updates: [
    { name: 'a spec change bumps the generation', object: fs(pl), change: (o) => ({ ...o, spec: { ...(o.spec as object), matchingPrecedence: 200 } }), expect: (o) => assert.equal(o.metadata?.generation, 2) },
    {
      name: 'an update keeps the stored status',
      object: fs(pl),
      change: (o) => ({ ...o, status: { conditions: [{ type: 'Dangling', status: 'True' }] } }),
      expect: (o) => {
        assert.deepEqual(o.status, {});
        assert.equal(o.metadata?.generation, 1);
      },
    },
    { name: 'updates are validated as creates', object: fs(pl), change: (o) => ({ ...o, spec: { ...(o.spec as object), matchingPrecedence: 1 } }), errors: [{ field: 'spec.matchingPrecedence', message: "Invalid value: 1: only the schema named 'exempt' may have matchingPrecedence 1" }] },
  ],
  statusUpdates: [
    {
      name: 'condition types are set and unique',
      object: fs(pl),
      change: (o) => ({ ...o, status: { conditions: [{ type: 'Dangling', status: 'False' }, { type: 'Dangling', status: 'True' }, { status: 'True' }] } }),
      errors: [
        { field: 'status.conditions[1].type', message: 'Duplicate value: "Dangling"' },
        { field: 'status.conditions[2].type', message: 'Required value: must not be empty' },
      ],
    },
    {
      name: 'a status write keeps the stored spec and labels',
      object: { ...fs(pl), metadata: { labels: { a: 'b' } } },
      change: (o) => ({ ...o, metadata: { ...o.metadata, labels: { a: 'changed' } }, spec: { ...(o.spec as object), matchingPrecedence: 7 }, status: { conditions: [{ type: 'Dangling', status: 'True' }] } }),
      expect: (o) => {
        assert.deepEqual(o.metadata?.labels, { a: 'b' });
        assert.equal((o.spec as { matchingPrecedence: number }).matchingPrecedence, 1000);
        assert.deepEqual(o.status, { conditions: [{ type: 'Dangling', status: 'True' }] });
      },
    },
  ],
  defaults: [
    { name: 'matchingPrecedence defaults to 1000', object: fs(pl), expect: (o) => assert.equal((o.spec as { matchingPrecedence: number }).matchingPrecedence, 1000) },
    { name: 'an explicit 0 precedence is defaulted too', object: fs({ ...pl, matchingPrecedence: 0 }), expect: (o) => assert.equal((o.spec as { matchingPrecedence: number }).matchingPrecedence, 1000) },
    { name: 'a create starts with an empty status', object: { ...fs(pl), status: { conditions: [{ type: 'Dangling', status: 'True' }] } }, expect: (o) => assert.deepEqual(o.status, {}) },
  ],
  columns: [
    { name: 'no distinguisher, priority level status unknown', object: fs(pl), cells: ['workload-low', 1000, '<none>', '?'] },
    { name: 'a distinguisher', object: fs({ ...pl, matchingPrecedence: 5, distinguisherMethod: { type: 'ByUser' } }), cells: ['workload-low', 5, 'ByUser', '?'] },
  ],
});

test('MissingPL prints the Dangling condition status (checked without storing: a create resets status)', () => {
  const table = toTable(flowSchemas, [{ ...fs(pl, 'x'), status: { conditions: [{ type: 'Other', status: 'False' }, { type: 'Dangling', status: 'True' }] } }]);
  assert.deepEqual(table.columnDefinitions.map((c) => c.name), ['Name', 'PriorityLevel', 'MatchingPrecedence', 'DistinguisherMethod', 'Age', 'MissingPL']);
  assert.equal(table.rows[0]!.cells[5], 'True');
});
