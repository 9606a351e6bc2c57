/**
 * Params, end to end: a required-label policy whose label comes from a ConfigMap; paramRef by name
 * in the paramRef's namespace or, without one, the request's; by label selector with one
 * evaluation per selected object; parameterNotFoundAction Deny and Allow; params following their
 * object's changes; a binding without paramRef evaluating with `params` null; and upstream's
 * configuration errors for namespaced params of cluster-scoped requests and namespaces given for
 * cluster-scoped param kinds.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { assertStatus, configMap, createNamespace, namespace } from '../helpers/fixtures.ts';
import { serveFile } from '../helpers/server.ts';
import { BINDINGS, POLICIES, binding, coreRule, createAll, install, policy, until, untilRefused, dryRunConfigMap } from './policy-fixtures.ts';

const t = serveFile();

const requiredLabel = (name: string, selector: Record<string, unknown>) =>
  policy(name, {
    paramKind: { apiVersion: 'v1', kind: 'ConfigMap' },
    matchConstraints: { resourceRules: [coreRule(['configmaps'], ['CREATE'])], objectSelector: selector },
    validations: [{ expression: 'has(object.metadata.labels) && params.data.label in object.metadata.labels', messageExpression: "'missing required label ' + params.data.label" }],
  });

test('a required-label policy takes the label from a ConfigMap param; the param\'s changes take effect', async () => {
  const cms = `/api/v1/namespaces/${t.ns}/configmaps`;
  await createAll(t.api, [cms, configMap('required-labels', { label: 'team' })]);
  await install(
    t.api,
    requiredLabel('required-label', { matchLabels: { checked: 'required-label' } }),
    binding('required-label-binding', 'required-label', { paramRef: { name: 'required-labels', namespace: t.ns, parameterNotFoundAction: 'Deny' } }),
  );
  const unlabelled = configMap('nolabel', {}, { labels: { checked: 'required-label' } });
  const res = await untilRefused(t.api, t.ns, unlabelled);
  assertStatus(res, 422, 'Invalid', `configmaps "nolabel" is forbidden: ValidatingAdmissionPolicy 'required-label' with binding 'required-label-binding' denied request: missing required label team`);
  assert.equal((await dryRunConfigMap(t.api, t.ns, configMap('labelled', {}, { labels: { checked: 'required-label', team: 'a' } }))).status, 201);

  const param = await t.api.get(`${cms}/required-labels`);
  assert.equal((await t.api.put(`${cms}/required-labels`, { ...param.json, data: { label: 'owner' } })).status, 200);
  const after = await until(() => dryRunConfigMap(t.api, t.ns, configMap('labelled', {}, { labels: { checked: 'required-label', team: 'a' } })), (r) => r.status === 422, 'the new param value');
  assert.match(after.json.message, /missing required label owner$/);
});

test('without paramRef.namespace the request\'s namespace holds the param', async () => {
  const other = await createNamespace(t.api);
  await createAll(t.api, [`/api/v1/namespaces/${t.ns}/configmaps`, configMap('ns-param', { label: 'here' })], [`/api/v1/namespaces/${other}/configmaps`, configMap('ns-param', { label: 'there' })]);
  await install(t.api, requiredLabel('ns-default', { matchLabels: { checked: 'ns-default' } }), binding('ns-default-binding', 'ns-default', { paramRef: { name: 'ns-param', parameterNotFoundAction: 'Deny' } }));
  const probe = (ns: string) => dryRunConfigMap(t.api, ns, configMap('x', {}, { labels: { checked: 'ns-default' } }));
  assert.match((await until(() => probe(t.ns), (r) => r.status === 422, 'the policy')).json.message, /missing required label here$/);
  assert.match((await probe(other)).json.message, /missing required label there$/);
});

test('parameterNotFoundAction: Deny refuses, Allow admits without evaluating', async () => {
  for (const action of ['Allow', 'Deny']) {
    const name = `notfound-${action.toLowerCase()}`;
    await install(t.api, requiredLabel(name, { matchLabels: { checked: name } }), binding(`${name}-binding`, name, { paramRef: { name: 'no-such-param', parameterNotFoundAction: action } }));
  }
  const res = await untilRefused(t.api, t.ns, configMap('nf', {}, { labels: { checked: 'notfound-deny' } }));
  assertStatus(res, 422, 'Invalid', "configmaps \"nf\" is forbidden: ValidatingAdmissionPolicy 'notfound-deny' with binding 'notfound-deny-binding' denied request: failed to configure binding: no params found for policy binding with `Deny` parameterNotFoundAction");
  assert.equal((await dryRunConfigMap(t.api, t.ns, configMap('nf', {}, { labels: { checked: 'notfound-allow' } }))).status, 201);
  // A selector that selects nothing is "not found" too.
  await install(t.api, requiredLabel('empty-selector', { matchLabels: { checked: 'empty-selector' } }), binding('empty-selector-binding', 'empty-selector', { paramRef: { selector: { matchLabels: { nothing: 'here' } }, parameterNotFoundAction: 'Deny' } }));
  const empty = await untilRefused(t.api, t.ns, configMap('nf', {}, { labels: { checked: 'empty-selector' } }));
  assert.match(empty.json.message, /failed to configure binding: no params found for policy binding with `Deny` parameterNotFoundAction$/);
});

test('a selector evaluates the policy once per selected param', async () => {
  const cms = `/api/v1/namespaces/${t.ns}/configmaps`;
  await createAll(t.api, [cms, configMap('sel-a', { label: 'alpha' }, { labels: { 'sel-param': 'yes' } })], [cms, configMap('sel-b', { label: 'beta' }, { labels: { 'sel-param': 'yes' } })], [cms, configMap('sel-c', { label: 'gamma' }, { labels: { 'sel-param': 'no' } })]);
  await install(t.api, requiredLabel('selected', { matchLabels: { checked: 'selected' } }), binding('selected-binding', 'selected', { paramRef: { selector: { matchLabels: { 'sel-param': 'yes' } }, parameterNotFoundAction: 'Deny' } }));
  const probe = (labels: Record<string, string>) => dryRunConfigMap(t.api, t.ns, configMap('s', {}, { labels: { checked: 'selected', ...labels } }));
  await until(() => probe({}), (r) => r.status === 422, 'the policy');
  // Both params are checked: each missing label is reported (the first param in name order first).
  assert.match((await probe({})).json.message, /missing required label alpha$/);
  assert.match((await probe({ alpha: '1' })).json.message, /missing required label beta$/);
  assert.equal((await probe({ alpha: '1', beta: '2' })).status, 201);
});

test('a binding without paramRef evaluates with params null', async () => {
  await install(
    t.api,
    policy('null-params', {
      paramKind: { apiVersion: 'v1', kind: 'ConfigMap' },
      matchConstraints: { resourceRules: [coreRule(['configmaps'], ['CREATE'])], objectSelector: { matchLabels: { checked: 'null-params' } } },
      validations: [{ expression: 'params != null', message: 'params is null' }],
    }),
    binding('null-params-binding', 'null-params'),
  );
  const res = await untilRefused(t.api, t.ns, configMap('np', {}, { labels: { checked: 'null-params' } }));
  assert.match(res.json.message, /denied request: params is null$/);
});

test('namespaced params of a cluster-scoped request and a namespace for cluster-scoped params are configuration errors', async () => {
  await install(
    t.api,
    policy('cluster-request', {
      paramKind: { apiVersion: 'v1', kind: 'ConfigMap' },
      matchConstraints: { resourceRules: [coreRule(['namespaces'], ['CREATE'])], objectSelector: { matchLabels: { checked: 'cluster-request' } } },
      validations: [{ expression: 'true' }],
    }),
    binding('cluster-request-binding', 'cluster-request', { paramRef: { name: 'anything', parameterNotFoundAction: 'Allow' } }),
  );
  const ns = namespace('cluster-request-ns', { labels: { checked: 'cluster-request' } });
  const res = await until(() => t.api.post('/api/v1/namespaces?dryRun=All', ns), (r) => r.status === 422, 'the policy');
  assertStatus(res, 422, 'Invalid', "namespaces \"cluster-request-ns\" is forbidden: ValidatingAdmissionPolicy 'cluster-request' with binding 'cluster-request-binding' denied request: failed to configure binding: cannot use namespaced paramRef in policy binding that matches cluster-scoped resources");

  await install(
    t.api,
    policy('cluster-params', {
      paramKind: { apiVersion: 'rbac.authorization.k8s.io/v1', kind: 'ClusterRole' },
      matchConstraints: { resourceRules: [coreRule(['configmaps'], ['CREATE'])], objectSelector: { matchLabels: { checked: 'cluster-params' } } },
      validations: [{ expression: 'true' }],
    }),
    binding('cluster-params-binding', 'cluster-params', { paramRef: { name: 'admin', namespace: 'default', parameterNotFoundAction: 'Allow' } }),
  );
  const refused = await untilRefused(t.api, t.ns, configMap('cp', {}, { labels: { checked: 'cluster-params' } }));
  assert.match(refused.json.message, /failed to configure binding: paramRef.namespace must not be provided for a cluster-scoped `paramKind`$/);
  // Without the namespace the ClusterRole is the param.
  const b = await t.api.get(`${BINDINGS}/cluster-params-binding`);
  assert.equal((await t.api.put(`${BINDINGS}/cluster-params-binding`, { ...b.json, spec: { ...b.json.spec, paramRef: { name: 'admin', parameterNotFoundAction: 'Deny' } } })).status, 200);
  const p = await t.api.get(`${POLICIES}/cluster-params`);
  assert.equal((await t.api.put(`${POLICIES}/cluster-params`, { ...p.json, spec: { ...p.json.spec, validations: [{ expression: "params.kind == 'ClusterRole' && params.metadata.name == 'admin'" }] } })).status, 200);
  await until(() => dryRunConfigMap(t.api, t.ns, configMap('cp', {}, { labels: { checked: 'cluster-params' } })), (r) => r.status === 201, 'the ClusterRole param');
});
