/**
 * The shapes the bootstrap policy data is written in, and the small helpers its tables use. The seed
 * (../rbac-bootstrap-policy.ts) turns them into RBAC objects and adds the bootstrapping label and the
 * autoupdate annotation every one of them carries.
 */
import type { PolicyRule, Subject } from '../../src/kinds/rbac-rules.ts';

export interface BootstrapClusterRole {
  readonly name: string;
  /** In upstream's order: kubectl and reconciliation show them as Kubernetes does. */
  readonly rules: PolicyRule[];
  readonly labels?: Record<string, string>;
  /** Label keys (value "true") whose ClusterRoles the aggregation controller folds into this one. */
  readonly aggregateFrom?: string[];
}
export interface BootstrapBinding {
  readonly name: string;
  readonly namespace?: string;
  readonly roleKind: 'Role' | 'ClusterRole';
  readonly role: string;
  /** Empty for a binding upstream keeps without subjects (system:node). */
  readonly subjects: Subject[];
}
export interface BootstrapRole {
  readonly name: string;
  readonly namespace: string;
  readonly rules: PolicyRule[];
}

const RBAC = 'rbac.authorization.k8s.io';
export const group = (name: string): Subject => ({ kind: 'Group', apiGroup: RBAC, name });
export const user = (name: string): Subject => ({ kind: 'User', apiGroup: RBAC, name });
export const sa = (namespace: string, name: string): Subject => ({ kind: 'ServiceAccount', name, namespace });

/** The label that makes a ClusterRole part of admin, edit or view. */
export const aggregateTo = (role: 'admin' | 'edit' | 'view'): Record<string, string> => ({ [`${RBAC}/aggregate-to-${role}`]: 'true' });

/** A ClusterRoleBinding named after the ClusterRole it grants, as all of upstream's are. */
export const clusterBinding = (role: string, subjects: Subject[]): BootstrapBinding => ({ name: role, roleKind: 'ClusterRole', role, subjects });

export const roleBinding = (namespace: string, name: string, role: string, subjects: Subject[]): BootstrapBinding => ({
  name,
  namespace,
  roleKind: 'Role',
  role,
  subjects,
});
