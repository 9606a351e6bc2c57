import type Router from '@koa/router';
import type { Context } from 'koa';
import { runHealthChecks, type HealthCheck } from '../health/health-checks.ts';
import { queryParams } from '../query-params.ts';

export type HealthEndpoint = 'livez' | 'readyz' | 'healthz';

export interface HealthChecks {
  /** Checks per endpoint, in the order they are printed. */
  forEndpoint(endpoint: HealthEndpoint): readonly HealthCheck[];
}

/** /livez, /readyz, /healthz with `verbose` and `exclude`, and /<endpoint>/<check> for one check. */
export function registerHealthRoutes(router: Router, checks: HealthChecks): void {
  for (const endpoint of ['livez', 'readyz', 'healthz'] as const) {
    const serve = async (ctx: Context, only?: string) => {
      const q = queryParams(ctx);
      const result = await runHealthChecks(endpoint, [...checks.forEndpoint(endpoint)], { verbose: q.has('verbose'), exclude: q.getAll('exclude') }, only);
      ctx.status = result.status;
      ctx.set('Content-Type', result.contentType);
      ctx.set('X-Content-Type-Options', 'nosniff');
      ctx.body = result.body;
    };
    router.get(`/${endpoint}`, (ctx) => serve(ctx));
    router.get(`/${endpoint}/:check+`, (ctx) => serve(ctx, ctx.params.check));
  }
}
