/**
 * What a policy's expressions see and how they run, end to end: match conditions (any false
 * skips, errors follow the failure policy, several errors are joined), variables (in order, each
 * seeing those before it, evaluated only when used, their errors reported as upstream's),
 * `request` as upstream fills it, `namespaceObject`, `object` and `oldObject` per operation, and
 * the `authorizer` asking the server's real authorizer for the requesting user.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { assertStatus, configMap, createNamespace } from '../helpers/fixtures.ts';
import { serveFile } from '../helpers/server.ts';
import { BINDINGS, binding, coreRule, createAll, install, policy, storeUnvalidated, until, untilRefused, dryRunConfigMap } from './policy-fixtures.ts';

const t = serveFile();

function marked(name: string, spec: Record<string, unknown>, operations = ['CREATE']) {
  return policy(name, {
    matchConstraints: { resourceRules: [coreRule(['configmaps'], operations)], objectSelector: { matchLabels: { marker: name } } },
    ...spec,
  });
}
const cm = (name: string, marker: string, data: Record<string, string> = {}) => configMap(name, data, { labels: { marker } });

test('match conditions: a false one skips the policy, errors follow the failure policy and are joined', async () => {
  await install(
    t.api,
    marked('conditions', {
      matchConditions: [
        { name: 'has-data', expression: 'has(object.data)' },
        { name: 'not-skipped', expression: "!('skip' in object.data)" },
        { name: 'broken-one', expression: "!('fail1' in object.data) || object.data.nope1 == 'x'" },
        { name: 'broken-two', expression: "!('fail2' in object.data) || object.data.nope2 == 'x'" },
      ],
      validations: [{ expression: 'false', message: 'conditions held' }],
    }),
    binding('conditions-binding', 'conditions'),
  );
  const res = await untilRefused(t.api, t.ns, cm('c', 'conditions', { a: '1' }));
  assert.match(res.json.message, /denied request: conditions held$/);
  const noData = { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'c', labels: { marker: 'conditions' } } };
  assert.equal((await dryRunConfigMap(t.api, t.ns, noData)).status, 201, 'no data: the first condition is false');
  assert.equal((await dryRunConfigMap(t.api, t.ns, cm('c', 'conditions', { skip: '1' }))).status, 201);
  // A false condition wins over errors of others.
  assert.equal((await dryRunConfigMap(t.api, t.ns, cm('c', 'conditions', { skip: '1', fail1: '1' }))).status, 201);
  const one = await dryRunConfigMap(t.api, t.ns, cm('c', 'conditions', { fail1: '1' }));
  assertStatus(one, 422, 'Invalid', `configmaps "c" is forbidden: ValidatingAdmissionPolicy 'conditions' with binding 'conditions-binding' denied request: expression '!('fail1' in object.data) || object.data.nope1 == 'x'' resulted in error: no such key: nope1`);
  const two = await dryRunConfigMap(t.api, t.ns, cm('c', 'conditions', { fail1: '1', fail2: '2' }));
  assert.equal(
    two.json.message,
    `configmaps "c" is forbidden: ValidatingAdmissionPolicy 'conditions' with binding 'conditions-binding' denied request: [expression '!('fail1' in object.data) || object.data.nope1 == 'x'' resulted in error: no such key: nope1, expression '!('fail2' in object.data) || object.data.nope2 == 'x'' resulted in error: no such key: nope2]`,
  );

  await install(t.api, marked('conditions-ignore', { failurePolicy: 'Ignore', matchConditions: [{ name: 'broken', expression: "object.data.nope == 'x'" }], validations: [{ expression: 'false' }] }), binding('conditions-ignore-binding', 'conditions-ignore'));
  await until(() => dryRunConfigMap(t.api, t.ns, cm('c', 'conditions-ignore', { a: '1' })), (r) => r.status === 201, 'an ignored condition error');
});

test('variables: in order, each seeing earlier ones, evaluated only when used; their errors as upstream words them', async () => {
  // Stored without the API's validation: the API refuses a variable that does not compile.
  await storeUnvalidated(
    t.srv,
    marked('variables', {
      variables: [
        { name: 'keys', expression: 'has(object.data) ? object.data.size() : 0' },
        { name: 'many', expression: 'variables.keys > 2' },
        { name: 'broken', expression: 'object.data.missing' },
        { name: 'uncompilable', expression: "1 + 'a'" },
      ],
      validations: [
        { expression: '!variables.many', messageExpression: "'too many keys: ' + string(variables.keys)" },
        { expression: "!has(object.data.useBroken) || variables.broken == 'x'" },
        { expression: "!has(object.data.useUncompilable) || variables.uncompilable == 2" },
      ],
    }),
  );
  await createAll(t.api, [BINDINGS, binding('variables-binding', 'variables')]);
  const res = await untilRefused(t.api, t.ns, cm('v', 'variables', { a: '1', b: '2', c: '3' }));
  assert.match(res.json.message, /denied request: too many keys: 3$/);
  // Unused, the broken variables cost nothing and fail nothing.
  assert.equal((await dryRunConfigMap(t.api, t.ns, cm('v', 'variables', { a: '1' }))).status, 201);
  const broken = await dryRunConfigMap(t.api, t.ns, cm('v', 'variables', { useBroken: '1' }));
  assert.match(broken.json.message, /denied request: expression '!has\(object.data.useBroken\) \|\| variables.broken == 'x'' resulted in error: composited variable "broken" fails to evaluate: no such key: missing$/);
  const uncompilable = await dryRunConfigMap(t.api, t.ns, cm('v', 'variables', { useUncompilable: '1' }));
  assert.ok(
    uncompilable.json.message.includes(`resulted in error: composited variable "uncompilable" fails to compile: compilation failed: ERROR: <input>:1:3: found no matching overload for '_+_' applied to '(int, string)'`),
    uncompilable.text,
  );
});

test('request, object and oldObject as upstream fills them', async () => {
  const expected = {
    create: `request.operation == 'CREATE' && request.name == 'r2' && request.namespace == '${t.ns}' && request.kind.group == '' && request.kind.version == 'v1' && request.kind.kind == 'ConfigMap' && request.resource.group == '' && request.resource.version == 'v1' && request.resource.resource == 'configmaps' && request.requestKind.kind == 'ConfigMap' && request.requestResource.resource == 'configmaps' && !has(request.subResource) && request.dryRun == true && request.options.kind == 'CreateOptions' && request.userInfo.username != '' && 'system:masters' in request.userInfo.groups && oldObject == null && object.metadata.name == 'r2'`,
    update: `request.operation == 'UPDATE' && oldObject.data.v == '1' && object.data.v == '2' && request.options.kind == 'UpdateOptions' && request.dryRun == false`,
    delete: `request.operation == 'DELETE' && object == null && oldObject.data.v == '2' && request.options.kind == 'DeleteOptions'`,
  };
  // Made before the policy; updated once it is in force (which the update view must accept).
  const cms = `/api/v1/namespaces/${t.ns}/configmaps`;
  const created = await t.api.post(cms, cm('r', 'request-fields', { v: '1' }));
  assert.equal(created.status, 201, created.text);
  await install(
    t.api,
    marked(
      'request-fields',
      {
        validations: [
          { expression: `request.operation != 'CREATE' || (${expected.create})`, message: 'create view' },
          { expression: `request.operation != 'UPDATE' || (${expected.update})`, message: 'update view' },
          { expression: `request.operation != 'DELETE' || (${expected.delete}) && false`, message: 'delete view as expected' },
        ],
      },
      ['CREATE', 'UPDATE', 'DELETE'],
    ),
    binding('request-fields-binding', 'request-fields'),
  );
  await until(() => t.api.put(`${cms}/r?dryRun=All`, { ...created.json, data: { v: '3' } }), (r) => r.status === 422, 'the policy');
  const updated = await t.api.put(`${cms}/r`, { ...created.json, data: { v: '2' } });
  assert.equal(updated.status, 200, updated.text);
  const del = await t.api.delete(`${cms}/r`);
  assert.match(del.json.message, /denied request: delete view as expected$/);
  const create = await dryRunConfigMap(t.api, t.ns, cm('r2', 'request-fields', { v: '1' }));
  assert.equal(create.status, 201, create.text);
});

test('namespaceObject is the request\'s namespace (reduced as upstream), null for cluster-scoped requests', async () => {
  const ns = await createNamespace(t.api);
  const got = await t.api.get(`/api/v1/namespaces/${ns}`);
  assert.equal((await t.api.put(`/api/v1/namespaces/${ns}`, { ...got.json, metadata: { ...got.json.metadata, labels: { ...got.json.metadata.labels, tier: 'gold' } } })).status, 200);
  await install(
    t.api,
    policy('ns-object', {
      matchConstraints: { resourceRules: [coreRule(['configmaps', 'namespaces'], ['CREATE'])], objectSelector: { matchLabels: { marker: 'ns-object' } } },
      validations: [
        { expression: "request.resource.resource != 'configmaps' || (namespaceObject.metadata.labels.tier == 'gold' && namespaceObject.metadata.name == request.namespace && namespaceObject.status.phase == 'Active')", message: 'namespace seen' },
        // Upstream also accepts `namespaceObject == null` (object types are nullable in cel-go).
        { expression: "request.resource.resource != 'namespaces' || type(namespaceObject) == null_type", message: 'no namespace for namespaces' },
        { expression: "request.resource.resource != 'configmaps' || namespaceObject.metadata.labels.tier != 'gold'", message: 'gold namespace' },
      ],
    }),
    binding('ns-object-binding', 'ns-object'),
  );
  const res = await until(() => dryRunConfigMap(t.api, ns, cm('n', 'ns-object')), (r) => r.status === 422, 'the policy');
  assert.match(res.json.message, /denied request: gold namespace$/);
  assert.equal((await t.api.post('/api/v1/namespaces?dryRun=All', { apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'ns-object-new', labels: { marker: 'ns-object' } } })).status, 201);
});

test('authorizer asks the real authorizer about the requesting user', async () => {
  const ns = await createNamespace(t.api);
  const as = { 'Impersonate-User': 'alice' };
  const rbac = `/apis/rbac.authorization.k8s.io/v1/namespaces/${ns}`;
  await createAll(
    t.api,
    [`${rbac}/roles`, { apiVersion: 'rbac.authorization.k8s.io/v1', kind: 'Role', metadata: { name: 'writer' }, rules: [{ apiGroups: [''], resources: ['configmaps'], verbs: ['create'] }] }],
    [`${rbac}/rolebindings`, { apiVersion: 'rbac.authorization.k8s.io/v1', kind: 'RoleBinding', metadata: { name: 'alice-writer' }, roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'Role', name: 'writer' }, subjects: [{ kind: 'User', name: 'alice' }] }],
  );
  await install(
    t.api,
    marked('authz', {
      validations: [
        { expression: `authorizer.group('').resource('secrets').namespace('${ns}').check('list').allowed()`, message: 'may not list secrets' },
        { expression: "authorizer.requestResource.check('approve').allowed()", message: 'may not approve configmaps' },
        { expression: `!authorizer.serviceAccount('${ns}', 'robot').group('').resource('pods').namespace('${ns}').check('get').allowed()`, message: 'robot may get pods' },
      ],
    }),
    binding('authz-binding', 'authz'),
  );
  const probe = () => t.api.post(`/api/v1/namespaces/${ns}/configmaps?dryRun=All`, cm('a', 'authz'), as);
  assert.match((await until(probe, (r) => r.status === 422, 'the policy')).json.message, /denied request: may not list secrets$/);
  await createAll(
    t.api,
    [`${rbac}/roles`, { apiVersion: 'rbac.authorization.k8s.io/v1', kind: 'Role', metadata: { name: 'lister' }, rules: [{ apiGroups: [''], resources: ['secrets'], verbs: ['list'] }, { apiGroups: [''], resources: ['configmaps'], verbs: ['approve'], resourceNames: ['a'] }] }],
    [`${rbac}/rolebindings`, { apiVersion: 'rbac.authorization.k8s.io/v1', kind: 'RoleBinding', metadata: { name: 'alice-lister' }, roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'Role', name: 'lister' }, subjects: [{ kind: 'User', name: 'alice' }] }],
  );
  await until(probe, (r) => r.status === 201, 'the grants');
  // The request resource carries the name: another name is not approved.
  assert.match((await t.api.post(`/api/v1/namespaces/${ns}/configmaps?dryRun=All`, cm('b', 'authz'), as)).json.message, /denied request: may not approve configmaps$/);
  await createAll(
    t.api,
    [`${rbac}/roles`, { apiVersion: 'rbac.authorization.k8s.io/v1', kind: 'Role', metadata: { name: 'pod-reader' }, rules: [{ apiGroups: [''], resources: ['pods'], verbs: ['get'] }] }],
    [`${rbac}/rolebindings`, { apiVersion: 'rbac.authorization.k8s.io/v1', kind: 'RoleBinding', metadata: { name: 'robot-reader' }, roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'Role', name: 'pod-reader' }, subjects: [{ kind: 'ServiceAccount', name: 'robot', namespace: ns }] }],
  );
  assert.match((await until(probe, (r) => r.status === 422, 'the service account grant')).json.message, /denied request: robot may get pods$/);
});
