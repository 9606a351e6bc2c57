/**
 * Shared by the access reviews (SubjectAccessReview and its local and self forms): the checks
 * upstream's validation makes on their specs, the RequestInfo the authorization chain is asked
 * about, and the status its answer becomes.
 */
import { badRequest, type FieldError } from '../api/errors.ts';
import type { RequestContext } from '../api/request-context.ts';
import type { KubeObject } from '../api/types.ts';
import type { RequestInfo } from '../api/request-info.ts';
import type { AuthServices } from '../auth/services.ts';
import type { UserInfo } from '../auth/user.ts';
import * as field from '../registry/validation/field.ts';

type Obj = Record<string, any>;

/** Exactly one of resourceAttributes / nonResourceAttributes, with upstream's messages. */
export function validateAttributesChoice(spec: Obj): FieldError[] {
  const hasResource = spec.resourceAttributes != null;
  const hasNonResource = spec.nonResourceAttributes != null;
  if (hasResource && hasNonResource) {
    return [field.invalid(field.path('spec', 'nonResourceAttributes'), spec.nonResourceAttributes, 'cannot be specified in combination with resourceAttributes')];
  }
  if (!hasResource && !hasNonResource) {
    return [field.invalid(field.path('spec', 'resourceAttributes'), null, 'exactly one of nonResourceAttributes or resourceAttributes must be specified')];
  }
  return [];
}

/** Reviews carry no identity of their own: metadata must be empty (managedFields aside, and namespace for the local form). */
export function validateEmptyMetadata(obj: Obj, allowNamespace: boolean): FieldError[] {
  const meta: Obj = { ...(obj.metadata ?? {}) };
  delete meta.managedFields;
  delete meta.creationTimestamp;
  if (allowNamespace) delete meta.namespace;
  const set = Object.entries(meta).filter(([, v]) => v !== undefined && v !== null && v !== '' && !(typeof v === 'object' && Object.keys(v).length === 0));
  const detail = allowNamespace ? 'must be empty except for namespace' : 'must be empty';
  return set.length > 0 ? [field.invalid(field.path('metadata'), obj.metadata, detail)] : [];
}

const str = (v: unknown): string => (typeof v === 'string' ? v : '');

/** The request the review asks about, as the request path would have parsed it. */
export function requestInfoOf(spec: Obj): RequestInfo {
  const base = { apiPrefix: '', inNamespace: false, parts: [] as string[] };
  const ra = spec.resourceAttributes as Obj | undefined;
  if (ra) {
    const namespace = str(ra.namespace);
    return {
      ...base,
      isResourceRequest: true,
      path: '',
      verb: str(ra.verb),
      apiGroup: str(ra.group),
      apiVersion: str(ra.version),
      namespace,
      inNamespace: namespace !== '',
      resource: str(ra.resource),
      subresource: str(ra.subresource),
      name: str(ra.name),
    };
  }
  const nra = (spec.nonResourceAttributes ?? {}) as Obj;
  return { ...base, isResourceRequest: false, path: str(nra.path), verb: str(nra.verb), apiGroup: '', apiVersion: '', namespace: '', resource: '', subresource: '', name: '' };
}

/** The user a SubjectAccessReview names (user, groups, uid, extra). */
export function userOfSpec(spec: Obj): UserInfo {
  return {
    name: str(spec.user),
    groups: Array.isArray(spec.groups) ? spec.groups : [],
    ...(spec.uid ? { uid: str(spec.uid) } : {}),
    ...(spec.extra ? { extra: spec.extra } : {}),
  };
}

/** The server's authorization services; a request context without them (server-internal) cannot review. */
export function authOf(ctx: RequestContext): AuthServices {
  if (!ctx.auth) throw badRequest('authorization is not available for this request');
  return ctx.auth;
}

/** Asks the chain and writes the answer into the review's status, returning it with the empty metadata upstream shows. */
export async function answerAccessReview(ctx: RequestContext, obj: KubeObject, user: UserInfo): Promise<KubeObject> {
  const o = obj as Obj;
  const result = await authOf(ctx).access.authorize({ user, request: requestInfoOf(o.spec ?? {}) });
  const status: Obj = { allowed: result.decision === 'allow' };
  if (result.decision === 'deny') status.denied = true;
  if (result.reason) status.reason = result.reason;
  if (result.evaluationError) status.evaluationError = result.evaluationError;
  o.metadata = { ...(o.metadata ?? {}), creationTimestamp: null };
  o.status = status;
  return obj;
}
