/**
 * The `authorizer` of an admission CEL expression (a policy's validations and match conditions, a
 * webhook's match conditions): the request's access checker asked about the requester, each
 * question answered once per request (upstream's caching authorizer), and
 * `authorizer.requestResource` naming what the request addresses.
 */
import type { RequestInfo } from '../api/request-info.ts';
import type { AuthorizationDecision, AuthorizationRequest } from '../cel/index.ts';
import type { AdmissionAttributes } from './attributes.ts';

/** The binding: the requester, how to ask, and what the request itself addresses. */
export interface RequestAuthorizer {
  readonly user: AuthorizationRequest['user'];
  authorize(check: AuthorizationRequest): Promise<AuthorizationDecision>;
  readonly requestResource: { readonly group: string; readonly resource: string; readonly subresource: string; readonly namespace: string; readonly name: string };
}

/** Builds the binding for one request; `namespace` is the request's namespace as the caller sees it. */
export function authorizerFor(a: AdmissionAttributes, namespace: string): RequestAuthorizer {
  const answers = new Map<string, Promise<AuthorizationDecision>>();
  const access = a.context.auth?.access;
  const ask = async (check: AuthorizationRequest): Promise<AuthorizationDecision> => {
    // Work the server does itself is not authorized: its own identity may do anything.
    if (!access) return { decision: check.user.groups.includes('system:masters') ? 'allow' : 'noOpinion', reason: '' };
    const request: RequestInfo = check.resourceRequest
      ? {
          isResourceRequest: true,
          path: '',
          verb: check.verb,
          apiPrefix: check.group ? 'apis' : 'api',
          apiGroup: check.group,
          apiVersion: '*',
          namespace: check.namespace,
          resource: check.resource,
          subresource: check.subresource,
          name: check.name,
          inNamespace: check.namespace !== '',
          parts: [],
          ...(check.fieldSelector ? { fieldSelector: check.fieldSelector } : {}),
          ...(check.labelSelector ? { labelSelector: check.labelSelector } : {}),
        }
      : { isResourceRequest: false, path: check.path, verb: check.verb, apiPrefix: '', apiGroup: '', apiVersion: '', namespace: '', resource: '', subresource: '', name: '', inNamespace: false, parts: [] };
    try {
      const result = await access.authorize({ user: check.user, request });
      return { decision: result.decision, reason: result.reason ?? '', ...(result.evaluationError ? { error: result.evaluationError } : {}) };
    } catch (err) {
      return { decision: 'noOpinion', reason: '', error: err instanceof Error ? err.message : String(err) };
    }
  };
  return {
    user: a.user,
    authorize: (check) => {
      const key = JSON.stringify(check);
      let answer = answers.get(key);
      if (!answer) answers.set(key, (answer = ask(check)));
      return answer;
    },
    requestResource: { group: a.resource.group, resource: a.resource.resource, subresource: a.subresource, namespace, name: a.name },
  };
}
