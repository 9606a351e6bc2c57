import assert from 'node:assert/strict';
import { roleBindings } from '../../src/kinds/role-binding.ts';
import { runKindSuite } from './kind-suite.ts';

const binding = (roleRef: Record<string, unknown>, subjects: unknown[] = []) => ({ apiVersion: 'rbac.authorization.k8s.io/v1', kind: 'RoleBinding', roleRef, subjects });
const ref = { apiGroup: 'rbac.authorization.k8s.io', kind: 'Role', name: 'reader' };

// Expectations from upstream's ValidateRoleBinding, ValidateRoleBindingUpdate and the v1 defaults (1.34).
runKindSuite({
  kind: roleBindings,
  valid: [
    { name: 'every subject kind', object: binding(ref, [{ kind: 'User', name: 'alice' }, { kind: 'Group', name: 'devs' }, { kind: 'ServiceAccount', name: 'robot', namespace: 'default' }]) },
    { name: 'a ClusterRole, service account without namespace', object: binding({ ...ref, kind: 'ClusterRole' }, [{ kind: 'ServiceAccount', name: 'robot' }]) },
  ],
  invalid: [
    {
      name: 'a role ref outside RBAC, of an unknown kind, without a name',
      object: binding({ apiGroup: 'example.com', kind: 'Policy' }),
      errors: [
        { field: 'roleRef.apiGroup', message: 'Unsupported value: "example.com": supported values: "rbac.authorization.k8s.io"' },
        { field: 'roleRef.kind', message: 'Unsupported value: "Policy": supported values: "Role", "ClusterRole"' },
        { field: 'roleRef.name', message: 'Required value' },
      ],
    },
    {
      name: 'bad subjects',
      object: binding(ref, [{ kind: 'Robot', name: 'r' }, { kind: 'ServiceAccount', name: 'Bad_Name', apiGroup: 'x' }, { kind: 'User', apiGroup: 'x' }]),
      errors: [
        { field: 'subjects[0].kind', message: 'Unsupported value: "Robot": supported values: "ServiceAccount", "User", "Group"' },
        { field: 'subjects[1].name', message: `Invalid value: "Bad_Name": a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character (e.g. 'example.com', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')` },
        { field: 'subjects[1].apiGroup', message: 'Unsupported value: "x": supported values: ""' },
        { field: 'subjects[2].name', message: 'Required value' },
        { field: 'subjects[2].apiGroup', message: 'Unsupported value: "x": supported values: "rbac.authorization.k8s.io"' },
      ],
    },
  ],
  updates: [
    {
      name: 'roleRef cannot change',
      object: binding(ref),
      change: (o) => ({ ...o, roleRef: { ...ref, name: 'writer' } }),
      errors: [{ field: 'roleRef', message: 'Invalid value: {"APIGroup":"rbac.authorization.k8s.io","Kind":"Role","Name":"writer"}: cannot change roleRef' }],
    },
    { name: 'subjects may change', object: binding(ref), change: (o) => ({ ...o, subjects: [{ kind: 'User', name: 'bob' }] }), expect: (o) => assert.equal((o.subjects as { name: string }[])[0]!.name, 'bob') },
  ],
  defaults: [
    {
      name: 'roleRef and User/Group subjects default to the RBAC group',
      object: binding({ kind: 'Role', name: 'reader' }, [{ kind: 'User', name: 'alice' }, { kind: 'ServiceAccount', name: 'robot' }]),
      expect: (o) => {
        assert.equal((o.roleRef as { apiGroup: string }).apiGroup, 'rbac.authorization.k8s.io');
        assert.deepEqual(o.subjects, [{ kind: 'User', name: 'alice', apiGroup: 'rbac.authorization.k8s.io' }, { kind: 'ServiceAccount', name: 'robot' }]);
      },
    },
  ],
  columns: [
    {
      name: 'role, users, groups and service accounts',
      object: binding(ref, [{ kind: 'User', name: 'alice' }, { kind: 'User', name: 'bob' }, { kind: 'Group', name: 'devs' }, { kind: 'ServiceAccount', name: 'robot', namespace: 'ci' }]),
      cells: ['Role/reader', 'alice, bob', 'devs', 'ci:robot'],
    },
  ],
});
