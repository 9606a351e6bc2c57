import { clusterRoleBindings } from '../../src/kinds/cluster-role-binding.ts';
import { runKindSuite } from './kind-suite.ts';

const binding = (roleRef: Record<string, unknown>, subjects: unknown[] = []) => ({ apiVersion: 'rbac.authorization.k8s.io/v1', kind: 'ClusterRoleBinding', roleRef, subjects });
const ref = { apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name: 'admin' };

// Expectations from upstream's ValidateClusterRoleBinding (1.34).
runKindSuite({
  kind: clusterRoleBindings,
  valid: [{ name: 'a service account with its namespace', object: binding(ref, [{ kind: 'ServiceAccount', name: 'robot', namespace: 'kube-system' }, { kind: 'Group', name: 'system:masters' }]) }],
  invalid: [
    { name: 'a Role cannot be bound cluster-wide', object: binding({ ...ref, kind: 'Role' }), errors: [{ field: 'roleRef.kind', message: 'Unsupported value: "Role": supported values: "ClusterRole"' }] },
    { name: 'a service account needs its namespace', object: binding(ref, [{ kind: 'ServiceAccount', name: 'robot' }]), errors: [{ field: 'subjects[0].namespace', message: 'Required value' }] },
  ],
  updates: [
    {
      name: 'roleRef cannot change',
      object: binding(ref),
      change: (o) => ({ ...o, roleRef: { ...ref, name: 'view' } }),
      errors: [{ field: 'roleRef', message: 'Invalid value: {"APIGroup":"rbac.authorization.k8s.io","Kind":"ClusterRole","Name":"view"}: cannot change roleRef' }],
    },
  ],
  columns: [{ name: 'role and subjects', object: binding(ref, [{ kind: 'Group', name: 'system:masters' }]), cells: ['ClusterRole/admin', '', 'system:masters', ''] }],
});
