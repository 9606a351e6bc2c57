import type Router from '@koa/router';
import type { MetricsRegistry } from './metrics-registry.ts';

/**
 * GET /metrics in the Prometheus text format. It is a non-resource URL like /livez: authorization
 * asks for `get` on `/metrics` (system:masters, and the system:monitoring group through the bootstrap
 * ClusterRole of that name, may). The scrape itself is not counted in the request metrics, as upstream.
 */
export function registerMetricsRoute(router: Router, registry: MetricsRegistry): void {
  router.get('/metrics', async (ctx) => {
    const text = await registry.text();
    ctx.set('Content-Type', registry.contentType);
    ctx.set('X-Content-Type-Options', 'nosniff');
    ctx.body = text;
  });
}
