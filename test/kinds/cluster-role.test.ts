import { clusterRoles } from '../../src/kinds/cluster-role.ts';
import { runKindSuite } from './kind-suite.ts';

const clusterRole = (fields: Record<string, unknown>) => ({ apiVersion: 'rbac.authorization.k8s.io/v1', kind: 'ClusterRole', ...fields });

// Expectations from upstream's ValidateClusterRole (1.34).
runKindSuite({
  kind: clusterRoles,
  valid: [
    { name: 'non-resource URLs in a cluster role', object: clusterRole({ rules: [{ verbs: ['get'], nonResourceURLs: ['/healthz', '/metrics/*'] }] }) },
    { name: 'an aggregation rule', object: clusterRole({ aggregationRule: { clusterRoleSelectors: [{ matchLabels: { 'rbac.example.com/aggregate': 'true' } }] } }) },
  ],
  invalid: [
    {
      name: 'an aggregation rule without selectors',
      object: clusterRole({ aggregationRule: { clusterRoleSelectors: [] } }),
      errors: [{ field: 'aggregationRule.clusterRoleSelectors', message: 'Required value: at least one clusterRoleSelector required if aggregationRule is non-nil' }],
    },
    {
      name: 'a bad selector operator',
      object: clusterRole({ aggregationRule: { clusterRoleSelectors: [{ matchExpressions: [{ key: 'a', operator: 'Near' }] }] } }),
      errors: [{ field: 'aggregationRule.clusterRoleSelectors[0].matchExpressions[0].operator', message: 'Invalid value: "Near": not a valid selector operator' }],
    },
    {
      name: 'non-resource URLs with resources',
      object: clusterRole({ rules: [{ verbs: ['get'], nonResourceURLs: ['/x'], apiGroups: [''] }] }),
      errors: [{ field: 'rules[0].nonResourceURLs', message: 'Invalid value: ["/x"]: rules cannot apply to both regular resources and non-resource URLs' }],
    },
  ],
});
