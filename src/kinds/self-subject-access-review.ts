/**
 * authorization.k8s.io/v1 SelfSubjectAccessReview: "may I do this?" — the user is the requester
 * (`kubectl auth can-i`), never a field of the body.
 */
import { defineKind } from '../registry/kind.ts';
import { answerAccessReview, validateAttributesChoice, validateEmptyMetadata } from './review-attributes.ts';

type Obj = Record<string, any>;

export const selfSubjectAccessReviews = defineKind({
  group: 'authorization.k8s.io',
  version: 'v1',
  kind: 'SelfSubjectAccessReview',
  plural: 'selfsubjectaccessreviews',
  namespaced: false,
  verbs: ['create'],
  schemaMessage: 'k8s.io.api.authorization.v1.SelfSubjectAccessReview',
  strategy: {
    validate(_ctx, obj) {
      const o = obj as Obj;
      return [...validateAttributesChoice(o.spec ?? {}), ...validateEmptyMetadata(o, false)];
    },
  },
  respond: {
    create: (ctx, _namespace, body) => answerAccessReview(ctx, body, ctx.user),
  },
});
