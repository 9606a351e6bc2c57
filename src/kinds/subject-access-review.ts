/**
 * authorization.k8s.io/v1 SubjectAccessReview: "may this user do this?", answered by the server's
 * authorization chain and never stored.
 */
import { defineKind } from '../registry/kind.ts';
import * as field from '../registry/validation/field.ts';
import { answerAccessReview, userOfSpec, validateAttributesChoice, validateEmptyMetadata } from './review-attributes.ts';

type Obj = Record<string, any>;

export const subjectAccessReviews = defineKind({
  group: 'authorization.k8s.io',
  version: 'v1',
  kind: 'SubjectAccessReview',
  plural: 'subjectaccessreviews',
  namespaced: false,
  verbs: ['create'],
  schemaMessage: 'k8s.io.api.authorization.v1.SubjectAccessReview',
  strategy: {
    validate(_ctx, obj) {
      const o = obj as Obj;
      const spec = o.spec ?? {};
      const errors = [...validateAttributesChoice(spec)];
      // Upstream: a review about nobody is an error, not a denial.
      if (!spec.user && !(Array.isArray(spec.groups) && spec.groups.length > 0)) {
        errors.push(field.invalid(field.path('spec', 'user'), spec.user ?? '', 'at least one of user or group must be specified'));
      }
      return [...errors, ...validateEmptyMetadata(o, false)];
    },
  },
  respond: {
    create: (ctx, _namespace, body) => answerAccessReview(ctx, body, userOfSpec((body as Obj).spec ?? {})),
  },
});
