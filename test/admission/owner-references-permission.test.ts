/**
 * OwnerReferencesPermissionEnforcement, enabled by flag: setting ownerReferences needs delete on the
 * object, making one block its owner's deletion needs update on the owner's finalizers. Off by
 * default, as in kube-apiserver.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { admissionPluginNames } from '../../src/admission/index.ts';
import { assertStatus, configMap, create, uniqueName } from '../helpers/fixtures.ts';
import { serveFile } from '../helpers/server.ts';

const RBAC = '/apis/rbac.authorization.k8s.io/v1';
const t = serveFile(['--enable-admission-plugins=OwnerReferencesPermissionEnforcement']);

/** Headers that make the admin act as `user` (impersonation). */
const as = (user: string) => ({ 'Impersonate-User': user });

async function grant(user: string, rules: unknown[]): Promise<void> {
  const name = uniqueName('role');
  await create(t.api, `${RBAC}/namespaces/${t.ns}/roles`, { metadata: { name }, rules });
  await create(t.api, `${RBAC}/namespaces/${t.ns}/rolebindings`, {
    metadata: { name },
    roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'Role', name },
    subjects: [{ kind: 'User', apiGroup: 'rbac.authorization.k8s.io', name: user }],
  });
}

/** POSTs until RBAC's informers have caught up with the bindings (the status is not 403 for want of the base rule). */
async function post(path: string, body: unknown, user: string, until: (status: number, message: string) => boolean) {
  for (let i = 0; ; i++) {
    const res = await t.api.post(path, body, as(user));
    if (until(res.status, res.json?.message ?? '') || i > 60) return res;
    await new Promise((r) => setTimeout(r, 50));
  }
}

test('the plugin is off unless named', () => {
  assert.ok(!admissionPluginNames([], []).includes('OwnerReferencesPermissionEnforcement'));
  assert.ok(admissionPluginNames(['OwnerReferencesPermissionEnforcement'], []).includes('OwnerReferencesPermissionEnforcement'));
});

test('an owner reference needs delete on the object; a blocking one needs update on the owner\'s finalizers', async () => {
  const owner = await create(t.api, `/api/v1/namespaces/${t.ns}/configmaps`, configMap(uniqueName('owner')));
  const ref = { apiVersion: 'v1', kind: 'ConfigMap', name: owner.metadata.name, uid: owner.metadata.uid };
  const path = `/api/v1/namespaces/${t.ns}/configmaps`;
  const body = (name: string, blockOwnerDeletion?: boolean) => ({ metadata: { name, ownerReferences: [{ ...ref, ...(blockOwnerDeletion !== undefined ? { blockOwnerDeletion } : {}) }] } });

  // May create configmaps, not delete them.
  await grant('creator', [{ apiGroups: [''], resources: ['configmaps'], verbs: ['create', 'get'] }]);
  // (Until RBAC sees the binding, the create itself is refused.)
  const noDelete = await post(path, body('c1'), 'creator', (_s, m) => /can't delete/.test(m));
  assertStatus(noDelete, 403, 'Forbidden', 'configmaps "c1" is forbidden: cannot set an ownerRef on a resource you can\'t delete: , <nil>');
  assert.equal((await t.api.post(path, { metadata: { name: 'plain' } }, as('creator'))).status, 201, 'no owner reference, no check');

  // May delete configmaps too: a non-blocking reference is fine, a blocking one is not.
  await grant('deleter', [{ apiGroups: [''], resources: ['configmaps'], verbs: ['create', 'get', 'delete', 'update'] }]);
  const ok = await post(path, body('d1', false), 'deleter', (s) => s === 201);
  assert.equal(ok.status, 201, ok.text);
  assertStatus(
    await t.api.post(path, body('d2', true), as('deleter')),
    403,
    'Forbidden',
    'configmaps "d2" is forbidden: cannot set blockOwnerDeletion if an ownerReference refers to a resource you can\'t set finalizers on: , <nil>',
  );
  // Turning blocking on in an update is checked the same way; leaving it as it was is not.
  const current = (await t.api.get(`${path}/d1`)).json;
  const blocked = { ...current, metadata: { ...current.metadata, ownerReferences: [{ ...ref, blockOwnerDeletion: true }] } };
  assertStatus(await t.api.put(`${path}/d1`, blocked, as('deleter')), 403, 'Forbidden', /can't set finalizers on/);
  assert.equal((await t.api.put(`${path}/d1`, { ...current, data: { k: 'v' } }, as('deleter'))).status, 200);

  // With update on configmaps/finalizers, blocking references may be set.
  await grant('finalizer', [
    { apiGroups: [''], resources: ['configmaps'], verbs: ['create', 'get', 'delete'] },
    { apiGroups: [''], resources: ['configmaps/finalizers'], verbs: ['update'] },
  ]);
  const allowed = await post(path, body('f1', true), 'finalizer', (s) => s === 201);
  assert.equal(allowed.status, 201, allowed.text);

  // An owner kind no served resource has cannot be checked (upstream's message carries the delete check's reason).
  const unknown = { metadata: { name: 'u1', ownerReferences: [{ apiVersion: 'example.com/v1', kind: 'Widget', name: 'w', uid: 'u', blockOwnerDeletion: true }] } };
  assertStatus(
    await t.api.post(path, unknown, as('finalizer')),
    403,
    'Forbidden',
    /^configmaps "u1" is forbidden: cannot set blockOwnerDeletion in this case because cannot find RESTMapping for APIVersion example.com\/v1 Kind Widget: RBAC: allowed by RoleBinding "[^"]+" of Role "[^"]+" to User "finalizer", no matches for kind "Widget" in version "example.com\/v1"$/,
  );
  // The server's own work (an admin here is system:masters, allowed everything) passes.
  assert.equal((await t.api.post(path, body('admin', true))).status, 201);
});
