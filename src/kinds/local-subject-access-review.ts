/**
 * authorization.k8s.io/v1 LocalSubjectAccessReview: a SubjectAccessReview confined to the namespace
 * in its path, so namespace admins can be allowed to ask it; resource attributes only.
 */
import { badRequest } from '../api/errors.ts';
import { defineKind } from '../registry/kind.ts';
import * as field from '../registry/validation/field.ts';
import { answerAccessReview, userOfSpec, validateAttributesChoice, validateEmptyMetadata } from './review-attributes.ts';

type Obj = Record<string, any>;

export const localSubjectAccessReviews = defineKind({
  group: 'authorization.k8s.io',
  version: 'v1',
  kind: 'LocalSubjectAccessReview',
  plural: 'localsubjectaccessreviews',
  namespaced: true,
  verbs: ['create'],
  schemaMessage: 'k8s.io.api.authorization.v1.LocalSubjectAccessReview',
  strategy: {
    validate(_ctx, obj) {
      const o = obj as Obj;
      const spec = o.spec ?? {};
      const namespace = String(o.metadata?.namespace ?? '');
      // Upstream answers a mismatch 400 before any field check, rather than reviewing another namespace.
      if (spec.resourceAttributes && (spec.resourceAttributes.namespace ?? '') !== namespace) {
        throw badRequest(`spec.resourceAttributes.namespace must match namespace: ${namespace}`);
      }
      const errors = [...validateAttributesChoice(spec)];
      if (!spec.user && !(Array.isArray(spec.groups) && spec.groups.length > 0)) {
        errors.push(field.invalid(field.path('spec', 'user'), spec.user ?? '', 'at least one of user or group must be specified'));
      }
      if (spec.nonResourceAttributes != null) {
        errors.push(field.invalid(field.path('spec', 'nonResourceAttributes'), spec.nonResourceAttributes, 'disallowed on this kind of request'));
      }
      return [...errors, ...validateEmptyMetadata(o, true)];
    },
  },
  respond: {
    create: (ctx, _namespace, body) => answerAccessReview(ctx, body, userOfSpec((body as Obj).spec ?? {})),
  },
});
