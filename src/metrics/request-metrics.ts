import type { ServerResponse } from 'node:http';
import { Stream } from 'node:stream';
import type { Context, Next } from 'koa';
import type { RequestInfo } from '../api/request-info.ts';
import type { ApiSurface } from '../registry/api-surface.ts';
import { subresourceOf, type KindDefinition } from '../registry/kind.ts';
import type { ApiserverMetrics } from './apiserver-metrics.ts';
import type { CounterSeries, GaugeSeries, HistogramSeries } from './families.ts';
import { cleanDryRun, REPORTED_VERBS, reportedVerb, requestScope, routeScope, watchRequested, type MetricsScope } from './request-labels.ts';
import { queryParams } from '../http/query-params.ts';

/** What another part of the server records on a request to a deprecated API version. */
export interface DeprecatedApiRequest {
  readonly group: string;
  readonly version: string;
  readonly resource: string;
  readonly subresource: string;
  /** `major.minor` of the release that removes it; empty when none is planned. */
  readonly removedRelease?: string;
}

/** The request metrics' part of koa's state. */
export interface MetricsState {
  /** This server's request metrics, for the handlers that record on their own (watches). */
  requestMetrics?: RequestMetrics;
  /** The route that served the request: only requests that reach a route are counted, as upstream. */
  metricsRoute?: RouteMetrics;
  /** The long-running series a watch counts itself in while it runs. */
  metricsLongRunning?: GaugeSeries;
  /** The bytes a watch wrote to its response (it writes them itself, past koa). */
  metricsWritten?: { bytes: number };
  deprecatedApi?: DeprecatedApiRequest;
  requestInfo?: RequestInfo;
}

const COMPONENT = 'apiserver';
/** Non-resource paths upstream instruments: the health endpoints (component ""), aggregated discovery. */
const HEALTH_PATHS = ['/healthz', '/livez', '/readyz'];
const DISCOVERY_PATHS = ['/api', '/apis'];
/** Small numbers for the few values of verb, scope and dry_run, so that a route finds its series by one number. */
const VERB_SLOTS = new Map(REPORTED_VERBS.map((verb, i) => [verb, i]));
const SCOPE_SLOTS = new Map<MetricsScope, number>([['resource', 0], ['namespace', 1], ['cluster', 2], ['', 3]]);
const DRY_RUN_SLOTS = new Map([['', 0], ['All', 1], ['invalid', 2]]);

/** The series of one verb, scope and dry-run value on a route, made as they are first needed. */
class RequestSeries {
  readonly #metrics: ApiserverMetrics;
  readonly #labels: readonly string[];
  readonly #byCode = new Map<number, CounterSeries>();
  #duration: HistogramSeries | undefined;
  #sizes: HistogramSeries | undefined;

  constructor(metrics: ApiserverMetrics, route: RouteMetrics, verb: string, scope: string, dryRun: string) {
    this.#metrics = metrics;
    this.#labels = [verb, dryRun, route.group, route.version, route.resource, route.subresource, scope, route.component];
  }

  count(code: number): void {
    let series = this.#byCode.get(code);
    if (!series) {
      series = this.#metrics.requestTotal.series(...this.#labels, String(code));
      this.#byCode.set(code, series);
    }
    series.inc();
  }

  duration(): HistogramSeries {
    return (this.#duration ??= this.#metrics.requestDuration.series(...this.#labels));
  }

  sizes(): HistogramSeries {
    // Without dry_run, as upstream's response size labels.
    const [verb, , group, version, resource, subresource, scope, component] = this.#labels as [string, string, string, string, string, string, string, string];
    return (this.#sizes ??= this.#metrics.responseSizes.series(verb, group, version, resource, subresource, scope, component));
  }
}

/**
 * One route: a served resource (or subresource) of one version, or an instrumented non-resource
 * path. Its label values come from what the server serves, never from the request's path, so
 * nothing a client sends adds label values.
 */
export class RouteMetrics {
  readonly #metrics: ApiserverMetrics;
  readonly #series = new Map<number, RequestSeries>();
  readonly #longRunning = new Map<string, GaugeSeries>();

  constructor(
    metrics: ApiserverMetrics,
    readonly group: string,
    readonly version: string,
    readonly resource: string,
    readonly subresource: string,
    readonly component: string,
    /** undefined for non-resource routes (their scope is empty). */
    readonly namespaced: boolean | undefined,
    /** Aggregated discovery only: /api and /apis serve the legacy documents too, which upstream does not count. */
    readonly countsOnlyAggregatedDiscovery = false,
  ) {
    this.#metrics = metrics;
  }

  series(verb: string, scope: MetricsScope, dryRun: string): RequestSeries {
    const slot = (VERB_SLOTS.get(verb)! * SCOPE_SLOTS.size + SCOPE_SLOTS.get(scope)!) * DRY_RUN_SLOTS.size + DRY_RUN_SLOTS.get(dryRun)!;
    let series = this.#series.get(slot);
    if (!series) {
      series = new RequestSeries(this.#metrics, this, verb, scope, dryRun);
      this.#series.set(slot, series);
    }
    return series;
  }

  longRunning(verb: string, scope: MetricsScope): GaugeSeries {
    const key = `${verb} ${scope}`;
    let series = this.#longRunning.get(key);
    if (!series) {
      series = this.#metrics.longRunningRequests.series(verb, this.group, this.version, this.resource, this.subresource, scope, this.component);
      this.#longRunning.set(key, series);
    }
    return series;
  }
}

/** The series one watch bumps for each event it sends. */
export interface WatchEventSeries {
  readonly events: CounterSeries;
  readonly sizes: HistogramSeries;
}

/**
 * kube-apiserver's request instrumentation (InstrumentRouteFunc, RecordLongRunning,
 * RecordDroppedRequest, RecordRequestAbort) for this server: apiserver_request_total,
 * apiserver_request_duration_seconds, apiserver_response_sizes, apiserver_longrunning_requests,
 * apiserver_requested_deprecated_apis, apiserver_request_aborts_total and the watch event metrics.
 *
 * Like upstream, a request is counted when it reached a route: one the resource handler dispatched
 * (it calls markRouted), or an instrumented non-resource path. Requests refused by authentication or
 * authorization, and paths nothing serves, are not counted; 429s at the in-flight limit are.
 *
 * The request path stays cheap: label values are looked up in maps keyed by the served kind and
 * small slot numbers, and the series found are kept; no label string is built once a series exists.
 */
export class RequestMetrics {
  readonly #metrics: ApiserverMetrics;
  readonly #surface: ApiSurface;
  readonly #routes = new WeakMap<KindDefinition, Map<string, RouteMetrics>>();
  readonly #nonResourceRoutes = new Map<string, RouteMetrics>();
  readonly #watchSeries = new WeakMap<KindDefinition, WatchEventSeries>();
  /** Requests counted without a served route (429s, aborts of unknown paths): every label empty. */
  readonly #unrouted: RouteMetrics;

  constructor(metrics: ApiserverMetrics, surface: ApiSurface) {
    this.#metrics = metrics;
    this.#surface = surface;
    for (const path of HEALTH_PATHS) this.#nonResourceRoutes.set(path, new RouteMetrics(metrics, '', '', '', path, '', undefined));
    // Upstream's aggregated discovery handler names its path without the slash.
    for (const path of DISCOVERY_PATHS) this.#nonResourceRoutes.set(path, new RouteMetrics(metrics, '', '', '', path.slice(1), COMPONENT, undefined, true));
    this.#unrouted = new RouteMetrics(metrics, '', '', '', '', COMPONENT, undefined);
  }

  /** The middleware, outside the one that turns errors into a Status, so that it sees every answer. */
  middleware() {
    return async (ctx: Context, next: Next): Promise<void> => {
      const started = performance.now();
      const state = ctx.state as MetricsState;
      state.requestMetrics = this;
      try {
        await next();
      } finally {
        state.metricsLongRunning?.dec();
        const route = state.metricsRoute;
        if (route !== undefined) this.#finish(ctx, state, route, started);
      }
    };
  }

  /**
   * Router middleware for the instrumented non-resource paths (registered with the router, it runs
   * only when a route matched, after authorization).
   */
  nonResourceRoutes(): { paths: string[]; middleware: (ctx: Context, next: Next) => Promise<void> } {
    return {
      paths: [...this.#nonResourceRoutes.keys()],
      middleware: (ctx, next) => {
        const route = this.#nonResourceRoutes.get(ctx.path);
        if (route) (ctx.state as MetricsState).metricsRoute = route;
        return next();
      },
    };
  }

  /** The resource handler found a route for the request and is about to run it. */
  routed(ctx: Context, kind: KindDefinition): void {
    const state = ctx.state as MetricsState;
    const info = state.requestInfo!;
    const route = this.#routeOf(kind, info.subresource);
    state.metricsRoute = route;
    if (info.verb === 'watch') {
      const scope = routeScope(info, kind.namespaced);
      const series = route.longRunning('WATCH', scope);
      series.inc();
      state.metricsLongRunning = series;
      // A watch writes its response itself, and counts what it writes here.
      state.metricsWritten = { bytes: 0 };
    }
  }

  /** The series a watch on this kind bumps per event sent. */
  watchEvents(kind: KindDefinition): WatchEventSeries {
    let series = this.#watchSeries.get(kind);
    if (!series) {
      series = {
        events: this.#metrics.watchEventsTotal.series(kind.group, kind.version, kind.plural),
        sizes: this.#metrics.watchEventsSizes.series(kind.group, kind.version, kind.plural),
      };
      this.#watchSeries.set(kind, series);
    }
    return series;
  }

  /** A request refused with 429 at the in-flight limit (RecordDroppedRequest): counted, not timed. */
  dropped(ctx: Context): void {
    const info = (ctx.state as MetricsState).requestInfo!;
    const scope = requestScope(info);
    const verb = this.#verbOf(ctx, info, scope);
    this.#servedRouteOf(info).series(verb, scope, cleanDryRun(ctx.querystring, queryParams(ctx))).count(429);
  }

  /** A response the server cut off after it had begun (the request's deadline passed meanwhile). */
  aborted(ctx: Context): void {
    const info = (ctx.state as MetricsState).requestInfo!;
    const scope = requestScope(info);
    const route = this.#servedRouteOf(info);
    this.#metrics.requestAborts.series(this.#verbOf(ctx, info, scope), route.group, route.version, route.resource, route.subresource, scope).inc();
  }

  #routeOf(kind: KindDefinition, subresource: string): RouteMetrics {
    let byKind = this.#routes.get(kind);
    if (!byKind) {
      byKind = new Map();
      this.#routes.set(kind, byKind);
    }
    let route = byKind.get(subresource);
    if (!route) {
      route = new RouteMetrics(this.#metrics, kind.group, kind.version, kind.plural, subresource, COMPONENT, kind.namespaced);
      byKind.set(subresource, route);
    }
    return route;
  }

  /** The route of a served resource and subresource; anything else gets empty labels. */
  #servedRouteOf(info: RequestInfo): RouteMetrics {
    if (!info.isResourceRequest) return this.#unrouted;
    const served = this.#surface.lookup(info.apiGroup, info.apiVersion, info.resource);
    if (!served) return this.#unrouted;
    const subresource = info.subresource && subresourceOf(served.kind, info.subresource) ? info.subresource : '';
    return this.#routeOf(served.kind, subresource);
  }

  #verbOf(ctx: Context, info: RequestInfo, scope: MetricsScope): string {
    return reportedVerb(ctx.method, scope, info, watchRequested(ctx.querystring, queryParams(ctx)), () => ctx.get('content-type'));
  }

  #finish(ctx: Context, state: MetricsState, route: RouteMetrics, started: number): void {
    if (route.countsOnlyAggregatedDiscovery && !ctx.response.get('Content-Type').includes('APIGroupDiscoveryList')) return;
    const info = state.requestInfo!;
    const scope = route.namespaced === undefined ? '' : routeScope(info, route.namespaced);
    const rawQuery = ctx.querystring;
    const watchQuery = watchRequested(rawQuery, queryParams(ctx));
    const verb = reportedVerb(ctx.method, scope, info, watchQuery, () => ctx.get('content-type'));
    const series = route.series(verb, scope, rawQuery === '' ? '' : cleanDryRun(rawQuery, queryParams(ctx)));
    // Sizes are recorded for the GET routes (get and list, a ?watch=true list included), as upstream.
    const sized = (ctx.method === 'GET' || ctx.method === 'HEAD') && !(info.verb === 'watch' && !watchQuery);
    const deprecated = state.deprecatedApi;
    if (deprecated && route.namespaced !== undefined) {
      this.#metrics.requestedDeprecatedApis.series(route.group, route.version, route.resource, route.subresource, String(deprecated.removedRelease ?? '')).set(1);
    }

    const body: unknown = ctx.body;
    if (ctx.respond !== false && body instanceof Stream) {
      // A list written as it is read: it is over when the response is, and its size is what was written.
      const written = countWrites(ctx.res);
      const done = () => record(series, ctx.res.statusCode, started, sized ? written.bytes : undefined);
      // A client that already left closed the response: nothing more will be written.
      if (ctx.res.closed) done();
      else ctx.res.once('close', done);
      return;
    }
    // A watch wrote its response itself; anything else is a body koa is about to send.
    const streamed = ctx.respond === false;
    const size = streamed ? (state.metricsWritten?.bytes ?? 0) : bodyLength(body);
    record(series, streamed ? ctx.res.statusCode : ctx.status, started, sized ? size : undefined);
  }
}

function record(series: RequestSeries, code: number, started: number, size: number | undefined): void {
  series.count(code);
  series.duration().observe((performance.now() - started) / 1000);
  if (size !== undefined) series.sizes().observe(size);
}

function bodyLength(body: unknown): number {
  if (Buffer.isBuffer(body)) return body.length;
  if (typeof body === 'string') return Buffer.byteLength(body);
  return 0;
}

type Write = (chunk: unknown, ...rest: unknown[]) => boolean;
type End = (...args: unknown[]) => ServerResponse;

/** Counts the body bytes written to a response from now on (a list written as it is read). */
function countWrites(res: ServerResponse): { bytes: number } {
  const counter = { bytes: 0 };
  const target = res as unknown as { write: Write; end: End };
  const write = target.write;
  const end = target.end;
  const add = (chunk: unknown) => {
    if (typeof chunk === 'string') counter.bytes += Buffer.byteLength(chunk);
    else if (chunk instanceof Uint8Array) counter.bytes += chunk.byteLength;
  };
  target.write = function (this: ServerResponse, chunk: unknown, ...rest: unknown[]) {
    add(chunk);
    return write.call(this, chunk, ...rest);
  };
  target.end = function (this: ServerResponse, ...args: unknown[]) {
    if (typeof args[0] !== 'function') add(args[0]);
    return end.apply(this, args);
  };
  return counter;
}

/** This server's request metrics, from a request's state (undefined outside the server's app). */
export function requestMetricsOf(ctx: Context): RequestMetrics | undefined {
  return (ctx.state as MetricsState).requestMetrics;
}

/** Where a watch adds the bytes it writes to its response (undefined outside the server's app). */
export function watchResponseBytes(ctx: Context): { bytes: number } | undefined {
  return (ctx.state as MetricsState).metricsWritten;
}

/** The resource handler calls this once it has found the route it will run. */
export function markRouted(ctx: Context, kind: KindDefinition): void {
  requestMetricsOf(ctx)?.routed(ctx, kind);
}
