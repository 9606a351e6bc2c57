/**
 * authorization.k8s.io/v1 SelfSubjectRulesReview: everything the requester may do in a namespace
 * (`kubectl auth can-i --list`), from every authorizer of the chain that can list its rules (RBAC,
 * AlwaysAllow, AlwaysDeny); a webhook or the Node authorizer marks the list incomplete, as upstream.
 */
import { badRequest } from '../api/errors.ts';
import { defineKind } from '../registry/kind.ts';
import { authOf } from './review-attributes.ts';

type Obj = Record<string, any>;

export const selfSubjectRulesReviews = defineKind({
  group: 'authorization.k8s.io',
  version: 'v1',
  kind: 'SelfSubjectRulesReview',
  plural: 'selfsubjectrulesreviews',
  namespaced: false,
  verbs: ['create'],
  schemaMessage: 'k8s.io.api.authorization.v1.SelfSubjectRulesReview',
  respond: {
    async create(ctx, _namespace, body) {
      const o = body as Obj;
      const namespace = typeof o.spec?.namespace === 'string' ? o.spec.namespace : '';
      if (namespace === '') throw badRequest('no namespace on request');
      const rules = await authOf(ctx).rules.rulesFor(ctx.user, namespace);
      const status: Obj = { resourceRules: rules.resourceRules, nonResourceRules: rules.nonResourceRules, incomplete: rules.incomplete };
      if (rules.evaluationError) status.evaluationError = rules.evaluationError;
      o.metadata = { ...(o.metadata ?? {}), creationTimestamp: null };
      o.status = status;
      return body;
    },
  },
});
