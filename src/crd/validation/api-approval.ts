/**
 * The API approval policy for groups the Kubernetes project owns (`k8s.io`, `kubernetes.io` and
 * their subdomains): a CRD there carries `api-approved.kubernetes.io` with the URL of the approval,
 * or a reason starting with `unapproved` (upstream's apihelpers).
 */
import { goQuote } from '../../api/go/quote.ts';
import { parseRequestURI, UrlError } from '../../api/go/url.ts';

export const API_APPROVAL_ANNOTATION = 'api-approved.kubernetes.io';

export function isProtectedCommunityGroup(group: string): boolean {
  return group === 'k8s.io' || group.endsWith('.k8s.io') || group === 'kubernetes.io' || group.endsWith('.kubernetes.io');
}

export type ApprovalState = 'Invalid' | 'Approved' | 'Bypassed' | 'Missing';

function isApprovalUrl(value: string): boolean {
  try {
    const u = parseRequestURI(value);
    return u.host.length > 0 && u.scheme.length > 0;
  } catch (err) {
    if (err instanceof UrlError) return false;
    throw err;
  }
}

/** GetAPIApprovalState: the annotation's state and the reason upstream gives. */
export function apiApprovalState(annotations: Readonly<Record<string, string>> | undefined): { state: ApprovalState; reason: string } {
  const value = annotations?.[API_APPROVAL_ANNOTATION] ?? '';
  if (value.length === 0) {
    return { state: 'Missing', reason: `protected groups must have approval annotation "${API_APPROVAL_ANNOTATION}", see https://github.com/kubernetes/enhancements/pull/1111` };
  }
  if (value.startsWith('unapproved')) return { state: 'Bypassed', reason: `not approved: ${goQuote(value)}` };
  if (isApprovalUrl(value)) return { state: 'Approved', reason: `approved in ${value}` };
  return {
    state: 'Invalid',
    reason: `protected groups must have approval annotation "${API_APPROVAL_ANNOTATION}" with either a URL or a reason starting with "unapproved", see https://github.com/kubernetes/enhancements/pull/1111`,
  };
}
