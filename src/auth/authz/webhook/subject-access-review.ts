/**
 * The SubjectAccessReview a webhook authorizer sends, built from the request's attributes as
 * upstream's webhook authorizer builds it. v1beta1 differs from v1 only in `group` for `groups`.
 */
import type { Attributes } from '../authorizer.ts';

export type ReviewVersion = 'v1' | 'v1beta1';

/** The v1 spec: the shape matchConditions see as `request`, and the cache key. */
export function reviewSpec(attrs: Attributes): Record<string, unknown> {
  const { user, request } = attrs;
  const spec: Record<string, unknown> = { user: user.name };
  if (user.uid) spec.uid = user.uid;
  if (user.groups.length > 0) spec.groups = [...user.groups];
  if (user.extra && Object.keys(user.extra).length > 0) spec.extra = user.extra;
  if (request.isResourceRequest) {
    const resource: Record<string, string> = {};
    const set = (key: string, value: string): void => {
      if (value) resource[key] = value;
    };
    set('namespace', request.namespace);
    set('verb', request.verb);
    set('group', request.apiGroup);
    set('version', request.apiVersion);
    set('resource', request.resource);
    set('subresource', request.subresource);
    set('name', request.name);
    spec.resourceAttributes = resource;
  } else {
    spec.nonResourceAttributes = { path: request.path, verb: request.verb };
  }
  return spec;
}

/** The whole review object sent to the webhook. */
export function reviewBody(spec: Record<string, unknown>, version: ReviewVersion): Record<string, unknown> {
  let sent = spec;
  if (version === 'v1beta1' && 'groups' in spec) {
    const { groups, ...rest } = spec;
    sent = { ...rest, group: groups };
  }
  return { apiVersion: `authorization.k8s.io/${version}`, kind: 'SubjectAccessReview', metadata: { creationTimestamp: null }, spec: sent, status: { allowed: false } };
}

export interface ReviewStatus {
  readonly allowed: boolean;
  readonly denied: boolean;
  readonly reason: string;
  readonly evaluationError: string;
}

/** The answer's status; throws on an answer that is not a SubjectAccessReview of the version asked. */
export function parseReviewAnswer(text: string, version: ReviewVersion): ReviewStatus {
  let doc: unknown;
  try {
    doc = JSON.parse(text);
  } catch {
    throw new Error('the webhook answered with a body that is not JSON');
  }
  const review = doc as { apiVersion?: unknown; kind?: unknown; status?: Record<string, unknown> } | null;
  if (!review || typeof review !== 'object' || Array.isArray(review)) throw new Error('the webhook answered with a body that is not an object');
  if (review.apiVersion !== `authorization.k8s.io/${version}` || review.kind !== 'SubjectAccessReview') {
    throw new Error(`the webhook answered with ${String(review.apiVersion)}, Kind=${String(review.kind)}, expected authorization.k8s.io/${version}, Kind=SubjectAccessReview`);
  }
  const status = review.status ?? {};
  const bool = (v: unknown): boolean => v === true;
  const str = (v: unknown): string => (typeof v === 'string' ? v : '');
  return { allowed: bool(status.allowed), denied: bool(status.denied), reason: str(status.reason), evaluationError: str(status.evaluationError) };
}
