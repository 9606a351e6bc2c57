/**
 * Anonymous read of ConfigMap kube-public/cluster-info, as kubeadm grants it: a joining node fetches
 * that ConfigMap before it has any credential and checks it against the JWS signatures in it.
 * Upstream the cluster's installer creates these; here the bootstrap signer does, when it runs.
 */
import { ApiError } from '../src/api/errors.ts';
import type { KubeObject } from '../src/api/types.ts';
import { controllerContext } from '../src/controllers/controller-context.ts';
import type { ApiSurface } from '../src/registry/api-surface.ts';

export const CLUSTER_INFO_ROLE = 'kubeadm:bootstrap-signer-clusterinfo';
const NAMESPACE = 'kube-public';

const role: KubeObject = {
  apiVersion: 'rbac.authorization.k8s.io/v1',
  kind: 'Role',
  metadata: { name: CLUSTER_INFO_ROLE, namespace: NAMESPACE },
  rules: [{ apiGroups: [''], resources: ['configmaps'], resourceNames: ['cluster-info'], verbs: ['get'] }],
};

const binding: KubeObject = {
  apiVersion: 'rbac.authorization.k8s.io/v1',
  kind: 'RoleBinding',
  metadata: { name: CLUSTER_INFO_ROLE, namespace: NAMESPACE },
  roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'Role', name: CLUSTER_INFO_ROLE },
  subjects: [{ apiGroup: 'rbac.authorization.k8s.io', kind: 'User', name: 'system:anonymous' }],
};

/** Creates the Role and RoleBinding unless they exist (an operator's edits to them are kept). */
export async function seedClusterInfoAccess(surface: ApiSurface): Promise<void> {
  for (const [resource, object] of [['roles', role], ['rolebindings', binding]] as const) {
    const store = surface.findStore('rbac.authorization.k8s.io', resource);
    if (!store) continue;
    try {
      await store.create(controllerContext(), NAMESPACE, structuredClone(object));
    } catch (err) {
      if (!(err instanceof ApiError && err.code === 409)) throw err;
    }
  }
}
