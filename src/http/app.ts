import Router from '@koa/router';
import Koa, { type Context, type Next } from 'koa';
import type { Logger } from 'pino';
import { ApiError, internalError } from '../api/errors.ts';
import { authenticate } from '../auth/authn/authenticate.ts';
import { impersonation } from '../auth/impersonation.ts';
import { authorize } from '../auth/authz/authorize.ts';
import { auditId, type Auditor } from '../audit/auditor.ts';
import type { AuthSetup } from '../auth/setup.ts';
import type { ApiSurface } from '../registry/api-surface.ts';
import { closeUnreadBodies } from './close-unread-bodies.ts';
import { probabilisticGoaway } from './goaway.ts';
import { maxInFlight, type MaxInFlightLimits } from './max-inflight.ts';
import { priorityAndFairness } from '../flowcontrol/apf-filter.ts';
import { registerDumpRoutes } from '../flowcontrol/debug-dump.ts';
import type { FlowControl } from '../flowcontrol/start-flow-control.ts';
import { registerMetricsRoute } from '../metrics/metrics-route.ts';
import type { ServerMetrics } from '../metrics/server-metrics.ts';
import { isLongRunning } from '../api/long-running.ts';
import { parseRequestInfo } from '../api/request-info.ts';
import { requestTimeout } from './request-timeout.ts';
import { compressResponses } from './response-compression.ts';
import { notFoundError, resourceHandler } from './resource-handler.ts';
import { writeStatus } from './respond.ts';
import { warningHeaderValues } from './warning-headers.ts';
import { registerDiscoveryRoutes } from './routes/discovery-routes.ts';
import { registerHealthRoutes, type HealthChecks } from './routes/health-routes.ts';
import { registerOpenApiRoutes } from './routes/openapi-routes.ts';
import { registerVersionRoute } from './routes/version-route.ts';
import type { ApiState, HandlerSettings } from './scope.ts';
import type { ShutdownGate } from './shutdown-gate.ts';
import { queryParams } from './query-params.ts';

export interface AppOptions {
  readonly surface: ApiSurface;
  /** Authentication methods, authorizers and the routes they serve (setUpAuth). */
  readonly auth: Pick<AuthSetup, 'authenticators' | 'anonymous' | 'authorizers' | 'routes' | 'services'>;
  readonly health: HealthChecks;
  readonly settings: Omit<HandlerSettings, 'watchTermination'>;
  readonly shutdownGate: ShutdownGate;
  /** `--max-requests-inflight` and `--max-mutating-requests-inflight` (used when flowControl is absent). */
  readonly maxInFlight: MaxInFlightLimits;
  /** API priority and fairness (`--enable-priority-and-fairness`): in place of the max-in-flight limit. */
  readonly flowControl?: FlowControl;
  readonly logger: Logger;
  readonly compression: boolean;
  readonly serverAddress: () => string;
  /** Auditing (`--audit-policy-file` and `--audit-log-path`); absent, the request path has no audit step. */
  readonly auditor?: Auditor;
  /** This server's metrics: served at /metrics, fed by the request path. */
  readonly metrics: ServerMetrics;
  /** `--goaway-chance`: the probability that an HTTP/2 request's session is sent GOAWAY after it. */
  readonly goawayChance?: number;
}

/**
 * The whole request path in one place, outermost first:
 * Audit-Id → closing connections with unread bodies → request metrics → errors → request info →
 * [GOAWAY by chance, HTTP/2] → shutdown gate →
 * [audit entry] → request timeout → authentication → [audit start] → impersonation → priority and
 * fairness (or max in flight without it) → authorization → warnings → compression → [audit capture] →
 * routes → resources. The audit steps are there only when auditing is on.
 */
export function buildApp(options: AppOptions): Koa {
  const app = new Koa();
  app.proxy = false;
  // koa's own error printing would duplicate ours; everything is logged in statusErrors.
  app.silent = true;

  const requestMetrics = options.metrics.requests(options.surface);
  const router = new Router();
  // Before the routes: the instrumented non-resource paths are marked only once a route matched them.
  const instrumented = requestMetrics.nonResourceRoutes();
  router.use(instrumented.paths, instrumented.middleware);
  registerMetricsRoute(router, options.metrics.registry);
  registerVersionRoute(router);
  registerHealthRoutes(router, options.health);
  registerDiscoveryRoutes(router, options.surface, options.serverAddress);
  registerOpenApiRoutes(router, options.surface);
  if (options.flowControl) registerDumpRoutes(router, options.flowControl.controller);
  for (const register of options.auth.routes) register(router);

  const auditor = options.auditor;
  app.use(auditId());
  app.use(requestLog(options.logger));
  app.use(closeUnreadBodies());
  // Outside the errors step, so that it sees every answer as sent (a Status included).
  app.use(requestMetrics.middleware());
  app.use(statusErrors(options.logger));
  app.use(requestInfo());
  if (options.goawayChance) app.use(probabilisticGoaway(options.goawayChance));
  app.use(options.shutdownGate.middleware());
  if (auditor) app.use(auditor.entry());
  app.use(requestTimeout(options.settings.requestTimeoutMs, options.logger));
  app.use(authenticate(options.auth.authenticators, { anonymous: options.auth.anonymous }));
  if (auditor) app.use(auditor.start());
  app.use(impersonation(options.auth.services.access));
  if (options.flowControl) app.use(priorityAndFairness({ ...options.flowControl, inFlight: options.metrics.inFlight }));
  else app.use(maxInFlight(options.maxInFlight, options.metrics.inFlight));
  app.use(authorize(auditor ? auditor.authorizers(options.auth.authorizers) : options.auth.authorizers));
  app.use(warningHeaders(options.logger));
  if (options.compression) app.use(compressAnswers());
  if (auditor) app.use(auditor.capture());
  const settings: HandlerSettings = { ...options.settings, watchTermination: options.shutdownGate.watchTermination };
  app.use(resourceHandler(options.surface, settings, options.logger));
  app.use(router.routes());
  app.use(notFound());
  return app;
}

/** One debug line per request (method, path, status, user, milliseconds); free when debug is off. */
function requestLog(logger: Logger) {
  return async function logRequest(ctx: Context, next: Next): Promise<void> {
    if (!logger.isLevelEnabled('debug')) return next();
    const started = performance.now();
    try {
      await next();
    } finally {
      const user = (ctx.state as Partial<ApiState>).user?.name;
      const ms = Math.round((performance.now() - started) * 10) / 10;
      logger.debug({ method: ctx.method, url: ctx.url, status: ctx.respond === false ? ctx.res.statusCode : ctx.status, user, ms }, 'request');
    }
  };
}

/** Outermost: every error becomes a Status in the negotiated type; nothing reaches koa's text handler. */
function statusErrors(logger: Logger) {
  return async function errorsToStatus(ctx: Context, next: Next): Promise<void> {
    try {
      await next();
    } catch (err) {
      let apiError: ApiError;
      // The registry turns storage errors into API errors: anything else here is a bug, answered 500.
      if (err instanceof ApiError) {
        apiError = err;
      } else {
        logger.error({ err, method: ctx.method, url: ctx.url }, 'request failed');
        apiError = internalError();
      }
      if (ctx.respond === false || ctx.headerSent) {
        if (!ctx.res.writableEnded) ctx.res.end();
        return;
      }
      if (apiError.code === 401) ctx.set('WWW-Authenticate', 'Basic realm="kubernetes-master"');
      const retryAfter = apiError.status.details?.retryAfterSeconds;
      if (retryAfter !== undefined) ctx.set('Retry-After', String(retryAfter));
      writeStatus(ctx, apiError.status);
    }
  };
}

function requestInfo() {
  return async function parseInfo(ctx: Context, next: Next): Promise<void> {
    const state = ctx.state as ApiState;
    state.requestInfo = parseRequestInfo(ctx.method, ctx.path, queryParams(ctx));
    state.warnings = [];
    await next();
  };
}

/**
 * Sends collected warnings as `Warning: 299 - "<text>"` headers (RFC 7234 5.5), encoded and limited as
 * upstream does. This runs after a write was committed: a warning that cannot be sent is logged and
 * dropped, never turned into an error answer.
 */
function warningHeaders(logger: Logger) {
  return async function warnings(ctx: Context, next: Next): Promise<void> {
    try {
      await next();
    } finally {
      const list = (ctx.state as ApiState).warnings;
      if (list.length > 0 && !ctx.headerSent && ctx.respond !== false) {
        try {
          const values = warningHeaderValues(list);
          if (values.length > 0) ctx.set('Warning', values);
          // Node writes the header block in the encoding of the first body chunk: a string body would
          // turn the UTF-8 bytes of a warning into Latin-1 characters encoded again.
          if (typeof ctx.body === 'string') ctx.body = Buffer.from(ctx.body, 'utf8');
        } catch (err) {
          logger.warn({ err, method: ctx.method, url: ctx.url }, 'warning headers not sent');
        }
      }
    }
  };
}

/**
 * gzip for large answers when the client accepts it (the APIResponseCompression gate). Upstream
 * compresses whatever it writes as one object (SerializeObject: the object or Status a get, list,
 * create, update, patch or delete answers with, and discovery); a watch's or another long-running
 * request's stream is never compressed, since gzip would hold its events back.
 */
function compressAnswers() {
  return compressResponses((ctx) => !isLongRunning((ctx.state as ApiState).requestInfo));
}

function notFound() {
  return async function nothingMatched(ctx: Context): Promise<void> {
    if (ctx.body === undefined && ctx.status === 404) throw notFoundError();
  };
}
