import type { Logger } from 'pino';
import type { FeatureGates, RequestContext } from '../api/request-context.ts';
import type { AuthServices } from '../auth/services.ts';
import type { UserInfo } from '../auth/user.ts';
import type { KindDefinition } from '../registry/kind.ts';
import type { ResourceStore } from '../registry/resource-store.ts';
import type { RequestInfo } from '../api/request-info.ts';

/** What a resource handler gets: the kind, its store, the request's parsed attributes and its context. */
export interface RequestScope {
  readonly kind: KindDefinition;
  readonly store: ResourceStore;
  readonly info: RequestInfo;
  /** The request's context for the store (a write handler adds its dryRun and fieldManager). */
  readonly context: RequestContext;
  readonly settings: HandlerSettings;
  readonly logger: Logger;
}

/** CBOR is served while the CBORServingAndStorage gate is on, for kinds that have a CBOR form. */
export function servesCbor(scope: Pick<RequestScope, 'context' | 'kind'>): boolean {
  return scope.kind.wire.cbor && scope.context.featureGates.enabled('CBORServingAndStorage');
}

export interface HandlerSettings {
  readonly maxRequestBodyBytes: number;
  readonly watchBookmarkIntervalMs: number;
  readonly minRequestTimeoutSeconds: number;
  /** --request-timeout in ms: non-watch requests are answered 504 past it. */
  readonly requestTimeoutMs: number;
  /** --feature-gates as requests see them (WatchList: sendInitialEvents on watches). */
  readonly featureGates: FeatureGates;
  /** Aborted when the server starts draining at shutdown: every watch ends then. */
  readonly watchTermination: AbortSignal;
  /** Authentication and authorization services, handed to every request's context. */
  readonly auth?: AuthServices;
}

/** Koa state the middleware chain fills in. */
export interface ApiState {
  requestInfo: RequestInfo;
  user: UserInfo;
  /** `Warning` headers collected while handling (sent as `299 - "<text>"`). */
  warnings: string[];
}
