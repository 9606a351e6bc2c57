import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { bootstrapPolicyObjects, reconcile, seedRbacBootstrapPolicy } from '../../seeds/rbac-bootstrap-policy.ts';
import type { StoredKubeObject } from '../../src/api/types.ts';
import type { KubeObject } from '../../src/api/types.ts';
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

// Kubernetes 1.34's bootstrap policy by name, as upstream's golden files (bootstrappolicy/testdata) list it.
const UPSTREAM_CLUSTER_ROLES = [
  'admin', 'cluster-admin', 'edit', 'system:aggregate-to-admin', 'system:aggregate-to-edit',
  'system:aggregate-to-view', 'system:auth-delegator', 'system:basic-user',
  'system:certificates.k8s.io:certificatesigningrequests:nodeclient',
  'system:certificates.k8s.io:certificatesigningrequests:selfnodeclient',
  'system:certificates.k8s.io:kube-apiserver-client-approver',
  'system:certificates.k8s.io:kube-apiserver-client-kubelet-approver',
  'system:certificates.k8s.io:kubelet-serving-approver',
  'system:certificates.k8s.io:legacy-unknown-approver', 'system:discovery', 'system:heapster',
  'system:kube-aggregator', 'system:kube-controller-manager', 'system:kube-dns', 'system:kube-scheduler',
  'system:kubelet-api-admin', 'system:monitoring', 'system:node', 'system:node-bootstrapper',
  'system:node-problem-detector', 'system:node-proxier', 'system:persistent-volume-provisioner',
  'system:public-info-viewer', 'system:service-account-issuer-discovery', 'system:volume-scheduler', 'view',
];
const UPSTREAM_CONTROLLERS = [
  'attachdetach-controller', 'certificate-controller', 'clusterrole-aggregation-controller',
  'cronjob-controller', 'daemon-set-controller', 'deployment-controller', 'disruption-controller',
  'endpoint-controller', 'endpointslice-controller', 'endpointslicemirroring-controller',
  'ephemeral-volume-controller', 'expand-controller', 'generic-garbage-collector',
  'horizontal-pod-autoscaler', 'job-controller', 'legacy-service-account-token-cleaner',
  'namespace-controller', 'node-controller', 'persistent-volume-binder', 'pod-garbage-collector',
  'pv-protection-controller', 'pvc-protection-controller', 'replicaset-controller', 'replication-controller',
  'resource-claim-controller', 'resourcequota-controller', 'root-ca-cert-publisher', 'route-controller',
  'selinux-warning-controller', 'service-account-controller', 'service-cidrs-controller',
  'service-controller', 'statefulset-controller', 'ttl-after-finished-controller', 'ttl-controller',
  'validatingadmissionpolicy-status-controller', 'volumeattributesclass-protection-controller',
].map((c) => `system:controller:${c}`);
const UPSTREAM_CLUSTER_ROLE_BINDINGS = [
  'cluster-admin', 'system:basic-user', 'system:discovery', 'system:kube-controller-manager',
  'system:kube-dns', 'system:kube-scheduler', 'system:monitoring', 'system:node', 'system:node-proxier',
  'system:public-info-viewer', 'system:service-account-issuer-discovery', 'system:volume-scheduler',
];
const UPSTREAM_ROLES = [
  'kube-public/system:controller:bootstrap-signer', 'kube-system/extension-apiserver-authentication-reader',
  'kube-system/system::leader-locking-kube-controller-manager', 'kube-system/system::leader-locking-kube-scheduler',
  'kube-system/system:controller:bootstrap-signer', 'kube-system/system:controller:cloud-provider',
  'kube-system/system:controller:token-cleaner',
];
const UPSTREAM_ROLE_BINDINGS = [
  'kube-public/system:controller:bootstrap-signer', 'kube-system/system::extension-apiserver-authentication-reader',
  'kube-system/system::leader-locking-kube-controller-manager', 'kube-system/system::leader-locking-kube-scheduler',
  'kube-system/system:controller:bootstrap-signer', 'kube-system/system:controller:cloud-provider',
  'kube-system/system:controller:token-cleaner',
];

type Rbac = KubeObject & { rules?: unknown[]; subjects?: unknown[]; roleRef?: unknown };

async function listAll(plural: string): Promise<Rbac[]> {
  const page = await reg.store(plural, G).list(testContext(), undefined, { watch: false, allowWatchBookmarks: false });
  return page.items.map((i) => JSON.parse(i) as Rbac);
}
const qualified = (o: KubeObject) => (o.metadata?.namespace ? `${o.metadata.namespace}/${o.metadata.name}` : o.metadata!.name!);
const namesOf = (objs: KubeObject[]) => objs.map(qualified).sort();
const sorted = (names: string[]) => [...names].sort();
const R = (apiGroups: string[], resources: string[], verbs: string[], resourceNames?: string[]) => ({
  apiGroups,
  ...(resourceNames ? { resourceNames } : {}),
  resources,
  verbs,
});

test('several replicas seeding at once all succeed and create each object once', async () => {
  const results = await Promise.all([seedRbacBootstrapPolicy(reg.storage, builtinKinds), seedRbacBootstrapPolicy(reg.storage, builtinKinds), seedRbacBootstrapPolicy(reg.storage, builtinKinds)]);
  const expected = bootstrapPolicyObjects().reduce((n, g) => n + g.objects.length, 0);
  assert.equal(results.flat().filter((c) => c.startsWith('created')).length, expected);
  // A later start changes nothing.
  assert.deepEqual(await seedRbacBootstrapPolicy(reg.storage, builtinKinds), []);
});

test('the seed creates every role and binding of upstream 1.34, and nothing else', async () => {
  assert.deepEqual(namesOf(await listAll('clusterroles')), sorted([...UPSTREAM_CLUSTER_ROLES, ...UPSTREAM_CONTROLLERS]));
  assert.deepEqual(namesOf(await listAll('clusterrolebindings')), sorted([...UPSTREAM_CLUSTER_ROLE_BINDINGS, ...UPSTREAM_CONTROLLERS]));
  assert.deepEqual(namesOf(await listAll('roles')), sorted(UPSTREAM_ROLES));
  assert.deepEqual(namesOf(await listAll('rolebindings')), sorted(UPSTREAM_ROLE_BINDINGS));
  assert.deepEqual(
    bootstrapPolicyObjects().map((g) => [g.resource, g.objects.length]),
    [['clusterroles', 68], ['clusterrolebindings', 49], ['roles', 7], ['rolebindings', 7]],
  );
});

test('every seeded object carries the bootstrapping label and the autoupdate annotation', async () => {
  for (const plural of ['clusterroles', 'clusterrolebindings', 'roles', 'rolebindings']) {
    for (const o of await listAll(plural)) {
      assert.equal(o.metadata?.labels?.['kubernetes.io/bootstrapping'], 'rbac-defaults', `${plural}/${qualified(o)}`);
      assert.deepEqual(o.metadata?.annotations, { 'rbac.authorization.kubernetes.io/autoupdate': 'true' }, `${plural}/${qualified(o)}`);
    }
  }
  const roles = new Map((await listAll('clusterroles')).map((r) => [r.metadata!.name!, r]));
  const aggregateLabels = (name: string) =>
    Object.keys(roles.get(name)!.metadata!.labels!).filter((k) => k.startsWith(`${G}/aggregate-to-`));
  assert.deepEqual(aggregateLabels('system:aggregate-to-admin'), [`${G}/aggregate-to-admin`]);
  assert.deepEqual(aggregateLabels('system:aggregate-to-edit'), [`${G}/aggregate-to-edit`]);
  assert.deepEqual(aggregateLabels('system:aggregate-to-view'), [`${G}/aggregate-to-view`]);
  assert.deepEqual(aggregateLabels('edit'), [`${G}/aggregate-to-admin`]);
  assert.deepEqual(aggregateLabels('view'), [`${G}/aggregate-to-edit`]);
  assert.deepEqual(aggregateLabels('admin'), []);
  assert.deepEqual((roles.get('view') as { aggregationRule?: unknown }).aggregationRule, {
    clusterRoleSelectors: [{ matchLabels: { [`${G}/aggregate-to-view`]: 'true' } }],
  });
});

test('system:node holds exactly upstream 1.34 rules, in order', async () => {
  const { object } = await reg.store('clusterroles', G).get(testContext(), '', 'system:node');
  assert.deepEqual((object as Rbac).rules, [
    R(['authentication.k8s.io'], ['tokenreviews'], ['create']),
    R(['authorization.k8s.io'], ['localsubjectaccessreviews', 'subjectaccessreviews'], ['create']),
    R([''], ['services'], ['get', 'list', 'watch']),
    R([''], ['nodes'], ['create', 'get', 'list', 'watch']),
    R([''], ['nodes/status'], ['patch', 'update']),
    R([''], ['nodes'], ['patch', 'update']),
    R([''], ['events'], ['create', 'patch', 'update']),
    R([''], ['pods'], ['get', 'list', 'watch']),
    R([''], ['pods'], ['create', 'delete']),
    R([''], ['pods/status'], ['patch', 'update']),
    R([''], ['pods/eviction'], ['create']),
    R([''], ['configmaps', 'secrets'], ['get', 'list', 'watch']),
    R([''], ['persistentvolumeclaims', 'persistentvolumes'], ['get']),
    R([''], ['endpoints'], ['get']),
    R(['certificates.k8s.io'], ['certificatesigningrequests'], ['create', 'get', 'list', 'watch']),
    R(['coordination.k8s.io'], ['leases'], ['create', 'delete', 'get', 'patch', 'update']),
    R(['storage.k8s.io'], ['volumeattachments'], ['get']),
    R([''], ['serviceaccounts/token'], ['create']),
    R([''], ['persistentvolumeclaims/status'], ['get', 'patch', 'update']),
    R(['storage.k8s.io'], ['csidrivers'], ['get', 'list', 'watch']),
    R(['storage.k8s.io'], ['csinodes'], ['create', 'delete', 'get', 'patch', 'update']),
    R(['node.k8s.io'], ['runtimeclasses'], ['get', 'list', 'watch']),
    R(['resource.k8s.io'], ['resourceclaims'], ['get']),
    R(['resource.k8s.io'], ['resourceslices'], ['deletecollection']),
    R([''], ['serviceaccounts'], ['get']),
  ]);
});

test('system:aggregate-to-edit holds exactly upstream 1.34 rules, in order', async () => {
  const { object } = await reg.store('clusterroles', G).get(testContext(), '', 'system:aggregate-to-edit');
  const write = ['create', 'delete', 'deletecollection', 'patch', 'update'];
  assert.deepEqual((object as Rbac).rules, [
    R([''], ['pods/attach', 'pods/exec', 'pods/portforward', 'pods/proxy', 'secrets', 'services/proxy'], ['get', 'list', 'watch']),
    R([''], ['serviceaccounts'], ['impersonate']),
    R([''], ['pods', 'pods/attach', 'pods/exec', 'pods/portforward', 'pods/proxy'], write),
    R([''], ['pods/eviction'], ['create']),
    R(
      [''],
      ['configmaps', 'events', 'persistentvolumeclaims', 'replicationcontrollers', 'replicationcontrollers/scale', 'secrets', 'serviceaccounts', 'services', 'services/proxy'],
      write,
    ),
    R([''], ['serviceaccounts/token'], ['create']),
    R(['apps'], ['daemonsets', 'deployments', 'deployments/rollback', 'deployments/scale', 'replicasets', 'replicasets/scale', 'statefulsets', 'statefulsets/scale'], write),
    R(['autoscaling'], ['horizontalpodautoscalers'], write),
    R(['batch'], ['cronjobs', 'jobs'], write),
    R(
      ['extensions'],
      ['daemonsets', 'deployments', 'deployments/rollback', 'deployments/scale', 'ingresses', 'networkpolicies', 'replicasets', 'replicasets/scale', 'replicationcontrollers/scale'],
      write,
    ),
    R(['policy'], ['poddisruptionbudgets'], write),
    R(['networking.k8s.io'], ['ingresses', 'networkpolicies'], write),
    R(['coordination.k8s.io'], ['leases'], ['create', 'delete', 'deletecollection', 'get', 'list', 'patch', 'update', 'watch']),
    R(['resource.k8s.io'], ['resourceclaims', 'resourceclaimtemplates'], write),
  ]);
});

test('kube-public holds the bootstrap signer Role and its binding to kube-system/bootstrap-signer', async () => {
  const role = (await reg.store('roles', G).get(testContext(), 'kube-public', 'system:controller:bootstrap-signer')).object as Rbac;
  assert.deepEqual(role.rules, [
    R([''], ['configmaps'], ['get', 'list', 'watch']),
    R([''], ['configmaps'], ['update'], ['cluster-info']),
    R(['', 'events.k8s.io'], ['events'], ['create', 'patch', 'update']),
  ]);
  const binding = (await reg.store('rolebindings', G).get(testContext(), 'kube-public', 'system:controller:bootstrap-signer')).object as Rbac;
  assert.deepEqual(binding.roleRef, { apiGroup: G, kind: 'Role', name: 'system:controller:bootstrap-signer' });
  assert.deepEqual(binding.subjects, [{ kind: 'ServiceAccount', name: 'bootstrap-signer', namespace: 'kube-system' }]);
});

test('controller roles are bound to their service accounts in kube-system; system:node has no subjects', async () => {
  const bindings = new Map((await listAll('clusterrolebindings')).map((b) => [b.metadata!.name!, b]));
  for (const name of UPSTREAM_CONTROLLERS) {
    const b = bindings.get(name)!;
    assert.deepEqual(b.roleRef, { apiGroup: G, kind: 'ClusterRole', name });
    assert.deepEqual(b.subjects, [{ kind: 'ServiceAccount', name: name.slice('system:controller:'.length), namespace: 'kube-system' }]);
  }
  assert.equal(bindings.get('system:node')!.subjects, undefined);
  assert.deepEqual(bindings.get('system:kube-dns')!.subjects, [{ kind: 'ServiceAccount', name: 'kube-dns', namespace: 'kube-system' }]);
});

test('seeding again puts back a deleted namespaced Role and the rules a controller role lost', async () => {
  await reg.store('roles', G).delete(testContext(), 'kube-system', 'system:controller:token-cleaner', { dryRun: false });
  await reg.store('clusterroles', G).update(testContext(), '', 'system:controller:ttl-controller', {
    build: (cur) => ({ ...cur!, rules: [] }) as never,
  });
  assert.deepEqual(sorted(await seedRbacBootstrapPolicy(reg.storage, builtinKinds)), [
    'created roles/kube-system/system:controller:token-cleaner',
    'updated clusterroles/system:controller:ttl-controller',
  ]);
  const ttl = (await reg.store('clusterroles', G).get(testContext(), '', 'system:controller:ttl-controller')).object as Rbac;
  assert.deepEqual(ttl.rules, [R([''], ['nodes'], ['list', 'patch', 'update', 'watch']), R(['', 'events.k8s.io'], ['events'], ['create', 'patch', 'update'])]);
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
