/**
 * authentication.k8s.io/v1 TokenReview: "whose token is this?", answered by the server's bearer
 * token authenticators for the audiences the review names (the server's own when it names none).
 * As upstream, the spec comes back as sent; the status says who, or why not.
 */
import { badRequest } from '../api/errors.ts';
import { defineKind } from '../registry/kind.ts';
import { authOf } from './review-attributes.ts';

type Obj = Record<string, any>;

export const tokenReviews = defineKind({
  group: 'authentication.k8s.io',
  version: 'v1',
  kind: 'TokenReview',
  plural: 'tokenreviews',
  namespaced: false,
  verbs: ['create'],
  schemaMessage: 'k8s.io.api.authentication.v1.TokenReview',
  respond: {
    async create(ctx, _namespace, body) {
      const o = body as Obj;
      const spec = (o.spec ??= {});
      const token = typeof spec.token === 'string' ? spec.token : '';
      if (token === '') throw badRequest('token is required for TokenReview in authentication');
      const auth = authOf(ctx);
      const requested: string[] = Array.isArray(spec.audiences) && spec.audiences.length > 0 ? spec.audiences : [...auth.apiAudiences];
      const status: Obj = { user: {} };
      const result = auth.tokenReviewer ? await auth.tokenReviewer.review(token, requested) : { authenticated: false as const };
      if (result.authenticated) {
        const u = result.user;
        status.authenticated = true;
        status.user = {
          username: u.name,
          ...(u.uid ? { uid: u.uid } : {}),
          ...(u.groups.length > 0 ? { groups: [...u.groups] } : {}),
          ...(u.extra && Object.keys(u.extra).length > 0 ? { extra: u.extra } : {}),
        };
        if (result.audiences.length > 0) status.audiences = [...result.audiences];
      } else if (result.error) {
        status.error = result.error;
      }
      o.metadata = { ...(o.metadata ?? {}), creationTimestamp: null };
      o.status = status;
      return body;
    },
  },
});
