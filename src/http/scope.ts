import type { Logger } from 'pino';
import type { UserInfo } from '../auth/user.ts';
import type { KindDefinition } from '../registry/kind.ts';
import type { ResourceStore } from '../registry/resource-store.ts';
import type { Storage } from '../storage/storage.ts';
import type { RequestInfo } from '../api/request-info.ts';

/** What a resource handler gets: the kind, its store, and the request's parsed attributes. */
export interface RequestScope {
  readonly kind: KindDefinition;
  readonly store: ResourceStore;
  readonly storage: Storage;
  readonly info: RequestInfo;
  readonly user: UserInfo;
  readonly settings: HandlerSettings;
  readonly logger: Logger;
}

export interface HandlerSettings {
  readonly maxRequestBodyBytes: number;
  readonly watchBookmarkIntervalMs: number;
  readonly minRequestTimeoutSeconds: number;
  /** --request-timeout in ms: non-watch requests are answered 504 past it. */
  readonly requestTimeoutMs: number;
  /** Gate WatchList: sendInitialEvents on watches. */
  readonly watchList: boolean;
  /** Aborted when the server starts draining at shutdown: every watch ends then. */
  readonly watchTermination: AbortSignal;
}

/** Koa state the middleware chain fills in. */
export interface ApiState {
  requestInfo: RequestInfo;
  user: UserInfo;
  /** `Warning` headers collected while handling (sent as `299 - "<text>"`). */
  warnings: string[];
}
