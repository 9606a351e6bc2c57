import { roles } from '../../src/kinds/role.ts';
import { runKindSuite } from './kind-suite.ts';

const role = (rules: unknown[]) => ({ apiVersion: 'rbac.authorization.k8s.io/v1', kind: 'Role', rules });

// Expectations from upstream's ValidateRole and ValidatePolicyRule (1.34).
runKindSuite({
  kind: roles,
  valid: [
    { name: 'resource rules', object: role([{ verbs: ['get', 'list'], apiGroups: [''], resources: ['pods', 'pods/log'], resourceNames: ['a'] }]) },
    { name: 'no rules at all', object: role([]) },
    { name: 'a name with colons (a path segment)', object: { ...role([]), metadata: { name: 'system:controller:x' } } },
  ],
  invalid: [
    {
      name: 'a rule without verbs, groups or resources',
      object: role([{}]),
      errors: [
        { field: 'rules[0].verbs', message: 'Required value: verbs must contain at least one value' },
        { field: 'rules[0].apiGroups', message: 'Required value: resource rules must supply at least one api group' },
        { field: 'rules[0].resources', message: 'Required value: resource rules must supply at least one resource' },
      ],
    },
    {
      name: 'non-resource URLs in a namespaced role, and mixed with resources',
      object: role([{ verbs: ['get'], nonResourceURLs: ['/healthz'], resources: ['pods'] }]),
      errors: [
        { field: 'rules[0].nonResourceURLs', message: 'Invalid value: ["/healthz"]: namespaced rules cannot apply to non-resource URLs' },
        { field: 'rules[0].nonResourceURLs', message: 'Invalid value: ["/healthz"]: rules cannot apply to both regular resources and non-resource URLs' },
      ],
    },
    {
      name: 'a name that is not a path segment',
      object: { ...role([]), metadata: { name: 'a/b' } },
      errors: [{ field: 'metadata.name', message: `Invalid value: "a/b": may not contain '/'` }],
    },
  ],
  columns: [{ name: 'Name and Created At only', object: role([]), cells: [] }],
});
