import assert from 'node:assert/strict';
import { test } from 'node:test';
import { parseRequestInfo } from '../../src/api/request-info.ts';
import { DecisionCache } from '../../src/auth/rbac/decision-cache.ts';
import { rbacAuthorizer } from '../../src/auth/rbac/rbac-authorizer.ts';
import { RbacRuleResolver } from '../../src/auth/rbac/rule-resolver.ts';
import type { UserInfo } from '../../src/auth/user.ts';
import { binding, clusterRole, fakeViews, role } from './rbac-fake-views.ts';

const alice: UserInfo = { name: 'alice', groups: ['dev', 'system:authenticated'] };
const req = (method: string, path: string) => parseRequestInfo(method, path, new URLSearchParams(path.split('?')[1] ?? ''));

function authorizer(...objects: Parameters<typeof fakeViews>[0]) {
  const resolver = new RbacRuleResolver(fakeViews(objects));
  return { authz: rbacAuthorizer(resolver), resolver };
}
const decide = (a: { authz: ReturnType<typeof rbacAuthorizer> }, user: UserInfo, method: string, path: string) =>
  a.authz.authorize({ user, request: req(method, path.split('?')[0]!) }) as { decision: string; reason?: string };

test('a RoleBinding grants its Role in its own namespace only', () => {
  const a = authorizer(role('ns1', 'reader', [{ verbs: ['get', 'list'], apiGroups: [''], resources: ['pods'] }]), binding('ns1', 'rb', 'Role', 'reader', [{ kind: 'User', name: 'alice' }]));
  const allowed = decide(a, alice, 'GET', '/api/v1/namespaces/ns1/pods');
  assert.equal(allowed.decision, 'allow');
  assert.equal(allowed.reason, 'RBAC: allowed by RoleBinding "rb/ns1" of Role "reader" to User "alice"');
  assert.equal(decide(a, alice, 'GET', '/api/v1/namespaces/ns2/pods').decision, 'noOpinion');
  assert.equal(decide(a, alice, 'DELETE', '/api/v1/namespaces/ns1/pods/x').decision, 'noOpinion');
  assert.equal(decide(a, { name: 'bob', groups: [] }, 'GET', '/api/v1/namespaces/ns1/pods').decision, 'noOpinion');
});

test('a RoleBinding to a ClusterRole is scoped to the binding namespace; a ClusterRoleBinding is everywhere', () => {
  const a = authorizer(
    clusterRole('cm-reader', [{ verbs: ['get'], apiGroups: [''], resources: ['configmaps'] }]),
    binding('ns1', 'rb', 'ClusterRole', 'cm-reader', [{ kind: 'Group', name: 'dev' }]),
  );
  assert.equal(decide(a, alice, 'GET', '/api/v1/namespaces/ns1/configmaps/c').decision, 'allow');
  assert.equal(decide(a, alice, 'GET', '/api/v1/namespaces/ns2/configmaps/c').decision, 'noOpinion');
  assert.equal(decide(a, alice, 'GET', '/api/v1/configmaps').decision, 'noOpinion');
  const b = authorizer(
    clusterRole('cm-reader', [{ verbs: ['get'], apiGroups: [''], resources: ['configmaps'] }]),
    binding(undefined, 'crb', 'ClusterRole', 'cm-reader', [{ kind: 'Group', name: 'dev' }]),
  );
  assert.equal(decide(b, alice, 'GET', '/api/v1/namespaces/ns2/configmaps/c').decision, 'allow');
  assert.equal(decide(b, alice, 'GET', '/api/v1/namespaces/ns2/configmaps/c').reason, 'RBAC: allowed by ClusterRoleBinding "crb" of ClusterRole "cm-reader" to Group "dev"');
});

test('resourceNames only match requests naming one of them', () => {
  const a = authorizer(
    clusterRole('one-cm', [{ verbs: ['get', 'list', 'update', 'create'], apiGroups: [''], resources: ['configmaps'], resourceNames: ['mine'] }]),
    binding(undefined, 'crb', 'ClusterRole', 'one-cm', [{ kind: 'User', name: 'alice' }]),
  );
  assert.equal(decide(a, alice, 'GET', '/api/v1/namespaces/d/configmaps/mine').decision, 'allow');
  assert.equal(decide(a, alice, 'PUT', '/api/v1/namespaces/d/configmaps/mine').decision, 'allow');
  assert.equal(decide(a, alice, 'GET', '/api/v1/namespaces/d/configmaps/other').decision, 'noOpinion');
  assert.equal(decide(a, alice, 'GET', '/api/v1/namespaces/d/configmaps').decision, 'noOpinion', 'a list names nothing');
  assert.equal(decide(a, alice, 'POST', '/api/v1/namespaces/d/configmaps').decision, 'noOpinion', 'a create names nothing');
});

test('the decision cache answers every name as the walk over the bindings does, reasons included', () => {
  const objects = [
    clusterRole('a-one-cm', [{ verbs: ['get'], apiGroups: [''], resources: ['configmaps'], resourceNames: ['mine'] }]),
    binding(undefined, 'a-crb', 'ClusterRole', 'a-one-cm', [{ kind: 'User', name: 'alice' }]),
    clusterRole('b-all-cm', [{ verbs: ['get'], apiGroups: [''], resources: ['configmaps'] }]),
    binding(undefined, 'b-crb', 'ClusterRole', 'b-all-cm', [{ kind: 'Group', name: 'dev' }]),
    clusterRole('c-one-secret', [{ verbs: ['get'], apiGroups: [''], resources: ['secrets'], resourceNames: ['s1'] }]),
    binding(undefined, 'c-crb', 'ClusterRole', 'c-one-secret', [{ kind: 'User', name: 'alice' }]),
  ];
  const plain = authorizer(...objects);
  const cached = { authz: rbacAuthorizer(new RbacRuleResolver(fakeViews(objects)), new DecisionCache()) };
  const paths = ['configmaps/other', 'configmaps/mine', 'configmaps/third', 'configmaps/mine', 'secrets/s2', 'secrets/s1', 'secrets/s2', 'secrets/s1'];
  for (const user of [alice, { name: 'bob', groups: ['dev'] }]) {
    for (const p of paths) {
      const path = `/api/v1/namespaces/d/${p}`;
      assert.deepEqual(decide(cached, user, 'GET', path), decide(plain, user, 'GET', path), `${user.name} ${p}`);
    }
  }
  assert.match(decide(cached, alice, 'GET', '/api/v1/namespaces/d/configmaps/mine').reason ?? '', /a-crb/);
});

test('subresources: exact, */subresource and * ; pods does not cover pods/log', () => {
  const a = authorizer(
    clusterRole('r', [
      { verbs: ['get'], apiGroups: [''], resources: ['pods', 'pods/log'] },
      { verbs: ['update'], apiGroups: ['apps'], resources: ['*/scale'] },
    ]),
    binding(undefined, 'crb', 'ClusterRole', 'r', [{ kind: 'User', name: 'alice' }]),
  );
  assert.equal(decide(a, alice, 'GET', '/api/v1/namespaces/d/pods/p/log').decision, 'allow');
  assert.equal(decide(a, alice, 'GET', '/api/v1/namespaces/d/pods/p/status').decision, 'noOpinion');
  assert.equal(decide(a, alice, 'PUT', '/apis/apps/v1/namespaces/d/deployments/x/scale').decision, 'allow');
  assert.equal(decide(a, alice, 'PUT', '/apis/apps/v1/namespaces/d/deployments/x').decision, 'noOpinion');
  assert.equal(decide(a, alice, 'PUT', '/api/v1/namespaces/d/replicationcontrollers/x/scale').decision, 'noOpinion', 'wrong group');
  const star = authorizer(clusterRole('all', [{ verbs: ['*'], apiGroups: ['*'], resources: ['*'] }]), binding(undefined, 'crb', 'ClusterRole', 'all', [{ kind: 'User', name: 'alice' }]));
  assert.equal(decide(star, alice, 'DELETE', '/apis/apps/v1/namespaces/d/deployments/x/scale').decision, 'allow');
  assert.equal(decide(star, alice, 'GET', '/healthz').decision, 'noOpinion', 'resource rules never match paths');
});

test('nonResourceURLs match exactly or by a * suffix, with the lowercase method as verb', () => {
  const a = authorizer(
    clusterRole('urls', [{ verbs: ['get'], nonResourceURLs: ['/healthz', '/logs/*'] }]),
    binding(undefined, 'crb', 'ClusterRole', 'urls', [{ kind: 'User', name: 'alice' }]),
  );
  assert.equal(decide(a, alice, 'GET', '/healthz').decision, 'allow');
  assert.equal(decide(a, alice, 'GET', '/healthz/ping').decision, 'noOpinion');
  assert.equal(decide(a, alice, 'GET', '/logs/a/b').decision, 'allow');
  assert.equal(decide(a, alice, 'POST', '/logs/a').decision, 'noOpinion');
});

test('service account subjects: namespace defaults to the RoleBinding namespace; none on a ClusterRoleBinding never matches', () => {
  const sa: UserInfo = { name: 'system:serviceaccount:ns1:builder', groups: ['system:serviceaccounts', 'system:serviceaccounts:ns1', 'system:authenticated'] };
  const r = clusterRole('r', [{ verbs: ['list'], apiGroups: [''], resources: ['secrets'] }]);
  const local = authorizer(r, binding('ns1', 'rb', 'ClusterRole', 'r', [{ kind: 'ServiceAccount', name: 'builder' }]));
  assert.equal(decide(local, sa, 'GET', '/api/v1/namespaces/ns1/secrets').decision, 'allow');
  const qualified = authorizer(r, binding(undefined, 'crb', 'ClusterRole', 'r', [{ kind: 'ServiceAccount', name: 'builder', namespace: 'ns1' }]));
  assert.equal(decide(qualified, sa, 'GET', '/api/v1/namespaces/other/secrets').reason, 'RBAC: allowed by ClusterRoleBinding "crb" of ClusterRole "r" to ServiceAccount "ns1/builder"');
  const unqualified = authorizer(r, binding(undefined, 'crb', 'ClusterRole', 'r', [{ kind: 'ServiceAccount', name: 'builder' }]));
  assert.equal(decide(unqualified, sa, 'GET', '/api/v1/namespaces/ns1/secrets').decision, 'noOpinion');
  const group = authorizer(r, binding(undefined, 'crb', 'ClusterRole', 'r', [{ kind: 'Group', name: 'system:serviceaccounts:ns1' }]));
  assert.equal(decide(group, sa, 'GET', '/api/v1/namespaces/x/secrets').decision, 'allow');
});

test('a binding to a missing role is no opinion with upstream reason; other bindings still count', () => {
  const a = authorizer(binding(undefined, 'crb', 'ClusterRole', 'x', [{ kind: 'User', name: 'alice' }]), binding('ns1', 'rb', 'Role', 'gone', [{ kind: 'User', name: 'alice' }]));
  assert.deepEqual(decide(a, alice, 'GET', '/api/v1/namespaces/default/pods'), { decision: 'noOpinion', reason: 'RBAC: clusterrole.rbac.authorization.k8s.io "x" not found' });
  assert.deepEqual(decide(a, alice, 'GET', '/api/v1/namespaces/ns1/pods'), {
    decision: 'noOpinion',
    reason: 'RBAC: [clusterrole.rbac.authorization.k8s.io "x" not found, role.rbac.authorization.k8s.io "gone" not found]',
  });
  assert.deepEqual(decide(authorizer(), alice, 'GET', '/api/v1/pods'), { decision: 'noOpinion' });
});

test('rulesFor lists every rule that applies, split as SelfSubjectRulesReview shows them, with errors', async () => {
  const { resolver } = authorizer(
    clusterRole('c', [{ verbs: ['get'], apiGroups: [''], resources: ['nodes'] }, { verbs: ['get'], nonResourceURLs: ['/metrics'] }]),
    role('ns1', 'r', [{ verbs: ['list'], apiGroups: ['apps'], resources: ['deployments'], resourceNames: ['d'] }]),
    binding(undefined, 'crb', 'ClusterRole', 'c', [{ kind: 'Group', name: 'dev' }]),
    binding('ns1', 'rb', 'Role', 'r', [{ kind: 'User', name: 'alice' }]),
    binding('ns1', 'rb2', 'Role', 'missing', [{ kind: 'User', name: 'alice' }]),
  );
  const rules = await resolver.rulesFor(alice, 'ns1');
  assert.deepEqual(rules, {
    resourceRules: [
      { verbs: ['get'], apiGroups: [''], resources: ['nodes'], resourceNames: [] },
      { verbs: ['list'], apiGroups: ['apps'], resources: ['deployments'], resourceNames: ['d'] },
    ],
    nonResourceRules: [{ verbs: ['get'], nonResourceURLs: ['/metrics'] }],
    incomplete: false,
    evaluationError: 'role.rbac.authorization.k8s.io "missing" not found',
  });
  assert.equal((await resolver.rulesFor(alice, 'ns2')).resourceRules.length, 1);
});
