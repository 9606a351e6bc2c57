import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { bootstrapPolicyObjects, reconcile, seedRbacBootstrapPolicy } from '../../seeds/rbac-bootstrap-policy.ts';
import type { StoredKubeObject } from '../../src/api/types.ts';
import { builtinKinds } from '../../src/kinds/index.ts';
import { openTestRegistry, testContext, type TestRegistry } from '../helpers/registry.ts';

let reg: TestRegistry;
before(async () => {
  reg = await openTestRegistry();
});
after(async () => {
  await reg.close();
});

const G = 'rbac.authorization.k8s.io';

test('several replicas seeding at once all succeed and create each object once', async () => {
  const results = await Promise.all([seedRbacBootstrapPolicy(reg.storage, builtinKinds), seedRbacBootstrapPolicy(reg.storage, builtinKinds), seedRbacBootstrapPolicy(reg.storage, builtinKinds)]);
  const expected = bootstrapPolicyObjects().reduce((n, g) => n + g.objects.length, 0);
  assert.equal(results.flat().filter((c) => c.startsWith('created')).length, expected);
  // A later start changes nothing.
  assert.deepEqual(await seedRbacBootstrapPolicy(reg.storage, builtinKinds), []);
});

test('reconciliation appends lost rules and subjects, keeps extra ones, and adds missing labels', () => {
  const [roles, bindings] = bootstrapPolicyObjects();
  const discovery = roles!.objects.find((o) => o.metadata?.name === 'system:discovery')!;
  const stored = { ...structuredClone(discovery), metadata: { name: 'system:discovery', uid: 'u', resourceVersion: '1', labels: { mine: 'x' } }, rules: [{ verbs: ['get'], nonResourceURLs: ['/extra'] }] } as StoredKubeObject;
  const next = reconcile(stored, discovery) as typeof stored;
  assert.deepEqual(next.rules, [{ verbs: ['get'], nonResourceURLs: ['/extra'] }, ...(discovery.rules as unknown[])]);
  assert.deepEqual(next.metadata.labels, { mine: 'x', 'kubernetes.io/bootstrapping': 'rbac-defaults' });
  assert.equal(reconcile(next as StoredKubeObject, discovery), undefined, 'nothing more to do');
  const basic = bindings!.objects.find((o) => o.metadata?.name === 'system:basic-user')!;
  const extra = { kind: 'User', apiGroup: G, name: 'someone' };
  const b = reconcile({ ...structuredClone(basic), metadata: { ...basic.metadata!, name: 'system:basic-user', uid: 'u', resourceVersion: '1' }, subjects: [extra] } as StoredKubeObject, basic) as { subjects: unknown[] };
  assert.deepEqual(b.subjects, [extra, ...(basic.subjects as unknown[])]);
});

test('a role an administrator marked autoupdate=false is not reconciled', async () => {
  const store = reg.store('clusterroles', G);
  await store.update(testContext(), '', 'system:public-info-viewer', {
    build: (cur) => ({ ...cur!, metadata: { ...cur!.metadata, annotations: { 'rbac.authorization.kubernetes.io/autoupdate': 'false' } }, rules: [] }),
  });
  assert.deepEqual(await seedRbacBootstrapPolicy(reg.storage, builtinKinds), []);
  assert.deepEqual((await store.get(testContext(), '', 'system:public-info-viewer')).object.rules, []);
  await store.update(testContext(), '', 'system:basic-user', { build: (cur) => ({ ...cur!, rules: [] }) });
  assert.deepEqual(await seedRbacBootstrapPolicy(reg.storage, builtinKinds), ['updated clusterroles/system:basic-user']);
});
