/**
 * The default RBAC policy Kubernetes 1.34 creates at start (plugin/pkg/auth/authorizer/rbac/
 * bootstrappolicy): the roles and bindings the rest of the server relies on. Data only, split by
 * upstream's source file in rbac-policy/; the seed (rbac-bootstrap-policy.ts) adds the bootstrapping
 * label and the autoupdate annotation.
 */
import { CLUSTER_ROLE_BINDINGS, CLUSTER_ROLES } from './rbac-policy/cluster-roles.ts';
import { CONTROLLER_ROLE_BINDINGS, CONTROLLER_ROLES } from './rbac-policy/controller-roles.ts';
import { NAMESPACE_ROLE_BINDINGS, NAMESPACE_ROLES } from './rbac-policy/namespace-roles.ts';
import type { BootstrapBinding, BootstrapClusterRole, BootstrapRole } from './rbac-policy/builders.ts';

export type { BootstrapBinding, BootstrapClusterRole, BootstrapRole } from './rbac-policy/builders.ts';

/** policy.go's roles, then the controllers' (as upstream's PostStartHook creates them). */
export const BOOTSTRAP_CLUSTER_ROLES: readonly BootstrapClusterRole[] = [...CLUSTER_ROLES, ...CONTROLLER_ROLES];
export const BOOTSTRAP_CLUSTER_ROLE_BINDINGS: readonly BootstrapBinding[] = [...CLUSTER_ROLE_BINDINGS, ...CONTROLLER_ROLE_BINDINGS];
/** Roles and RoleBindings in kube-system and kube-public. */
export const BOOTSTRAP_ROLES: readonly BootstrapRole[] = NAMESPACE_ROLES;
export const BOOTSTRAP_ROLE_BINDINGS: readonly BootstrapBinding[] = NAMESPACE_ROLE_BINDINGS;
