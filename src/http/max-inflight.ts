import type { Context, Next } from 'koa';
import { isLongRunning } from '../api/long-running.ts';
import { SYSTEM_MASTERS } from '../auth/user.ts';
import type { InFlightObserver } from '../metrics/inflight-metrics.ts';
import type { ApiState } from './scope.ts';

export interface MaxInFlightLimits {
  /** `--max-requests-inflight`: get, list (and non-resource GETs) at once; 0 means no limit. */
  readonly nonMutating: number;
  /** `--max-mutating-requests-inflight`: every other verb at once; 0 means no limit. */
  readonly mutating: number;
}

/** Verbs that change nothing; every other verb (and non-resource POSTs and the like) is mutating. */
const NON_MUTATING_VERBS = new Set(['get', 'list', 'watch']);

/** What kube-apiserver answers past the limit (a plain-text body, not a Status), and when to retry. */
const TOO_MANY = 'Too many requests, please try again later.\n';
const RETRY_AFTER_SECONDS = '1';

/**
 * kube-apiserver's max-in-flight filter (the one it uses without API Priority and Fairness): at most
 * so many non-mutating and so many mutating requests are served at once; past that a request gets
 * 429 with `Retry-After: 1` at once (clients retry), except for members of system:masters, who are
 * always served. Watches and other long-running requests are not counted. A request holds its place
 * until its response is over, streamed list bodies included.
 *
 * Runs after authentication (for the system:masters exception) and before authorization, as upstream.
 * The observer (the metrics) hears each count as it changes, and each request refused; without any
 * limit there is no filter upstream, and nothing to observe.
 */
export function maxInFlight(limits: MaxInFlightLimits, observer?: InFlightObserver) {
  const inFlight = { mutating: 0, nonMutating: 0 };
  if (limits.mutating > 0 || limits.nonMutating > 0) observer?.start();
  return async function limitInFlight(ctx: Context, next: Next): Promise<void> {
    const state = ctx.state as ApiState;
    const info = state.requestInfo;
    if (isLongRunning(info)) return next();
    const kind = NON_MUTATING_VERBS.has(info.verb) ? 'nonMutating' : 'mutating';
    const limit = limits[kind];
    if (limit <= 0) return next();
    if (inFlight[kind] >= limit) {
      if (state.user?.groups.includes(SYSTEM_MASTERS)) return next();
      observer?.dropped(ctx);
      tooManyRequests(ctx);
      return;
    }
    inFlight[kind]++;
    observer?.inFlight(kind, inFlight[kind]);
    let released = false;
    const release = () => {
      if (released) return;
      released = true;
      inFlight[kind]--;
      observer?.inFlight(kind, inFlight[kind]);
    };
    // 'close' comes once the response is over, or its connection gone: after a streamed body too.
    ctx.res.once('close', release);
    await next();
  };
}

/** The 429 both limiters answer with (http.Error's plain text), telling the client when to retry. */
export function tooManyRequests(ctx: Context, retryAfterSeconds = RETRY_AFTER_SECONDS): void {
  ctx.status = 429;
  ctx.set('Retry-After', retryAfterSeconds);
  ctx.set('X-Content-Type-Options', 'nosniff');
  ctx.set('Content-Type', 'text/plain; charset=utf-8');
  ctx.body = TOO_MANY;
}
