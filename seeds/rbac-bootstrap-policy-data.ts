/**
 * The default RBAC policy Kubernetes 1.34 creates at start (plugin/pkg/auth/authorizer/rbac/
 * bootstrappolicy): the roles and bindings the rest of the server relies on. Data only; the seed
 * (rbac-bootstrap-policy.ts) adds the bootstrapping label and the autoupdate annotation.
 *
 * Aggregated roles (admin, edit, view) ship with their aggregation rule and no rules of their own:
 * the cluster role aggregation controller fills them from the roles their selectors pick.
 */
import type { PolicyRule, Subject } from '../src/kinds/rbac-rules.ts';

export interface BootstrapClusterRole {
  readonly name: string;
  readonly rules: PolicyRule[];
  readonly labels?: Record<string, string>;
  readonly aggregateFrom?: string[];
}
export interface BootstrapBinding {
  readonly name: string;
  readonly namespace?: string;
  readonly roleKind: 'Role' | 'ClusterRole';
  readonly role: string;
  readonly subjects: Subject[];
}
export interface BootstrapRole {
  readonly name: string;
  readonly namespace: string;
  readonly rules: PolicyRule[];
}

const RBAC = 'rbac.authorization.k8s.io';
const group = (name: string): Subject => ({ kind: 'Group', apiGroup: RBAC, name });
const user = (name: string): Subject => ({ kind: 'User', apiGroup: RBAC, name });

export const BOOTSTRAP_CLUSTER_ROLES: BootstrapClusterRole[] = [
  {
    name: 'cluster-admin',
    rules: [
      { verbs: ['*'], apiGroups: ['*'], resources: ['*'] },
      { verbs: ['*'], nonResourceURLs: ['*'] },
    ],
  },
  {
    name: 'system:discovery',
    rules: [
      {
        verbs: ['get'],
        nonResourceURLs: ['/api', '/api/*', '/apis', '/apis/*', '/healthz', '/livez', '/openapi', '/openapi/*', '/readyz', '/version', '/version/'],
      },
    ],
  },
  {
    name: 'system:public-info-viewer',
    rules: [{ verbs: ['get'], nonResourceURLs: ['/healthz', '/livez', '/readyz', '/version', '/version/'] }],
  },
  {
    name: 'system:basic-user',
    rules: [
      { verbs: ['create'], apiGroups: ['authorization.k8s.io'], resources: ['selfsubjectaccessreviews', 'selfsubjectrulesreviews'] },
      { verbs: ['create'], apiGroups: ['authentication.k8s.io'], resources: ['selfsubjectreviews'] },
    ],
  },
  {
    name: 'system:service-account-issuer-discovery',
    rules: [
      {
        verbs: ['get'],
        nonResourceURLs: ['/.well-known/openid-configuration', '/.well-known/openid-configuration/', '/openid/v1/jwks', '/openid/v1/jwks/'],
      },
    ],
  },
  {
    name: 'system:monitoring',
    rules: [{ verbs: ['get'], nonResourceURLs: ['/healthz', '/healthz/*', '/livez', '/livez/*', '/metrics', '/metrics/slis', '/readyz', '/readyz/*'] }],
  },
  { name: 'admin', rules: [], aggregateFrom: ['rbac.authorization.k8s.io/aggregate-to-admin'] },
  { name: 'edit', rules: [], labels: { 'rbac.authorization.k8s.io/aggregate-to-admin': 'true' }, aggregateFrom: ['rbac.authorization.k8s.io/aggregate-to-edit'] },
  { name: 'view', rules: [], labels: { 'rbac.authorization.k8s.io/aggregate-to-edit': 'true' }, aggregateFrom: ['rbac.authorization.k8s.io/aggregate-to-view'] },
];

export const BOOTSTRAP_CLUSTER_ROLE_BINDINGS: BootstrapBinding[] = [
  { name: 'cluster-admin', roleKind: 'ClusterRole', role: 'cluster-admin', subjects: [group('system:masters')] },
  { name: 'system:discovery', roleKind: 'ClusterRole', role: 'system:discovery', subjects: [group('system:authenticated')] },
  { name: 'system:basic-user', roleKind: 'ClusterRole', role: 'system:basic-user', subjects: [group('system:authenticated')] },
  {
    name: 'system:public-info-viewer',
    roleKind: 'ClusterRole',
    role: 'system:public-info-viewer',
    subjects: [group('system:authenticated'), group('system:unauthenticated')],
  },
  {
    name: 'system:service-account-issuer-discovery',
    roleKind: 'ClusterRole',
    role: 'system:service-account-issuer-discovery',
    subjects: [group('system:serviceaccounts')],
  },
  { name: 'system:monitoring', roleKind: 'ClusterRole', role: 'system:monitoring', subjects: [group('system:monitoring')] },
];

/** Namespaced roles (kube-system, kube-public); not seeded yet, see the report. */
export const BOOTSTRAP_ROLES: BootstrapRole[] = [];
export const BOOTSTRAP_ROLE_BINDINGS: BootstrapBinding[] = [];
