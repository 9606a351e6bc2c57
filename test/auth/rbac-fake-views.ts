/** In-memory RBAC views for unit tests, indexed as the informers are. */
import type { StoredKubeObject } from '../../src/api/types.ts';
import { bindingIndexKeys, type ObjectView, type RbacViews } from '../../src/auth/rbac/policy-view.ts';
import type { PolicyRule, Subject } from '../../src/kinds/rbac-rules.ts';

function view(objects: StoredKubeObject[], indexed: boolean): ObjectView {
  return {
    get: (ns, name) => objects.find((o) => (o.metadata.namespace ?? '') === ns && o.metadata.name === name),
    byIndex: (key) => (indexed ? objects.filter((o) => bindingIndexKeys(o).includes(key)) : []),
  };
}

const meta = (name: string, namespace?: string) => ({ name, uid: name, resourceVersion: '1', ...(namespace ? { namespace } : {}) });

export const role = (namespace: string, name: string, rules: PolicyRule[]): StoredKubeObject => ({ apiVersion: 'rbac.authorization.k8s.io/v1', kind: 'Role', metadata: meta(name, namespace), rules });
export const clusterRole = (name: string, rules: PolicyRule[]): StoredKubeObject => ({ apiVersion: 'rbac.authorization.k8s.io/v1', kind: 'ClusterRole', metadata: meta(name), rules });
export const binding = (namespace: string | undefined, name: string, roleKind: string, roleName: string, subjects: Subject[]): StoredKubeObject => ({
  apiVersion: 'rbac.authorization.k8s.io/v1',
  kind: namespace ? 'RoleBinding' : 'ClusterRoleBinding',
  metadata: meta(name, namespace),
  roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: roleKind, name: roleName },
  subjects,
});

export function fakeViews(objects: StoredKubeObject[]): RbacViews {
  const of = (kind: string) => objects.filter((o) => o.kind === kind);
  return {
    roles: view(of('Role'), false),
    clusterRoles: view(of('ClusterRole'), false),
    roleBindings: view(of('RoleBinding'), true),
    clusterRoleBindings: view(of('ClusterRoleBinding'), true),
  };
}
