import assert from 'node:assert/strict';
import { test } from 'node:test';
import { covers, compactRule } from '../../src/auth/rbac/covers.ts';
import { escalationMessage, onlyGcFieldsChanged } from '../../src/auth/rbac/escalation.ts';
import { RbacRuleResolver } from '../../src/auth/rbac/rule-resolver.ts';
import { binding, clusterRole, fakeViews } from './rbac-fake-views.ts';

test('covers breaks the asked rules down and reports what is missing', () => {
  const owned = [{ verbs: ['get', 'list'], apiGroups: [''], resources: ['pods', '*/status'] }];
  assert.equal(covers(owned, [{ verbs: ['get'], apiGroups: [''], resources: ['pods', 'services/status'] }]).covered, true);
  const { covered, missing } = covers(owned, [{ verbs: ['get', 'delete'], apiGroups: [''], resources: ['pods'] }]);
  assert.equal(covered, false);
  assert.deepEqual(missing, [{ verbs: ['delete'], apiGroups: [''], resources: ['pods'] }]);
  // A rule limited to names does not cover an unlimited one, but covers those names.
  const named = [{ verbs: ['get'], apiGroups: [''], resources: ['pods'], resourceNames: ['a'] }];
  assert.equal(covers(named, [{ verbs: ['get'], apiGroups: [''], resources: ['pods'] }]).covered, false);
  assert.equal(covers(named, [{ verbs: ['get'], apiGroups: [''], resources: ['pods'], resourceNames: ['a'] }]).covered, true);
  assert.equal(covers([{ verbs: ['get'], nonResourceURLs: ['/logs/*'] }], [{ verbs: ['get'], nonResourceURLs: ['/logs/x'] }]).covered, true);
  assert.equal(covers([{ verbs: ['*'], apiGroups: ['*'], resources: ['*'] }, { verbs: ['*'], nonResourceURLs: ['*'] }], [{ verbs: ['x'], nonResourceURLs: ['/y'] }]).covered, true);
});

test('compactRule prints the non-empty fields as upstream CompactString', () => {
  assert.equal(compactRule({ verbs: ['get'], apiGroups: [''], resources: ['pods'] }), '{APIGroups:[""], Resources:["pods"], Verbs:["get"]}');
  assert.equal(compactRule({ verbs: ['get'], nonResourceURLs: ['/x'] }), '{NonResourceURLs:["/x"], Verbs:["get"]}');
});

test('escalationMessage names the user, groups and each missing rule once, sorted', () => {
  const resolver = new RbacRuleResolver(
    fakeViews([clusterRole('r', [{ verbs: ['list'], apiGroups: [''], resources: ['pods'] }]), binding(undefined, 'b', 'ClusterRole', 'r', [{ kind: 'Group', name: 'dev' }])]),
  );
  const alice = { name: 'alice', groups: ['dev', 'system:authenticated'] };
  assert.equal(escalationMessage(resolver, alice, 'default', [{ verbs: ['list'], apiGroups: [''], resources: ['pods'] }]), undefined);
  assert.equal(
    escalationMessage(resolver, alice, 'default', [{ verbs: ['get', 'list'], apiGroups: [''], resources: ['pods', 'configmaps'] }]),
    'user "alice" (groups=["dev" "system:authenticated"]) is attempting to grant RBAC permissions not currently held:\n' +
      '{APIGroups:[""], Resources:["configmaps"], Verbs:["get"]}\n{APIGroups:[""], Resources:["configmaps"], Verbs:["list"]}\n{APIGroups:[""], Resources:["pods"], Verbs:["get"]}',
  );
});

test('an update touching only owner references and finalizers is not checked', () => {
  const old = { apiVersion: 'v1', kind: 'Role', metadata: { name: 'r', resourceVersion: '1' }, rules: [] };
  assert.equal(onlyGcFieldsChanged({ ...old, metadata: { ...old.metadata, finalizers: ['x'] } }, old), true);
  assert.equal(onlyGcFieldsChanged({ ...old, metadata: { ...old.metadata, labels: { a: 'b' } } }, old), false);
});

test('the kinds refuse escalation in authorizeWrite, and let escalate, bind, system:masters and the server through', async () => {
  const { roles } = await import('../../src/kinds/role.ts');
  const { roleBindings } = await import('../../src/kinds/role-binding.ts');
  const { systemContext } = await import('../../src/api/request-context.ts');
  const { rbacAuthorizer } = await import('../../src/auth/rbac/rbac-authorizer.ts');
  const { chainAccessChecker } = await import('../../src/auth/authz/chain.ts');
  const { privilegedGroupAuthorizer } = await import('../../src/auth/authz/builtin-authorizers.ts');
  const { ApiError } = await import('../../src/api/errors.ts');
  const objects = [
    clusterRole('cm', [{ verbs: ['list'], apiGroups: [''], resources: ['configmaps'] }]),
    clusterRole('powers', [
      { verbs: ['escalate'], apiGroups: ['rbac.authorization.k8s.io'], resources: ['roles'], resourceNames: ['big'] },
      { verbs: ['bind'], apiGroups: ['rbac.authorization.k8s.io'], resources: ['clusterroles'], resourceNames: ['cluster-admin'] },
    ]),
    binding(undefined, 'b', 'ClusterRole', 'cm', [{ kind: 'User', name: 'alice' }]),
    binding('ns1', 'p', 'ClusterRole', 'powers', [{ kind: 'User', name: 'alice' }]),
    clusterRole('cluster-admin', [{ verbs: ['*'], apiGroups: ['*'], resources: ['*'] }]),
  ];
  const resolver = new RbacRuleResolver(fakeViews(objects));
  const auth = { access: chainAccessChecker([privilegedGroupAuthorizer, rbacAuthorizer(resolver)]), rules: resolver, rbacRules: resolver, apiAudiences: [] };
  const alice = { ...systemContext({ user: { name: 'alice', groups: ['system:authenticated'] } }), auth };
  const role = (name: string, resources: string[]) => ({ apiVersion: 'rbac.authorization.k8s.io/v1', kind: 'Role', metadata: { name }, rules: [{ verbs: ['list'], apiGroups: [''], resources }] });
  const write = roles.strategy.authorizeWrite!;

  await write(alice, 'ns1', role('small', ['configmaps']));
  await assert.rejects(write(alice, 'ns1', role('small', ['secrets'])), (err: unknown) => {
    assert.ok(err instanceof ApiError);
    assert.equal(err.status.code, 403);
    assert.equal(
      err.message,
      'roles.rbac.authorization.k8s.io "small" is forbidden: user "alice" (groups=["system:authenticated"]) is attempting to grant RBAC permissions not currently held:\n{APIGroups:[""], Resources:["secrets"], Verbs:["list"]}',
    );
    return true;
  });
  await write(alice, 'ns1', role('big', ['secrets']), undefined); // escalate on "big" in ns1
  await assert.rejects(write(alice, 'ns2', role('big', ['secrets'])));
  // Only owner references changed: not checked.
  const old = role('small', ['secrets']);
  await write(alice, 'ns1', { ...old, metadata: { ...old.metadata, ownerReferences: [] } } as never, old);
  await write(systemContext(), 'ns1', role('x', ['secrets']));
  await write({ ...systemContext({ user: { name: 'root', groups: ['system:masters'] } }), auth }, 'ns1', role('x', ['secrets']));

  const bind = roleBindings.strategy.authorizeWrite!;
  const rb = (name: string, kind: string, roleName: string) => ({ apiVersion: 'rbac.authorization.k8s.io/v1', kind: 'RoleBinding', metadata: { name }, roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind, name: roleName }, subjects: [] });
  await bind(alice, 'ns2', rb('ok', 'ClusterRole', 'cm'));
  await bind(alice, 'ns1', rb('admin', 'ClusterRole', 'cluster-admin'));
  await assert.rejects(bind(alice, 'ns2', rb('admin', 'ClusterRole', 'cluster-admin')), /rolebindings.rbac.authorization.k8s.io "admin" is forbidden: user "alice"/);
  await assert.rejects(bind(alice, 'ns2', rb('gone', 'Role', 'nope')), { message: 'role.rbac.authorization.k8s.io "nope" not found' });
});
