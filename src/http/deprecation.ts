/**
 * Requests to deprecated API versions, as upstream's endpoint installer and request metrics treat
 * them: once the server's release reaches the version's deprecation release, every request routed to
 * it gets the deprecation `Warning`, the audit annotations `k8s.io/deprecated: "true"` (and
 * `k8s.io/removed-release` when a removal is planned), and `ctx.state.deprecatedApi`, which the
 * `apiserver_requested_deprecated_apis` gauge reads.
 */
import type { Context } from 'koa';
import type { RequestContext } from '../api/request-context.ts';
import type { RequestInfo } from '../api/request-info.ts';
import { addAuditAnnotation } from '../audit/annotations.ts';
import type { KindDefinition, Release } from '../registry/kind.ts';
import { KUBERNETES_VERSION } from './routes/version-route.ts';

export const DEPRECATED_ANNOTATION = 'k8s.io/deprecated';
export const REMOVED_RELEASE_ANNOTATION = 'k8s.io/removed-release';

/** A request to a deprecated API, labelled as the gauge labels it (removedRelease '' when none is planned). */
export interface DeprecatedApi {
  readonly group: string;
  readonly version: string;
  readonly resource: string;
  readonly subresource: string;
  readonly removedRelease: string;
}

/** What this module keeps in koa's `ctx.state`. */
export interface DeprecationState {
  deprecatedApi?: DeprecatedApi;
}

/** The release this server implements. */
const SERVER_RELEASE: Release = { major: Number(KUBERNETES_VERSION.major), minor: Number(KUBERNETES_VERSION.minor) };

/** Upstream's IsDeprecated: the kind has a deprecation release and the server's release has reached it. */
export function isDeprecated(kind: Pick<KindDefinition, 'deprecation'>, current: Release = SERVER_RELEASE): boolean {
  const deprecated = kind.deprecation?.deprecated;
  if (!deprecated || (deprecated.major === 0 && deprecated.minor === 0)) return false;
  if (current.major === 0 && current.minor === 0) return true;
  return deprecated.major < current.major || (deprecated.major === current.major && deprecated.minor <= current.minor);
}

/** `1.Y` of the planned removal, or '' when there is none. */
export function removedRelease(kind: Pick<KindDefinition, 'deprecation'>): string {
  const removed = kind.deprecation?.removed;
  return removed && (removed.major !== 0 || removed.minor !== 0) ? `${removed.major}.${removed.minor}` : '';
}

/**
 * Upstream's deprecation warning: `<group/version> <Kind> is deprecated in v1.X+`, then
 * `, unavailable in v1.Y+` and `; use <group/version> <Kind>` when known (the core group is written
 * without a group).
 */
export function deprecationWarning(kind: Pick<KindDefinition, 'group' | 'version' | 'kind' | 'deprecation'>): string {
  const lifecycle = kind.deprecation;
  if (!lifecycle) return '';
  let text = `${groupVersion(kind.group, kind.version)} ${kind.kind} is deprecated in v${lifecycle.deprecated.major}.${lifecycle.deprecated.minor}+`;
  const removed = removedRelease(kind);
  if (removed) text += `, unavailable in v${removed}+`;
  const replacement = lifecycle.replacement;
  if (replacement && (replacement.group || replacement.version || replacement.kind)) {
    text += `; use ${groupVersion(replacement.group, replacement.version)} ${replacement.kind}`;
  }
  return text;
}

/**
 * Marks a request routed to `kind` (the kind of the path's objects: the parent's, or a subresource's
 * own) when that kind's version is deprecated. The warning goes first, as upstream adds endpoint
 * warnings before the handler runs.
 */
export function noteDeprecatedRequest(
  ctx: Context,
  kind: KindDefinition,
  info: Pick<RequestInfo, 'apiGroup' | 'apiVersion' | 'resource' | 'subresource'>,
  context: RequestContext,
): void {
  // A custom resource's deprecated version: its own text, as the CRD handler adds it (no lifecycle behind it).
  if (kind.deprecationWarning !== undefined) {
    context.warnings.unshift(kind.deprecationWarning);
    return;
  }
  if (!isDeprecated(kind)) return;
  context.warnings.unshift(deprecationWarning(kind));
  const removed = removedRelease(kind);
  addAuditAnnotation(context, DEPRECATED_ANNOTATION, 'true');
  if (removed) addAuditAnnotation(context, REMOVED_RELEASE_ANNOTATION, removed);
  // Labelled by the path, as upstream labels its request metrics.
  (ctx.state as DeprecationState).deprecatedApi = {
    group: info.apiGroup,
    version: info.apiVersion,
    resource: info.resource,
    subresource: info.subresource,
    removedRelease: removed,
  };
}

function groupVersion(group: string, version: string): string {
  return group ? `${group}/${version}` : version;
}
