/**
 * The object types upstream declares for an authorization webhook's matchConditions
 * (buildRequestType in k8s.io/apiserver's authorization/cel): `request` is a
 * kubernetes.SubjectAccessReviewSpec, so selecting a field it lacks does not compile. The field
 * and label selector attributes are declared as AuthorizeWithSelectors (on in 1.34) declares them.
 */
import type { ObjectTypeDecl } from './object-types.ts';

export const SUBJECT_ACCESS_REVIEW_TYPES: readonly ObjectTypeDecl[] = [
  { name: 'kubernetes.SelectorRequirement', fields: { key: 'string', operator: 'string', values: 'list<string>' } },
  { name: 'kubernetes.FieldSelectorAttributes', fields: { rawSelector: 'string', requirements: 'list<kubernetes.SelectorRequirement>' } },
  { name: 'kubernetes.LabelSelectorAttributes', fields: { rawSelector: 'string', requirements: 'list<kubernetes.SelectorRequirement>' } },
  {
    name: 'kubernetes.ResourceAttributes',
    fields: {
      namespace: 'string',
      verb: 'string',
      group: 'string',
      version: 'string',
      resource: 'string',
      subresource: 'string',
      name: 'string',
      fieldSelector: 'kubernetes.FieldSelectorAttributes',
      labelSelector: 'kubernetes.LabelSelectorAttributes',
    },
  },
  { name: 'kubernetes.NonResourceAttributes', fields: { path: 'string', verb: 'string' } },
  {
    name: 'kubernetes.SubjectAccessReviewSpec',
    fields: {
      resourceAttributes: 'kubernetes.ResourceAttributes',
      nonResourceAttributes: 'kubernetes.NonResourceAttributes',
      user: 'string',
      groups: 'list<string>',
      extra: 'map<string, list<string>>',
      uid: 'string',
    },
  },
];
