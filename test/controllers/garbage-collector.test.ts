/**
 * The garbage collector against a running server: cascading deletion in the background (default),
 * in the foreground and with orphaning, the legacy orphanDependents option, deletecollection and
 * namespace deletion, owners re-created under the same name, owners in the wrong namespace.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { assertStatus, configMap, create, createNamespace, removeFinalizers, uniqueName } from '../helpers/fixtures.ts';
import { serveFile } from '../helpers/server.ts';
import { cmPath, gone, ownerRef, pod, podPath, secretPath, until } from './gc-helpers.ts';

const t = serveFile();
const RBAC = '/apis/rbac.authorization.k8s.io/v1';

async function owner(name = uniqueName('owner'), ns = t.ns, labels: Record<string, string> = {}) {
  return create(t.api, cmPath(ns), configMap(name, {}, { labels }));
}

async function dependentConfigMap(owners: unknown[], extra: Record<string, unknown> = {}, ns = t.ns) {
  return create(t.api, cmPath(ns), { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: uniqueName('dep'), ownerReferences: owners, ...extra } });
}

test('background (the default): the dependents of a deleted owner go, a dependent with a live owner left only loses the reference', async () => {
  const o = await owner();
  const live = await owner();
  const sec = await create(t.api, secretPath(t.ns), { apiVersion: 'v1', kind: 'Secret', metadata: { name: uniqueName('dep'), ownerReferences: [ownerRef(o)] } });
  const p = await create(t.api, podPath(t.ns), pod(uniqueName('dep'), { ownerReferences: [ownerRef(o, { controller: true })] }));
  const shared = await dependentConfigMap([ownerRef(o), ownerRef(live)]);

  const res = await t.api.delete(cmPath(t.ns, o.metadata.name));
  assert.equal(res.status, 200, res.text);
  assert.equal(res.json.kind, 'Status');
  await gone(t.api, secretPath(t.ns, sec.metadata.name));
  await gone(t.api, podPath(t.ns, p.metadata.name));
  const kept = await until(async () => {
    const r = await t.api.get(cmPath(t.ns, shared.metadata.name));
    return r.json.metadata.ownerReferences?.length === 1 && r.json;
  }, 'the dangling reference to be removed');
  assert.deepEqual(kept.metadata.ownerReferences, [ownerRef(live)]);
});

test('foreground: the owner stays marked (deletionTimestamp, foregroundDeletion) until its blocking dependents are gone', async () => {
  const o = await owner();
  const blocker = await dependentConfigMap([ownerRef(o, { blockOwnerDeletion: true })], { finalizers: ['example.com/hold'] });
  const other = await create(t.api, secretPath(t.ns), { apiVersion: 'v1', kind: 'Secret', metadata: { name: uniqueName('dep'), ownerReferences: [ownerRef(o)] } });

  const res = await t.api.delete(cmPath(t.ns, o.metadata.name), { propagationPolicy: 'Foreground' });
  assert.equal(res.status, 200, res.text);
  assert.equal(res.json.kind, 'ConfigMap');
  assert.ok(res.json.metadata.deletionTimestamp);
  assert.deepEqual(res.json.metadata.finalizers, ['foregroundDeletion']);

  // Every dependent is deleted; the non-blocking one goes, the blocking one is held by its finalizer.
  await gone(t.api, secretPath(t.ns, other.metadata.name));
  await until(async () => (await t.api.get(cmPath(t.ns, blocker.metadata.name))).json.metadata.deletionTimestamp, 'the blocking dependent to be deleted');
  await new Promise((r) => setTimeout(r, 300));
  const waiting = await t.api.get(cmPath(t.ns, o.metadata.name));
  assert.equal(waiting.status, 200, 'the owner waits for its blocking dependent');
  assert.deepEqual(waiting.json.metadata.finalizers, ['foregroundDeletion']);

  assert.equal((await removeFinalizers(t.api, cmPath(t.ns, blocker.metadata.name))).status, 200);
  await gone(t.api, cmPath(t.ns, blocker.metadata.name));
  await gone(t.api, cmPath(t.ns, o.metadata.name));
});

test('foreground through a chain: a dependent that has dependents of its own is deleted in the foreground too', async () => {
  const o = await owner();
  const middle = await dependentConfigMap([ownerRef(o, { blockOwnerDeletion: true })]);
  const leaf = await dependentConfigMap([ownerRef(middle, { blockOwnerDeletion: true })], { finalizers: ['example.com/hold'] });
  assert.equal((await t.api.delete(cmPath(t.ns, o.metadata.name), { propagationPolicy: 'Foreground' })).status, 200);
  const marked = await until(async () => {
    const r = await t.api.get(cmPath(t.ns, middle.metadata.name));
    return r.json.metadata?.deletionTimestamp && r.json;
  }, 'the middle dependent to be deleted');
  assert.deepEqual(marked.metadata.finalizers, ['foregroundDeletion']);
  assert.equal((await t.api.get(cmPath(t.ns, o.metadata.name))).status, 200);
  assert.equal((await removeFinalizers(t.api, cmPath(t.ns, leaf.metadata.name))).status, 200);
  await gone(t.api, cmPath(t.ns, leaf.metadata.name));
  await gone(t.api, cmPath(t.ns, middle.metadata.name));
  await gone(t.api, cmPath(t.ns, o.metadata.name));
});

test('orphan: the dependents stay, without their reference to the owner; the owner goes', async () => {
  const o = await owner();
  const live = await owner();
  const only = await dependentConfigMap([ownerRef(o, { controller: true, blockOwnerDeletion: true })]);
  const shared = await dependentConfigMap([ownerRef(live), ownerRef(o)]);

  const res = await t.api.delete(cmPath(t.ns, o.metadata.name), { propagationPolicy: 'Orphan' });
  assert.equal(res.status, 200, res.text);
  assert.equal(res.json.kind, 'ConfigMap');
  assert.deepEqual(res.json.metadata.finalizers, ['orphan']);
  await gone(t.api, cmPath(t.ns, o.metadata.name));
  const a = await t.api.get(cmPath(t.ns, only.metadata.name));
  assert.equal(a.status, 200);
  assert.equal(a.json.metadata.ownerReferences, undefined);
  const b = await t.api.get(cmPath(t.ns, shared.metadata.name));
  assert.deepEqual(b.json.metadata.ownerReferences, [ownerRef(live)]);
});

test('orphanDependents (legacy): true orphans, false deletes the dependents; set with propagationPolicy it is 422', async () => {
  const o1 = await owner();
  const d1 = await dependentConfigMap([ownerRef(o1)]);
  assert.equal((await t.api.delete(`${cmPath(t.ns, o1.metadata.name)}?orphanDependents=true`)).status, 200);
  await gone(t.api, cmPath(t.ns, o1.metadata.name));
  assert.equal((await t.api.get(cmPath(t.ns, d1.metadata.name))).json.metadata.ownerReferences, undefined);

  const o2 = await owner();
  const d2 = await dependentConfigMap([ownerRef(o2)]);
  const res = await t.api.delete(cmPath(t.ns, o2.metadata.name), { orphanDependents: false });
  assert.equal(res.status, 200, res.text);
  await gone(t.api, cmPath(t.ns, d2.metadata.name));

  const o3 = await owner();
  assertStatus(
    await t.api.delete(cmPath(t.ns, o3.metadata.name), { orphanDependents: true, propagationPolicy: 'Foreground' }),
    422,
    'Invalid',
    'DeleteOptions.meta.k8s.io "" is invalid: propagationPolicy: Invalid value: "Foreground": orphanDependents and deletionPropagation cannot be both set',
  );
  assert.equal((await t.api.get(cmPath(t.ns, o3.metadata.name))).status, 200);
});

test('a delete on an object already being deleted changes the collector finalizers the options name', async () => {
  const o = await owner(uniqueName('owner'));
  await t.api.put(cmPath(t.ns, o.metadata.name), { ...o, metadata: { ...o.metadata, finalizers: ['example.com/hold'] } });
  const dep = await dependentConfigMap([ownerRef(o, { blockOwnerDeletion: true })], { finalizers: ['example.com/hold'] });
  const first = await t.api.delete(cmPath(t.ns, o.metadata.name));
  assert.deepEqual(first.json.metadata.finalizers, ['example.com/hold']);
  const second = await t.api.delete(cmPath(t.ns, o.metadata.name), { propagationPolicy: 'Foreground' });
  assert.equal(second.status, 200, second.text);
  assert.deepEqual(second.json.metadata.finalizers, ['example.com/hold', 'foregroundDeletion']);
  // The collector now deletes the dependent (held by its own finalizer) while the owner waits.
  await until(async () => (await t.api.get(cmPath(t.ns, dep.metadata.name))).json.metadata.deletionTimestamp, 'the dependent to be deleted');
  await removeFinalizers(t.api, cmPath(t.ns, dep.metadata.name));
  await until(async () => {
    const r = await t.api.get(cmPath(t.ns, o.metadata.name));
    return r.status === 200 && !r.json.metadata.finalizers.includes('foregroundDeletion');
  }, 'the collector to remove foregroundDeletion');
  await removeFinalizers(t.api, cmPath(t.ns, o.metadata.name));
  await gone(t.api, cmPath(t.ns, o.metadata.name));
});

test('deletecollection honours propagationPolicy: Orphan keeps the dependents, Background deletes them', async () => {
  const label = uniqueName('batch');
  const owners = [await owner(undefined, t.ns, { batch: label }), await owner(undefined, t.ns, { batch: label })];
  const deps = await Promise.all(owners.map((o) => dependentConfigMap([ownerRef(o)])));
  const res = await t.api.delete(`${cmPath(t.ns)}?labelSelector=batch%3D${label}&propagationPolicy=Orphan`);
  assert.equal(res.status, 200, res.text);
  for (const o of owners) await gone(t.api, cmPath(t.ns, o.metadata.name));
  for (const d of deps) assert.equal((await t.api.get(cmPath(t.ns, d.metadata.name))).json.metadata.ownerReferences, undefined);

  const label2 = uniqueName('batch');
  const owners2 = [await owner(undefined, t.ns, { batch: label2 }), await owner(undefined, t.ns, { batch: label2 })];
  const deps2 = await Promise.all(owners2.map((o) => dependentConfigMap([ownerRef(o)])));
  assert.equal((await t.api.delete(`${cmPath(t.ns)}?labelSelector=batch%3D${label2}`, { propagationPolicy: 'Background' })).status, 200);
  for (const d of deps2) await gone(t.api, cmPath(t.ns, d.metadata.name));
});

test('namespace deletion: with Foreground the namespace waits for its dependents elsewhere; with Orphan they stay', async () => {
  const fg = await createNamespace(t.api);
  const fgNs = (await t.api.get(`/api/v1/namespaces/${fg}`)).json;
  const inside = await owner(undefined, fg);
  const insideDep = await dependentConfigMap([ownerRef(inside)], {}, fg);
  const outside = await dependentConfigMap([ownerRef(fgNs, { blockOwnerDeletion: true })], { finalizers: ['example.com/hold'] });
  const res = await t.api.delete(`/api/v1/namespaces/${fg}`, { propagationPolicy: 'Foreground' });
  assert.equal(res.status, 200, res.text);
  assert.deepEqual(res.json.metadata.finalizers, ['foregroundDeletion']);
  // The namespace controller empties it; the collector deletes the dependent outside, which its finalizer holds.
  await gone(t.api, cmPath(fg, insideDep.metadata.name));
  await until(async () => (await t.api.get(cmPath(t.ns, outside.metadata.name))).json.metadata.deletionTimestamp, 'the outside dependent to be deleted');
  const waiting = await until(async () => {
    const r = await t.api.get(`/api/v1/namespaces/${fg}`);
    return r.status === 200 && (r.json.spec.finalizers ?? []).length === 0 && r.json;
  }, 'the namespace to be emptied');
  assert.deepEqual(waiting.metadata.finalizers, ['foregroundDeletion']);
  await removeFinalizers(t.api, cmPath(t.ns, outside.metadata.name));
  await gone(t.api, `/api/v1/namespaces/${fg}`);

  const orphaning = await createNamespace(t.api);
  const orphaningNs = (await t.api.get(`/api/v1/namespaces/${orphaning}`)).json;
  const kept = await dependentConfigMap([ownerRef(orphaningNs)]);
  const res2 = await t.api.delete(`/api/v1/namespaces/${orphaning}`, { propagationPolicy: 'Orphan' });
  assert.deepEqual(res2.json.metadata.finalizers, ['orphan']);
  await gone(t.api, `/api/v1/namespaces/${orphaning}`);
  assert.equal((await t.api.get(cmPath(t.ns, kept.metadata.name))).json.metadata.ownerReferences, undefined);
});

test('namespace deletion (Background by default): the objects it owns go once it is gone', async () => {
  const ns = await createNamespace(t.api);
  const nsObj = (await t.api.get(`/api/v1/namespaces/${ns}`)).json;
  const dep = await dependentConfigMap([ownerRef(nsObj)]);
  const role = await create(t.api, `${RBAC}/clusterroles`, { metadata: { name: uniqueName('gc-role'), ownerReferences: [ownerRef(nsObj)] }, rules: [] });
  assert.equal((await t.api.delete(`/api/v1/namespaces/${ns}`)).status, 200);
  await gone(t.api, `/api/v1/namespaces/${ns}`);
  await gone(t.api, cmPath(t.ns, dep.metadata.name));
  await gone(t.api, `${RBAC}/clusterroles/${role.metadata.name}`);
});

test('namespace deletion deletes terminating content again with Background: an owner waiting in the foreground goes before its held dependent', async () => {
  const ns = await createNamespace(t.api);
  const o = await owner(undefined, ns);
  const held = await dependentConfigMap([ownerRef(o, { blockOwnerDeletion: true })], { finalizers: ['example.com/hold'] }, ns);
  assert.equal((await t.api.delete(cmPath(ns, o.metadata.name), { propagationPolicy: 'Foreground' })).status, 200);
  await until(async () => (await t.api.get(cmPath(ns, held.metadata.name))).json.metadata.deletionTimestamp, 'the held dependent to be deleted');
  assert.equal((await t.api.get(cmPath(ns, o.metadata.name))).status, 200, 'the owner waits for it');
  assert.equal((await t.api.delete(`/api/v1/namespaces/${ns}`)).status, 200);
  await gone(t.api, cmPath(ns, o.metadata.name));
  assert.equal((await t.api.get(cmPath(ns, held.metadata.name))).status, 200, 'its own finalizer still holds the dependent');
  await removeFinalizers(t.api, cmPath(ns, held.metadata.name));
  await gone(t.api, `/api/v1/namespaces/${ns}`);
});

test('an owner re-created under the same name (a new uid) does not keep the old one\'s dependents', async () => {
  const name = uniqueName('same');
  const first = await owner(name);
  const dep = await dependentConfigMap([ownerRef(first)]);
  assert.equal((await t.api.delete(`${cmPath(t.ns, name)}?propagationPolicy=Orphan`)).status, 200);
  await gone(t.api, cmPath(t.ns, name));
  const second = await owner(name);
  assert.notEqual(second.metadata.uid, first.metadata.uid);
  // Orphaned: the dependent kept, no reference; now one naming the old uid from the start is collected.
  assert.equal((await t.api.get(cmPath(t.ns, dep.metadata.name))).json.metadata.ownerReferences, undefined);
  const stale = await dependentConfigMap([ownerRef(first)]);
  await gone(t.api, cmPath(t.ns, stale.metadata.name));
  assert.equal((await t.api.get(cmPath(t.ns, name))).json.metadata.uid, second.metadata.uid, 'the new owner is untouched');

  // Deleted in the background and re-created before the collector looks: the dependent still goes.
  const third = await owner();
  const dep3 = await dependentConfigMap([ownerRef(third)]);
  assert.equal((await t.api.delete(cmPath(t.ns, third.metadata.name))).status, 200);
  await owner(third.metadata.name);
  await gone(t.api, cmPath(t.ns, dep3.metadata.name));
});

test('an owner that never existed: its dependents are collected once storage confirms it absent', async () => {
  const dep = await dependentConfigMap([{ apiVersion: 'v1', kind: 'Secret', name: uniqueName('never'), uid: '00000000-0000-0000-0000-000000000001' }]);
  await gone(t.api, cmPath(t.ns, dep.metadata.name));
  // A kind the server does not serve cannot be verified: the dependent stays (upstream retries forever).
  const unknown = await dependentConfigMap([{ apiVersion: 'example.com/v1', kind: 'Widget', name: 'w', uid: '00000000-0000-0000-0000-000000000002' }]);
  await new Promise((r) => setTimeout(r, 500));
  assert.equal((await t.api.get(cmPath(t.ns, unknown.metadata.name))).status, 200);
});

test('an owner in another namespace: an OwnerRefInvalidNamespace event, and the dependent is collected', async () => {
  const o = await owner();
  const other = await createNamespace(t.api);
  const dep = await dependentConfigMap([ownerRef(o)], {}, other);
  await gone(t.api, cmPath(other, dep.metadata.name));
  const event = await until(async () => {
    const list = await t.api.get(`/api/v1/namespaces/${other}/events`);
    return list.json.items.find((e: any) => e.reason === 'OwnerRefInvalidNamespace');
  }, 'the OwnerRefInvalidNamespace event');
  assert.equal(event.type, 'Warning');
  assert.equal(event.source.component, 'garbage-collector-controller');
  assert.deepEqual(event.involvedObject, { kind: 'ConfigMap', namespace: other, name: dep.metadata.name, uid: dep.metadata.uid, apiVersion: 'v1' });
  assert.equal(event.message, `ownerRef [v1/ConfigMap, namespace: ${other}, name: ${o.metadata.name}, uid: ${o.metadata.uid}] does not exist in namespace "${other}"`);
  assert.equal((await t.api.get(cmPath(t.ns, o.metadata.name))).status, 200, 'the real owner is untouched');
});

test('a cluster-scoped dependent naming a namespaced owner: an event, and it is never collected', async () => {
  const o = await owner();
  const role = await create(t.api, `${RBAC}/clusterroles`, { metadata: { name: uniqueName('gc-role'), ownerReferences: [ownerRef(o)] }, rules: [] });
  const event = await until(async () => {
    const list = await t.api.get('/api/v1/namespaces/default/events');
    return list.json.items.find((e: any) => e.reason === 'OwnerRefInvalidNamespace' && e.involvedObject.name === role.metadata.name);
  }, 'the OwnerRefInvalidNamespace event');
  assert.equal(event.message, `ownerRef [v1/ConfigMap, namespace: , name: ${o.metadata.name}, uid: ${o.metadata.uid}] does not exist in namespace ""`);
  assert.deepEqual(event.involvedObject, { kind: 'ClusterRole', name: role.metadata.name, uid: role.metadata.uid, apiVersion: 'rbac.authorization.k8s.io/v1' });
  assert.equal((await t.api.delete(cmPath(t.ns, o.metadata.name))).status, 200);
  await new Promise((r) => setTimeout(r, 500));
  assert.equal((await t.api.get(`${RBAC}/clusterroles/${role.metadata.name}`)).status, 200);
});

test('ownerReferences: at most one controller; the two collector finalizers exclude each other', async () => {
  const a = { apiVersion: 'v1', kind: 'ConfigMap', name: 'a', uid: 'u1', controller: true };
  const b = { apiVersion: 'v1', kind: 'Secret', name: 'b', uid: 'u2', controller: true };
  assertStatus(
    await t.api.post(cmPath(t.ns), { metadata: { name: 'two-controllers', ownerReferences: [a, b] } }),
    422,
    'Invalid',
    'ConfigMap "two-controllers" is invalid: metadata.ownerReferences: Invalid value: []v1.OwnerReference{' +
      'v1.OwnerReference{APIVersion:"v1", Kind:"ConfigMap", Name:"a", UID:"u1", Controller:(*bool)(true), BlockOwnerDeletion:(*bool)(nil)}, ' +
      'v1.OwnerReference{APIVersion:"v1", Kind:"Secret", Name:"b", UID:"u2", Controller:(*bool)(true), BlockOwnerDeletion:(*bool)(nil)}}: ' +
      'Only one reference can have Controller set to true. Found "true" in references for ConfigMap/a and Secret/b',
  );
  assert.equal((await t.api.post(cmPath(t.ns), { metadata: { name: 'one-controller', ownerReferences: [a, { ...b, controller: false }] } })).status, 201);
  assertStatus(
    await t.api.post(cmPath(t.ns), { metadata: { name: 'both-finalizers', finalizers: ['orphan', 'foregroundDeletion'] } }),
    422,
    'Invalid',
    'ConfigMap "both-finalizers" is invalid: metadata.finalizers: Invalid value: []string{"orphan", "foregroundDeletion"}: finalizer orphan and foregroundDeletion cannot be both set',
  );
});
