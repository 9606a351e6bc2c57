import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { assertStatus, configMap, event, namespace, uniqueName } from '../helpers/fixtures.ts';
import { serveFile } from '../helpers/server.ts';
import { configuration, install, startAdmissionWebhook, webhook, type FakeAdmissionWebhook } from './webhook-helper.ts';

// Which requests a webhook is called for (upstream's ShouldCallHook): rules (operations, groups,
// versions, resources and subresources, scope), matchPolicy Equivalent, namespaceSelector,
// objectSelector on the new and the old object, and matchConditions with the failure policy.

let fake: FakeAdmissionWebhook;
before(async () => {
  fake = await startAdmissionWebhook('matching');
});
after(() => fake?.close());
const t = serveFile();

let counter = 0;
const cms = (ns = t.ns) => `/api/v1/namespaces/${ns}/configmaps`;

/**
 * Installs a ValidatingWebhookConfiguration with these webhooks (each given `objectSelector: case=<id>`
 * unless it has its own) and a sentinel on configmaps labeled `case=<id>`; waits until it is in use.
 */
async function setup(hooks: (id: string, labels: Record<string, string>) => Record<string, unknown>[]): Promise<{ id: string; labels: Record<string, string> }> {
  const id = `m${++counter}`;
  const labels = { case: id };
  const selector = { objectSelector: { matchLabels: labels } };
  const sentinel = webhook(fake, `sentinel.${id}.example.com`, `/sentinel/${id}`, { ...selector, failurePolicy: 'Ignore' });
  const config = configuration('ValidatingWebhookConfiguration', `case-${id}`, [...hooks(id, labels).map((h) => ({ ...selector, ...h })), sentinel]);
  await install(t.api, config, async () => {
    await t.api.post(`${cms()}?dryRun=All`, configMap(`probe-${id}`, {}, { labels }));
    return fake.reviews(`/sentinel/${id}`).length > 0;
  });
  return { id, labels };
}

const names = (path: string) => fake.reviews(path).filter((r) => !String(r.request.name ?? '').startsWith('probe-')).map((r) => `${r.request.operation} ${r.request.name ?? ''}${r.request.subResource ? `/${r.request.subResource}` : ''}`);

describe('rules', () => {
  test('operations: a webhook for UPDATE is not called for CREATE or DELETE', async () => {
    const { id, labels } = await setup((id) => [webhook(fake, 'updates.example.com', `/updates/${id}`, { rules: [{ operations: ['UPDATE'], apiGroups: [''], apiVersions: ['v1'], resources: ['configmaps'] }] })]);
    const created = await t.api.post(cms(), configMap('ops', { v: '1' }, { labels }));
    await t.api.put(`${cms()}/ops`, { ...created.json, data: { v: '2' } });
    await t.api.delete(`${cms()}/ops`);
    assert.deepEqual(names(`/updates/${id}`), ['UPDATE ops']);
  });

  test('groups and versions: a rule for apps/v1 or for v2 is not called for core v1 configmaps', async () => {
    const { id, labels } = await setup((id) => [
      webhook(fake, 'apps.example.com', `/apps/${id}`, { rules: [{ operations: ['*'], apiGroups: ['apps'], apiVersions: ['v1'], resources: ['*'] }] }),
      webhook(fake, 'v2.example.com', `/v2/${id}`, { rules: [{ operations: ['*'], apiGroups: [''], apiVersions: ['v2'], resources: ['*'] }] }),
      webhook(fake, 'any.example.com', `/any/${id}`, { rules: [{ operations: ['*'], apiGroups: ['*'], apiVersions: ['*'], resources: ['*'] }] }),
    ]);
    await t.api.post(cms(), configMap('groups', {}, { labels }));
    assert.deepEqual(names(`/apps/${id}`), []);
    assert.deepEqual(names(`/v2/${id}`), []);
    assert.deepEqual(names(`/any/${id}`), ['CREATE groups']);
  });

  test("resources: 'x/status' matches only the subresource, '*' only main resources, '*/*' both", async () => {
    const { id, labels } = await setup((id) => [
      webhook(fake, 'status.example.com', `/status/${id}`, { rules: [{ operations: ['*'], apiGroups: [''], apiVersions: ['v1'], resources: ['namespaces/status'] }] }),
      webhook(fake, 'star.example.com', `/star/${id}`, { rules: [{ operations: ['*'], apiGroups: [''], apiVersions: ['v1'], resources: ['*'] }] }),
      webhook(fake, 'starstar.example.com', `/starstar/${id}`, { rules: [{ operations: ['*'], apiGroups: [''], apiVersions: ['v1'], resources: ['*/*'] }] }),
      webhook(fake, 'anysub.example.com', `/anysub/${id}`, { rules: [{ operations: ['*'], apiGroups: [''], apiVersions: ['v1'], resources: ['namespaces/*'] }] }),
    ]);
    const name = uniqueName(`sub-${id}`);
    const created = await t.api.post('/api/v1/namespaces', namespace(name, { labels }));
    assert.equal(created.status, 201, created.text);
    const status = await t.api.put(`/api/v1/namespaces/${name}/status`, { ...created.json, status: { phase: 'Active' } });
    assert.equal(status.status, 200, status.text);
    assert.deepEqual(names(`/status/${id}`), [`UPDATE ${name}/status`]);
    assert.deepEqual(names(`/star/${id}`), [`CREATE ${name}`]);
    assert.deepEqual(names(`/starstar/${id}`), [`CREATE ${name}`, `UPDATE ${name}/status`]);
    assert.deepEqual(names(`/anysub/${id}`), [`CREATE ${name}`, `UPDATE ${name}/status`]);
    const review = fake.reviews(`/status/${id}`)[0];
    assert.equal(review.request.subResource, 'status');
    assert.equal(review.request.requestSubResource, 'status');
    assert.equal(review.request.namespace, name, "a namespace's own requests carry its name as namespace");
    assert.equal(fake.reviews(`/star/${id}`).find((r) => r.request.name === name).request.namespace, undefined, 'but not its create');
  });

  test('scope: Namespaced rules see namespaced objects, Cluster rules cluster-scoped ones (namespaces included)', async () => {
    const everything = { operations: ['CREATE'], apiGroups: ['*'], apiVersions: ['*'], resources: ['*'] };
    const { id, labels } = await setup((id) => [
      webhook(fake, 'namespaced.example.com', `/namespaced/${id}`, { rules: [{ ...everything, scope: 'Namespaced' }] }),
      webhook(fake, 'cluster.example.com', `/cluster/${id}`, { rules: [{ ...everything, scope: 'Cluster' }] }),
    ]);
    const ns = uniqueName(`scope-${id}`);
    await t.api.post('/api/v1/namespaces', namespace(ns, { labels }));
    await t.api.post(cms(), configMap('scoped', {}, { labels }));
    const role = { apiVersion: 'rbac.authorization.k8s.io/v1', kind: 'ClusterRole', metadata: { name: `scope-${id}`, labels }, rules: [] };
    assert.equal((await t.api.post('/apis/rbac.authorization.k8s.io/v1/clusterroles', role)).status, 201);
    assert.deepEqual(names(`/namespaced/${id}`), ['CREATE scoped']);
    assert.deepEqual(names(`/cluster/${id}`), [`CREATE ${ns}`, `CREATE scope-${id}`]);
  });

  test('matchPolicy Equivalent calls a core/v1 events webhook for events.k8s.io/v1, with the object converted; Exact does not', async () => {
    const coreEvents = { operations: ['CREATE'], apiGroups: [''], apiVersions: ['v1'], resources: ['events'] };
    const { id, labels } = await setup((id) => [
      webhook(fake, 'equivalent.example.com', `/equivalent/${id}`, { rules: [coreEvents] }),
      webhook(fake, 'exact.example.com', `/exact/${id}`, { rules: [coreEvents], matchPolicy: 'Exact' }),
    ]);
    const res = await t.api.post(`/apis/events.k8s.io/v1/namespaces/${t.ns}/events`, event(`ev-${id}`, 'converted note', { labels }));
    assert.equal(res.status, 201, res.text);
    assert.equal(fake.reviews(`/exact/${id}`).length, 0);
    const [review] = fake.reviews(`/equivalent/${id}`);
    assert.ok(review, 'the Equivalent webhook was called');
    assert.deepEqual(review.request.kind, { group: '', version: 'v1', kind: 'Event' });
    assert.deepEqual(review.request.resource, { group: '', version: 'v1', resource: 'events' });
    assert.deepEqual(review.request.requestKind, { group: 'events.k8s.io', version: 'v1', kind: 'Event' });
    assert.deepEqual(review.request.requestResource, { group: 'events.k8s.io', version: 'v1', resource: 'events' });
    assert.equal(review.request.object.apiVersion, 'v1');
    assert.equal(review.request.object.message, 'converted note', 'the object is in its core/v1 form');
  });
});

describe('selectors', () => {
  test('namespaceSelector: the namespace labels decide; cluster-scoped objects always match', async () => {
    const prod = uniqueName('prod');
    const dev = uniqueName('dev');
    await t.api.post('/api/v1/namespaces', namespace(prod, { labels: { env: 'prod' } }));
    await t.api.post('/api/v1/namespaces', namespace(dev, { labels: { env: 'dev' } }));
    const { id, labels } = await setup((id) => [
      webhook(fake, 'prod.example.com', `/prod/${id}`, {
        namespaceSelector: { matchExpressions: [{ key: 'env', operator: 'In', values: ['prod'] }] },
        rules: [{ operations: ['CREATE'], apiGroups: ['', 'rbac.authorization.k8s.io'], apiVersions: ['v1'], resources: ['configmaps', 'clusterroles'] }],
      }),
    ]);
    await t.api.post(cms(prod), configMap('in-prod', {}, { labels }));
    await t.api.post(cms(dev), configMap('in-dev', {}, { labels }));
    const role = { apiVersion: 'rbac.authorization.k8s.io/v1', kind: 'ClusterRole', metadata: { name: `ns-sel-${id}`, labels }, rules: [] };
    await t.api.post('/apis/rbac.authorization.k8s.io/v1/clusterroles', role);
    assert.deepEqual(names(`/prod/${id}`), ['CREATE in-prod', `CREATE ns-sel-${id}`]);
  });

  test('namespaceSelector on a namespace itself reads the labels of the object being written', async () => {
    const { id } = await setup((id) => [
      webhook(fake, 'nsself.example.com', `/nsself/${id}`, { objectSelector: {}, namespaceSelector: { matchLabels: { team: id } }, rules: [{ operations: ['CREATE'], apiGroups: [''], apiVersions: ['v1'], resources: ['namespaces'] }] }),
    ]);
    const yes = uniqueName('yes');
    await t.api.post('/api/v1/namespaces', namespace(yes, { labels: { team: id } }));
    await t.api.post('/api/v1/namespaces', namespace(uniqueName('no')));
    assert.deepEqual(names(`/nsself/${id}`), [`CREATE ${yes}`]);
  });

  test('objectSelector: the new or the old object may match (an update removing the label, a delete)', async () => {
    const { id } = await setup((id) => [webhook(fake, 'obj.example.com', `/obj/${id}`, { objectSelector: { matchLabels: { watched: id } } })]);
    await t.api.post(cms(), configMap('unwatched', {}));
    const created = await t.api.post(cms(), configMap('watched', {}, { labels: { watched: id } }));
    const updated = await t.api.put(`${cms()}/watched`, { ...created.json, metadata: { ...created.json.metadata, labels: {} } });
    assert.equal(updated.status, 200, updated.text);
    await t.api.put(`${cms()}/watched`, { ...updated.json, data: { after: 'unlabelled' } });
    const labelled = await t.api.post(cms(), configMap('watched-2', {}, { labels: { watched: id } }));
    assert.equal(labelled.status, 201);
    await t.api.delete(`${cms()}/watched-2`);
    assert.deepEqual(names(`/obj/${id}`), ['CREATE watched', 'UPDATE watched', 'CREATE watched-2', 'DELETE watched-2']);
  });
});

describe('matchConditions', () => {
  test('all true calls the webhook; any false skips it; request and object are there', async () => {
    const { id, labels } = await setup((id) => [
      webhook(fake, 'cond.example.com', `/cond/${id}`, {
        matchConditions: [
          { name: 'has-data', expression: "has(object.data) && 'go' in object.data" },
          { name: 'is-create', expression: "request.operation == 'CREATE' && request.namespace == '" + t.ns + "'" },
          { name: 'admin', expression: "request.userInfo.groups.exists(g, g == 'system:masters')" },
        ],
      }),
    ]);
    await t.api.post(cms(), configMap('go-cm', { go: '1' }, { labels }));
    await t.api.post(cms(), configMap('stop-cm', { stop: '1' }, { labels }));
    assert.deepEqual(names(`/cond/${id}`), ['CREATE go-cm']);
  });

  test('an evaluation error is 403 under failurePolicy Fail (unless another condition is false), skipped under Ignore', async () => {
    const { id, labels } = await setup((id) => [
      webhook(fake, 'err-fail.example.com', `/err-fail/${id}`, { matchConditions: [{ name: 'broken', expression: "object.data.nope == 'x'" }, { name: 'gate', expression: "object.metadata.name != 'skip-me' && !object.metadata.name.startsWith('probe-')" }] }),
      webhook(fake, 'err-ignore.example.com', `/err-ignore/${id}`, { failurePolicy: 'Ignore', matchConditions: [{ name: 'broken', expression: "object.data.nope == 'x'" }] }),
    ]);
    const res = await t.api.post(cms(), configMap('cond-err', { a: 'b' }, { labels }));
    assertStatus(res, 403, 'Forbidden', `configmaps "cond-err" is forbidden: expression 'object.data.nope == 'x'' resulted in error: no such key: nope`);
    const skipped = await t.api.post(cms(), configMap('skip-me', { a: 'b' }, { labels }));
    assert.equal(skipped.status, 201, 'a false condition wins over an error');
    assert.deepEqual(names(`/err-fail/${id}`), []);
    assert.deepEqual(names(`/err-ignore/${id}`), []);
  });

  test('the authorizer library asks about the requester; an expression over the per-call cost limit is an error', async () => {
    const l = '[0,1,2,3,4,5,6,7,8,9]';
    const costly = `${l}.all(a, ${l}.all(b, ${l}.all(c, ${l}.all(d, ${l}.all(e, ${l}.all(f, a+b+c+d+e+f >= 0))))))`;
    const { id, labels } = await setup((id) => [
      webhook(fake, 'may.example.com', `/may/${id}`, { matchConditions: [{ name: 'may-create', expression: "authorizer.group('').resource('configmaps').namespace(request.namespace).check('create').allowed()" }] }),
      webhook(fake, 'may-not.example.com', `/may-not/${id}`, { matchConditions: [{ name: 'may-not', expression: "!authorizer.requestResource.check('create').allowed()" }] }),
      webhook(fake, 'costly.example.com', `/costly/${id}`, { matchConditions: [{ name: 'costly', expression: `object.metadata.name != 'costly' || ${costly}` }] }),
    ]);
    assert.equal((await t.api.post(cms(), configMap('authz', {}, { labels }))).status, 201);
    assert.deepEqual(names(`/may/${id}`), ['CREATE authz']);
    assert.deepEqual(names(`/may-not/${id}`), []);
    const res = await t.api.post(cms(), configMap('costly', {}, { labels }));
    assertStatus(res, 403, 'Forbidden', `configmaps "costly" is forbidden: expression 'object.metadata.name != 'costly' || ${costly}' resulted in error: operation cancelled: actual cost limit exceeded`);
  });
});
