import type { Context, Next } from 'koa';
import { goAwayAfterResponse, isHttp2 } from './connection-close.ts';
import { isLongRunning } from '../api/long-running.ts';
import type { ApiState } from './scope.ts';

/**
 * `--goaway-chance` (upstream's WithProbabilisticGoaway): with that probability an HTTP/2 request's
 * session is sent GOAWAY, so that a client multiplexing everything over one connection reconnects
 * now and then, likely through the load balancer to another replica. Its requests under way finish
 * (GOAWAY names the last stream served). Watches and other long-running requests never draw, and
 * HTTP/1.1 is left alone. `random` is for tests.
 */
export function probabilisticGoaway(chance: number, random: () => number = Math.random) {
  return function goawaySometimes(ctx: Context, next: Next): Promise<void> {
    if (isHttp2(ctx.req) && !isLongRunning((ctx.state as ApiState).requestInfo) && random() < chance) goAwayAfterResponse(ctx);
    return next();
  };
}
