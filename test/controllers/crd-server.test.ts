/**
 * The CRD lifecycle against a running server (the serving loop and the controllers together):
 * names accepted and Established, custom resources served, DELETE of the CRD answering the marked
 * CRD and removing its objects in every namespace before the CRD goes; the garbage collector and
 * the namespace controller with custom resources; a ValidatingAdmissionPolicy matching a custom
 * resource by group and resource, and one whose paramKind is a custom resource kind served after
 * the server started.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { assertStatus, configMap, create, createNamespace, eventually, removeFinalizers, uniqueName } from '../helpers/fixtures.ts';
import { serveFile } from '../helpers/server.ts';
import { binding, install, policy } from '../admission/policy-fixtures.ts';
import { crdObject } from './crd-helpers.ts';
import { cmPath, gone, ownerRef } from './gc-helpers.ts';

const t = serveFile();
const CRDS = '/apis/apiextensions.k8s.io/v1/customresourcedefinitions';

type Condition = { type: string; status: string; reason?: string; message?: string };
const conditionOf = (crd: { status?: { conditions?: Condition[] } }, type: string) => crd.status?.conditions?.find((c) => c.type === type);

/** Creates a CRD (spec.size a string) and waits until it is Established and its resource answers. */
async function establishedCrd(group: string, plural: string, kind: string, scope: 'Namespaced' | 'Cluster' = 'Namespaced') {
  const crd = await create(t.api, CRDS, crdObject({ group, plural, kind, scope }));
  const established = await eventually(async () => {
    const r = await t.api.get(`${CRDS}/${crd.metadata.name}`);
    return conditionOf(r.json, 'Established')?.status === 'True' && r.json;
  }, `${crd.metadata.name} to be established`);
  await eventually(async () => (await t.api.get(`/apis/${group}/v1/${plural}`)).status === 200, `${plural}.${group} to be served`);
  return established;
}

const crPath = (group: string, plural: string, ns: string, name = '') => `/apis/${group}/v1/namespaces/${ns}/${plural}${name ? `/${name}` : ''}`;

function cr(group: string, kind: string, name: string, metadata: Record<string, unknown> = {}) {
  return { apiVersion: `${group}/v1`, kind, metadata: { name, ...metadata }, spec: { size: 'small' } };
}

test('a CRD is established, and its DELETE marks it, removes its objects in every namespace, then it goes', async () => {
  const group = 'life.example.com';
  const crd = await establishedCrd(group, 'crontabs', 'CronTab');
  assert.equal(conditionOf(crd, 'NamesAccepted')?.reason, 'NoConflicts');
  const other = await createNamespace(t.api);
  await create(t.api, crPath(group, 'crontabs', t.ns), cr(group, 'CronTab', 'one'));
  await create(t.api, crPath(group, 'crontabs', other), cr(group, 'CronTab', 'two'));
  const held = await create(t.api, crPath(group, 'crontabs', other), cr(group, 'CronTab', 'held', { finalizers: ['example.com/hold'] }));

  const res = await t.api.delete(`${CRDS}/${crd.metadata.name}`);
  assert.equal(res.status, 200, res.text);
  assert.equal(res.json.kind, 'CustomResourceDefinition');
  assert.ok(res.json.metadata.deletionTimestamp);
  assert.deepEqual(res.json.metadata.finalizers, ['customresourcecleanup.apiextensions.k8s.io']);
  assert.deepEqual(
    { ...conditionOf(res.json, 'Terminating') },
    { ...conditionOf(res.json, 'Terminating'), type: 'Terminating', status: 'True', reason: 'InstanceDeletionPending', message: 'CustomResourceDefinition marked for deletion; CustomResource deletion will begin soon' },
  );

  await gone(t.api, crPath(group, 'crontabs', t.ns, 'one'));
  await gone(t.api, crPath(group, 'crontabs', other, 'two'));
  const waiting = await eventually(async () => {
    const r = await t.api.get(`${CRDS}/${crd.metadata.name}`);
    return conditionOf(r.json, 'Terminating')?.reason === 'InstanceDeletionInProgress' && r.json;
  }, 'the cleanup to be in progress');
  assert.equal(conditionOf(waiting, 'Terminating')?.message, 'CustomResource deletion is in progress');
  // A terminating CRD's resource takes no new objects; the held one is released and the CRD goes.
  assert.equal((await t.api.post(crPath(group, 'crontabs', t.ns), cr(group, 'CronTab', 'late'))).status, 405);
  const r = await removeFinalizers(t.api, crPath(group, 'crontabs', other, held.metadata.name));
  assert.equal(r.status, 200, r.text);
  await gone(t.api, `${CRDS}/${crd.metadata.name}`, 20_000);
});

test('a second CRD of the group asking for a taken kind is refused its names over HTTP too', async () => {
  const group = 'conflict.example.com';
  await establishedCrd(group, 'alphas', 'Alpha');
  const second = await create(t.api, CRDS, crdObject({ group, plural: 'betas', singular: 'beta', kind: 'Alpha', listKind: 'BetaList' }));
  const refused = await eventually(async () => {
    const r = await t.api.get(`${CRDS}/${second.metadata.name}`);
    return conditionOf(r.json, 'NamesAccepted')?.status === 'False' && r.json;
  }, 'NamesAccepted False');
  assert.equal(conditionOf(refused, 'NamesAccepted')?.reason, 'KindConflict');
  assert.equal(conditionOf(refused, 'NamesAccepted')?.message, '"Alpha" is already in use');
  assert.equal(conditionOf(refused, 'Established')?.reason, 'NotAccepted');
  assert.equal((await t.api.get(`/apis/${group}/v1/betas`)).status, 404);
});

test('a custom resource owned by a ConfigMap is garbage collected when the ConfigMap goes', async () => {
  const group = 'owned.example.com';
  await establishedCrd(group, 'widgets', 'Widget');
  const owner = await create(t.api, cmPath(t.ns), configMap(uniqueName('owner')));
  const dep = await create(t.api, crPath(group, 'widgets', t.ns), cr(group, 'Widget', 'dep', { ownerReferences: [ownerRef(owner)] }));
  assert.equal((await t.api.delete(cmPath(t.ns, owner.metadata.name))).status, 200);
  await gone(t.api, crPath(group, 'widgets', t.ns, dep.metadata.name), 20_000);
});

test('a namespace holding custom resources is deleted completely', async () => {
  const group = 'nsdel.example.com';
  await establishedCrd(group, 'gadgets', 'Gadget');
  const ns = await createNamespace(t.api);
  await create(t.api, crPath(group, 'gadgets', ns), cr(group, 'Gadget', 'a'));
  await create(t.api, crPath(group, 'gadgets', ns), cr(group, 'Gadget', 'b'));
  assert.equal((await t.api.delete(`/api/v1/namespaces/${ns}`)).status, 200);
  await gone(t.api, `/api/v1/namespaces/${ns}`, 20_000);
  assert.equal((await t.api.get(crPath(group, 'gadgets', ns, 'a'))).status, 404);
});

test('a ValidatingAdmissionPolicy matches a custom resource by group and resource, and takes a custom resource kind as paramKind', async () => {
  const group = 'policy.example.com';
  await establishedCrd(group, 'limits', 'Limit', 'Cluster');
  await establishedCrd(group, 'boxes', 'Box');
  const limits = `/apis/${group}/v1/limits`;
  await create(t.api, limits, { apiVersion: `${group}/v1`, kind: 'Limit', metadata: { name: 'the-limit' }, spec: { size: 'small' } });
  await install(
    t.api,
    policy('box-size', {
      paramKind: { apiVersion: `${group}/v1`, kind: 'Limit' },
      matchConstraints: { resourceRules: [{ apiGroups: [group], apiVersions: ['v1'], operations: ['CREATE'], resources: ['boxes'] }] },
      validations: [{ expression: 'object.spec.size == params.spec.size', message: 'size must match the limit' }],
    }),
    binding('box-size', 'box-size', { paramRef: { name: 'the-limit', parameterNotFoundAction: 'Deny' } }),
  );
  const refused = await eventually(async () => {
    const r = await t.api.post(crPath(group, 'boxes', t.ns), { ...cr(group, 'Box', uniqueName('big')), spec: { size: 'big' } });
    return r.status === 422 && r;
  }, 'the policy to refuse a box');
  assertStatus(refused, 422, 'Invalid', /ValidatingAdmissionPolicy 'box-size' with binding 'box-size' denied request: size must match the limit$/);
  const fine = await t.api.post(crPath(group, 'boxes', t.ns), cr(group, 'Box', 'small-one'));
  assert.equal(fine.status, 201, fine.text);
});

test('a ValidatingAdmissionPolicy written for one version of a custom resource judges writes through its other versions (matchPolicy Equivalent)', async () => {
  const group = 'equiv.example.com';
  const body = crdObject({ group, plural: 'boats', kind: 'Boat' }) as { metadata: { name: string }; spec: { versions: Record<string, unknown>[] } };
  body.spec.versions.push({ ...body.spec.versions[0], name: 'v2', storage: false });
  const crd = await create(t.api, CRDS, body);
  await eventually(async () => conditionOf((await t.api.get(`${CRDS}/${crd.metadata.name}`)).json, 'Established')?.status === 'True', 'the CRD to be established');
  await eventually(async () => (await t.api.get(`/apis/${group}/v2/boats`)).status === 200, 'v2 to be served');
  await install(
    t.api,
    policy('boat-size', {
      matchConstraints: { resourceRules: [{ apiGroups: [group], apiVersions: ['v1'], operations: ['CREATE'], resources: ['boats'] }] },
      validations: [{ expression: "object.apiVersion == '" + group + "/v1' && object.spec.size == 'small'", message: 'boats are small, seen as v1' }],
    }),
    binding('boat-size', 'boat-size'),
  );
  const v2 = `/apis/${group}/v2/namespaces/${t.ns}/boats`;
  const refused = await eventually(async () => {
    const r = await t.api.post(v2, { apiVersion: `${group}/v2`, kind: 'Boat', metadata: { name: uniqueName('big') }, spec: { size: 'big' } });
    return r.status === 422 && r;
  }, 'the policy to refuse a big boat written as v2');
  assertStatus(refused, 422, 'Invalid', /denied request: boats are small, seen as v1$/);
  const fine = await t.api.post(v2, { apiVersion: `${group}/v2`, kind: 'Boat', metadata: { name: 'small-boat' }, spec: { size: 'small' } });
  assert.equal(fine.status, 201, fine.text);
});
