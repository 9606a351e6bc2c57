import { constants as http2Constants } from 'node:http2';
import type { Context, Next } from 'koa';
import type { Logger } from 'pino';
import { allottedTimeoutExceeded, badRequest, deadlineExceeded, type ApiError } from '../api/errors.ts';
import { parseGoDurationStrict } from '../api/go/duration.ts';
import type { RequestInfo } from '../api/request-info.ts';
import { requestMetricsOf } from '../metrics/request-metrics.ts';
import { isHttp2 } from './connection-close.ts';
import type { ApiState } from './scope.ts';
import { queryParams } from './query-params.ts';

/** The longest delay a Node timer takes; past it setTimeout fires at once. */
export const MAX_TIMER_MS = 2 ** 31 - 1;

/** Requests that stay open by design and have timeouts of their own (watches: timeoutSeconds). */
export function isLongRunning(info: RequestInfo): boolean {
  return info.verb === 'watch';
}

/** Writes: when one times out, upstream's handler answers with its own deadline text (FinishRequest). */
const WRITE_VERBS = new Set(['create', 'update', 'patch', 'delete', 'deletecollection']);

/**
 * The deadline of one request, as upstream's WithRequestDeadline sets it: `--request-timeout`, or
 * the client's `timeout` query parameter (Go duration syntax) when that is shorter and positive.
 * A `timeout` Go cannot parse is a 400.
 */
export function requestDeadlineMs(timeoutParam: string | null, maxMs: number): number {
  if (timeoutParam === null || timeoutParam === '') return maxMs;
  const parsed = parseGoDurationStrict(timeoutParam);
  if ('error' in parsed) throw badRequest(`invalid timeout specified in the request URL - ${parsed.error}`);
  // Below a millisecond still means "a timeout": round up so that 1ns does not become "none".
  const ms = Number((parsed.ns + 999_999n) / 1_000_000n);
  return parsed.ns > 0n && ms < maxMs ? ms : maxMs;
}

/**
 * `--request-timeout` (upstream's WithRequestDeadline and WithTimeoutForNonLongRunningRequests):
 * a request other than a watch that has not been answered by its deadline is answered 504 Timeout.
 * The work behind it is not cancelled (upstream's goroutine runs on too): a write that already went
 * to the database may still be applied, which the 504 tells the client; it is logged when it ends.
 * A response that had already started cannot become a 504: its connection is cut, as upstream
 * aborts the handler. A body the client is still sending is cut with it: the 504 closes the
 * connection (see closeUnreadBodies).
 */
export function requestTimeout(maxMs: number, logger: Logger) {
  return function timeoutNonLongRunning(ctx: Context, next: Next): Promise<void> {
    const info = (ctx.state as ApiState).requestInfo;
    if (isLongRunning(info)) return next();
    const deadlineMs = Math.min(requestDeadlineMs(queryParams(ctx).get('timeout'), maxMs), MAX_TIMER_MS);
    // One timer and one promise per request, settled by whichever comes first (this is on every request's path).
    return new Promise<void>((resolve, reject) => {
      let settled = false;
      const work = next();
      const timer = setTimeout(() => {
        settled = true;
        onTimeout(ctx, info, work, logger).then(resolve, reject);
      }, deadlineMs);
      work.then(
        () => {
          if (settled) return;
          clearTimeout(timer);
          resolve();
        },
        (err: unknown) => {
          if (settled) return;
          clearTimeout(timer);
          reject(err);
        },
      );
    });
  };
}

/** The deadline passed with `work` still running: answer 504 (or cut a response already under way). */
async function onTimeout(ctx: Context, info: RequestInfo, work: Promise<unknown>, logger: Logger): Promise<void> {
  const started = performance.now();
  work.then(
    () => logger.debug({ method: ctx.method, url: ctx.url, ms: Math.round(performance.now() - started) }, 'post-timeout activity: the request finished'),
    (err: unknown) => logger.debug({ err, method: ctx.method, url: ctx.url }, 'post-timeout activity: the request failed'),
  );
  // A handler that goes on writing to the response after the 504 must not crash the process.
  ctx.res.on('error', () => undefined);
  if (ctx.res.headersSent) {
    requestMetricsOf(ctx)?.aborted(ctx);
    // Over HTTP/2 the socket is the session's, shared with other requests: only this stream is reset.
    if (isHttp2(ctx.req)) ctx.req.stream.close(http2Constants.NGHTTP2_INTERNAL_ERROR);
    else ctx.req.socket.destroy();
    return;
  }
  // A streaming handler may have taken the response over without writing yet: the 504 is ours.
  ctx.respond = true;
  throw timedOut(info, ctx.req.complete);
}

/**
 * Upstream's two answers: a write whose body was read may be in its storage call, which upstream's
 * handler gives up on with its own text; anything else (a read, a body still arriving) gets the
 * timeout filter's.
 */
function timedOut(info: RequestInfo, bodyReceived: boolean): ApiError {
  return info.isResourceRequest && WRITE_VERBS.has(info.verb) && bodyReceived ? deadlineExceeded() : allottedTimeoutExceeded();
}
