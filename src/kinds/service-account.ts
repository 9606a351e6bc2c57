import { ApiError } from '../api/errors.ts';
import { isTokenRequestHandler } from '../auth/serviceaccount/token-request-handler.ts';
import { defineKind } from '../registry/kind.ts';
import { tokenRequests } from './token-request.ts';

export const serviceAccounts = defineKind({
  group: '',
  version: 'v1',
  kind: 'ServiceAccount',
  plural: 'serviceaccounts',
  namespaced: true,
  shortNames: ['sa'],
  schemaMessage: 'k8s.io.api.core.v1.ServiceAccount',
  tableColumns: [
    { name: 'Secrets', type: 'string', description: 'Secrets is the list of secrets allowed to be used by pods running using this ServiceAccount.', cell: (o) => (Array.isArray(o.secrets) ? o.secrets.length : 0) },
  ],
  subresources: [
    {
      // TokenRequest: signs a token for the service account (`kubectl create token`).
      name: 'token',
      verbs: ['create'],
      kind: { group: tokenRequests.group, version: tokenRequests.version, kind: tokenRequests.kind },
      schemaMessage: tokenRequests.schemaMessage,
      respond: {
        kind: tokenRequests,
        async create(ctx, namespace, name, body) {
          const issuer = ctx.auth?.tokenIssuer;
          // Work the server does itself carries no auth services; nothing there requests tokens.
          if (!isTokenRequestHandler(issuer)) throw new ApiError(503, 'ServiceUnavailable', 'service account token issuing is not configured');
          return issuer.requestToken(ctx, namespace, name, body);
        },
      },
    },
  ],
});
