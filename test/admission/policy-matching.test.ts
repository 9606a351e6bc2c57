/**
 * Which requests a policy applies to, end to end: resource rules with operations, subresources and
 * their `*` forms, resourceNames and scope; exclusions winning over rules; the namespace selector
 * (the namespace's labels, a namespace's own labels when it is written); the object selector on
 * the new or the old object; a binding's matchResources narrowing its policy; matchPolicy
 * Equivalent matching the same objects served under another group; and policies and bindings,
 * which no policy ever applies to.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { assertStatus, configMap, createNamespace, namespace } from '../helpers/fixtures.ts';
import type { Reply } from '../helpers/http.ts';
import { serveFile } from '../helpers/server.ts';
import { BINDINGS, POLICIES, binding, coreRule, install, policy, until, untilRefused, dryRunConfigMap } from './policy-fixtures.ts';

const t = serveFile();

/** A policy that refuses everything it matches, naming itself. */
const refuser = (name: string, matchConstraints: Record<string, unknown>) => policy(name, { matchConstraints, validations: [{ expression: 'false', message: `refused by ${name}` }] });
const refusedBy = (r: Reply, name: string) => r.status === 422 && String(r.json?.message).endsWith(`refused by ${name}`);

test('rules: operations, resourceNames, and exclusions that win over rules', async () => {
  const ns = await createNamespace(t.api);
  await install(
    t.api,
    refuser('rules', {
      namespaceSelector: { matchLabels: { 'kubernetes.io/metadata.name': ns } },
      resourceRules: [coreRule(['configmaps'], ['UPDATE']), coreRule(['configmaps'], ['CREATE'], { resourceNames: ['named-a', 'named-b'] })],
      excludeResourceRules: [coreRule(['configmaps'], ['*'], { resourceNames: ['named-b'] })],
    }),
    binding('rules-binding', 'rules'),
  );
  const cms = `/api/v1/namespaces/${ns}/configmaps`;
  await until(() => t.api.post(`${cms}?dryRun=All`, configMap('named-a')), (r) => refusedBy(r, 'rules'), 'the policy');
  // CREATE of another name, and of the excluded name, pass.
  assert.equal((await t.api.post(cms, configMap('other'))).status, 201);
  assert.equal((await t.api.post(cms, configMap('named-b'))).status, 201);
  // Every UPDATE is refused, except of the excluded name.
  const other = await t.api.get(`${cms}/other`);
  assert.ok(refusedBy(await t.api.put(`${cms}/other`, { ...other.json, data: { a: '1' } }), 'rules'));
  const b = await t.api.get(`${cms}/named-b`);
  assert.equal((await t.api.put(`${cms}/named-b`, { ...b.json, data: { a: '1' } })).status, 200);
  // DELETE is not among the operations.
  assert.equal((await t.api.delete(`${cms}/other`)).status, 200);
});

test('subresources: x/status, */status; x/* and */* match the resource and its subresources; * only resources', async () => {
  const cases: [string, string[], { main: boolean; status: boolean }][] = [
    ['sub-status', ['namespaces/status'], { main: false, status: true }],
    // As upstream's rule matcher: a `*` subresource matches the main resource too.
    ['sub-star', ['namespaces/*'], { main: true, status: true }],
    ['star-star', ['*/*'], { main: true, status: true }],
    ['star-status', ['*/status'], { main: false, status: true }],
    ['star', ['*'], { main: true, status: false }],
    ['plain', ['namespaces'], { main: true, status: false }],
  ];
  for (const [name, resources, expected] of cases) {
    const nsName = `${name}-${Math.random().toString(36).slice(2, 8)}`;
    const created = await t.api.post('/api/v1/namespaces', namespace(nsName));
    assert.equal(created.status, 201, created.text);
    await install(
      t.api,
      refuser(name, { resourceRules: [{ apiGroups: [''], apiVersions: ['v1'], operations: ['UPDATE'], resources }], objectSelector: { matchLabels: { 'kubernetes.io/metadata.name': nsName } } }),
      binding(`${name}-binding`, name),
    );
    const main = () => t.api.get(`/api/v1/namespaces/${nsName}`).then((r) => t.api.put(`/api/v1/namespaces/${nsName}?dryRun=All`, { ...r.json, metadata: { ...r.json.metadata, annotations: { touched: 'yes' } } }));
    const status = () => t.api.get(`/api/v1/namespaces/${nsName}`).then((r) => t.api.put(`/api/v1/namespaces/${nsName}/status?dryRun=All`, { ...r.json, status: { phase: 'Active' } }));
    // Wait until whichever of the two the policy matches is refused.
    await until(expected.main ? main : status, (r) => refusedBy(r, name), `policy ${name}`);
    assert.equal(refusedBy(await main(), name), expected.main, `${name}: main resource`);
    assert.equal(refusedBy(await status(), name), expected.status, `${name}: status`);
    await t.api.delete(`${BINDINGS}/${name}-binding`);
  }
});

test('scope: Namespaced and Cluster', async () => {
  await install(
    t.api,
    refuser('cluster-scope', { resourceRules: [{ apiGroups: ['', 'rbac.authorization.k8s.io'], apiVersions: ['v1'], operations: ['CREATE'], resources: ['configmaps', 'clusterroles', 'namespaces'], scope: 'Cluster' }], objectSelector: { matchLabels: { scope: 'test' } } }),
    binding('cluster-scope-binding', 'cluster-scope'),
  );
  const labels = { scope: 'test' };
  const role = { apiVersion: 'rbac.authorization.k8s.io/v1', kind: 'ClusterRole', metadata: { name: 'scope-role', labels } };
  await until(() => t.api.post('/apis/rbac.authorization.k8s.io/v1/clusterroles?dryRun=All', role), (r) => refusedBy(r, 'cluster-scope'), 'the Cluster policy');
  assert.ok(refusedBy(await t.api.post('/api/v1/namespaces?dryRun=All', namespace('scope-ns', { labels })), 'cluster-scope'), 'namespaces are cluster-scoped');
  assert.equal((await dryRunConfigMap(t.api, t.ns, configMap('scoped', {}, { labels }))).status, 201);
  await t.api.delete(`${BINDINGS}/cluster-scope-binding`);

  await install(
    t.api,
    refuser('namespaced-scope', { resourceRules: [{ apiGroups: ['', 'rbac.authorization.k8s.io'], apiVersions: ['v1'], operations: ['CREATE'], resources: ['configmaps', 'clusterroles', 'namespaces'], scope: 'Namespaced' }], objectSelector: { matchLabels: { scope: 'test' } } }),
    binding('namespaced-scope-binding', 'namespaced-scope'),
  );
  await untilRefused(t.api, t.ns, configMap('scoped', {}, { labels }));
  assert.equal((await t.api.post('/apis/rbac.authorization.k8s.io/v1/clusterroles?dryRun=All', role)).status, 201);
  assert.equal((await t.api.post('/api/v1/namespaces?dryRun=All', namespace('scope-ns', { labels }))).status, 201);
  await t.api.delete(`${BINDINGS}/namespaced-scope-binding`);
});

test('namespaceSelector: the namespace\'s labels; a namespace being written is judged by its own', async () => {
  const selected = await createNamespace(t.api);
  const ns = await t.api.get(`/api/v1/namespaces/${selected}`);
  assert.equal((await t.api.put(`/api/v1/namespaces/${selected}`, { ...ns.json, metadata: { ...ns.json.metadata, labels: { ...ns.json.metadata.labels, 'policy-test': 'selected' } } })).status, 200);
  await install(
    t.api,
    refuser('ns-selector', { resourceRules: [coreRule(['configmaps', 'namespaces'], ['CREATE'])], namespaceSelector: { matchLabels: { 'policy-test': 'selected' } } }),
    binding('ns-selector-binding', 'ns-selector'),
  );
  await until(() => dryRunConfigMap(t.api, selected, configMap('x')), (r) => refusedBy(r, 'ns-selector'), 'the policy');
  assert.equal((await dryRunConfigMap(t.api, t.ns, configMap('x'))).status, 201);
  assert.ok(refusedBy(await t.api.post('/api/v1/namespaces?dryRun=All', namespace('labelled-ns', { labels: { 'policy-test': 'selected' } })), 'ns-selector'));
  assert.equal((await t.api.post('/api/v1/namespaces?dryRun=All', namespace('plain-ns'))).status, 201);
});

test('objectSelector: the new or the old object', async () => {
  await install(t.api, refuser('obj-selector', { resourceRules: [coreRule(['configmaps'], ['UPDATE'])], objectSelector: { matchLabels: { guarded: 'yes' } } }), binding('obj-selector-binding', 'obj-selector'));
  const cms = `/api/v1/namespaces/${t.ns}/configmaps`;
  const guarded = await t.api.post(cms, configMap('guarded', {}, { labels: { guarded: 'yes' } }));
  const free = await t.api.post(cms, configMap('free'));
  await until(() => t.api.put(`${cms}/guarded?dryRun=All`, { ...guarded.json, data: { a: '1' } }), (r) => refusedBy(r, 'obj-selector'), 'the policy');
  // Removing the label: the old object still matches.
  assert.ok(refusedBy(await t.api.put(`${cms}/guarded`, { ...guarded.json, metadata: { ...guarded.json.metadata, labels: {} } }), 'obj-selector'));
  // Adding it: the new object matches.
  assert.ok(refusedBy(await t.api.put(`${cms}/free`, { ...free.json, metadata: { ...free.json.metadata, labels: { guarded: 'yes' } } }), 'obj-selector'));
  assert.equal((await t.api.put(`${cms}/free`, { ...free.json, data: { b: '2' } })).status, 200);
});

test('a binding\'s matchResources narrows its policy', async () => {
  const other = await createNamespace(t.api);
  await install(
    t.api,
    refuser('narrowed', { resourceRules: [coreRule(['configmaps'], ['CREATE'])], objectSelector: { matchLabels: { narrowed: 'yes' } } }),
    binding('narrowed-binding', 'narrowed', { matchResources: { namespaceSelector: { matchLabels: { 'kubernetes.io/metadata.name': other } } } }),
  );
  const labelled = configMap('n', {}, { labels: { narrowed: 'yes' } });
  await until(() => dryRunConfigMap(t.api, other, labelled), (r) => refusedBy(r, 'narrowed'), 'the policy');
  assert.equal((await dryRunConfigMap(t.api, t.ns, labelled)).status, 201);
});

test('matchPolicy Equivalent matches the same objects under another group, seen as that group\'s kind', async () => {
  const coreEvent = (name: string) => ({
    apiVersion: 'v1',
    kind: 'Event',
    metadata: { name, labels: { equivalent: 'test' } },
    involvedObject: { kind: 'ConfigMap', name: 'x', namespace: t.ns },
    reason: 'Tested',
    message: 'core message',
    type: 'Normal',
    source: { component: 'test' },
  });
  for (const matchPolicy of ['Equivalent', 'Exact']) {
    const name = `equivalent-${matchPolicy.toLowerCase()}`;
    await install(
      t.api,
      policy(name, {
        matchConstraints: { matchPolicy, resourceRules: [{ apiGroups: ['events.k8s.io'], apiVersions: ['v1'], operations: ['CREATE'], resources: ['events'] }], objectSelector: { matchLabels: { equivalent: 'test' } } },
        validations: [{ expression: `!(has(object.note) && object.note == 'core message' && request.kind.group == 'events.k8s.io' && request.requestKind.group == '' && request.resource.group == 'events.k8s.io')`, message: `refused by ${name}` }],
      }),
      binding(`${name}-binding`, name),
    );
  }
  const res = await until(() => t.api.post(`/api/v1/namespaces/${t.ns}/events?dryRun=All`, coreEvent('e1')), (r) => r.status === 422, 'the Equivalent policy');
  assert.ok(refusedBy(res, 'equivalent-equivalent'), res.text);
});

test('no policy applies to policies and bindings', async () => {
  await install(t.api, refuser('catch-all', { resourceRules: [{ apiGroups: ['*'], apiVersions: ['*'], operations: ['*'], resources: ['*/*'] }] }), binding('catch-all-binding', 'catch-all'));
  await until(() => dryRunConfigMap(t.api, t.ns, configMap('anything')), (r) => refusedBy(r, 'catch-all'), 'the catch-all policy');
  // The status controller writes the policy's status too: a conflict means read again and retry.
  let put;
  for (let attempt = 0; attempt < 10; attempt++) {
    const p = await t.api.get(`${POLICIES}/catch-all`);
    put = await t.api.put(`${POLICIES}/catch-all`, { ...p.json, spec: { ...p.json.spec, failurePolicy: 'Ignore' } });
    if (put.status !== 409) break;
  }
  assert.equal(put!.status, 200, put!.text);
  assert.equal((await t.api.post(BINDINGS, binding('another-binding', 'catch-all', { validationActions: ['Warn'] }))).status, 201);
  assert.equal((await t.api.delete(`${BINDINGS}/another-binding`)).status, 200);
  // Removing the catch-all binding is not refused either.
  assert.equal((await t.api.delete(`${BINDINGS}/catch-all-binding`)).status, 200);
  await until(() => dryRunConfigMap(t.api, t.ns, configMap('anything')), (r) => r.status === 201, 'the catch-all policy to be gone');
  assertStatus(await t.api.get(`${BINDINGS}/catch-all-binding`), 404, 'NotFound');
});
