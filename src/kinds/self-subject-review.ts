/**
 * authentication.k8s.io/v1 SelfSubjectReview: "who am I?" (`kubectl auth whoami`), the requester's
 * user as authentication found it.
 */
import { defineKind } from '../registry/kind.ts';

type Obj = Record<string, any>;

export const selfSubjectReviews = defineKind({
  group: 'authentication.k8s.io',
  version: 'v1',
  kind: 'SelfSubjectReview',
  plural: 'selfsubjectreviews',
  namespaced: false,
  verbs: ['create'],
  schemaMessage: 'k8s.io.api.authentication.v1.SelfSubjectReview',
  respond: {
    async create(ctx, _namespace, body) {
      const o = body as Obj;
      const u = ctx.user;
      const userInfo: Obj = { username: u.name };
      if (u.uid) userInfo.uid = u.uid;
      if (u.groups.length > 0) userInfo.groups = [...u.groups];
      if (u.extra && Object.keys(u.extra).length > 0) userInfo.extra = u.extra;
      o.metadata = { ...(o.metadata ?? {}), creationTimestamp: null };
      o.status = { userInfo };
      return body;
    },
  },
});
