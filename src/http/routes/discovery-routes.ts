import type Router from '@koa/router';
import type { Context } from 'koa';
import { encodeBody } from '../../codecs/index.ts';
import type { ApiSurface } from '../../registry/api-surface.ts';
import {
  aggregatedDiscovery,
  apiGroup,
  apiGroupList,
  apiResourceList,
  apiVersions,
  discoveryETag,
  negotiateDiscovery,
} from '../discovery/index.ts';
import { notFoundError } from '../resource-handler.ts';
import { perSurface } from './surface-cache.ts';

function sendDocument(ctx: Context, contentType: string, format: 'json' | 'yaml' | 'protobuf', doc: unknown, etag?: string): void {
  ctx.status = 200;
  ctx.set('Content-Type', contentType);
  ctx.set('Vary', 'Accept');
  if (etag) {
    ctx.set('ETag', etag);
    ctx.set('Cache-Control', 'public');
    if (ctx.get('if-none-match') === etag) {
      ctx.status = 304;
      return;
    }
  }
  ctx.body = encodeBody(doc, format === 'yaml' ? 'yaml' : 'json');
}

/** /api, /apis (legacy and aggregated), /api/v1, /apis/<group>, /apis/<group>/<version>. */
export function registerDiscoveryRoutes(router: Router, surface: ApiSurface, serverAddress: () => string): void {
  const aggregated = {
    api: {
      v2: perSurface(surface, (kinds) => aggregatedDiscovery(kinds, 'api', 'v2')),
      v2beta1: perSurface(surface, (kinds) => aggregatedDiscovery(kinds, 'api', 'v2beta1')),
    },
    apis: {
      v2: perSurface(surface, (kinds) => aggregatedDiscovery(kinds, 'apis', 'v2')),
      v2beta1: perSurface(surface, (kinds) => aggregatedDiscovery(kinds, 'apis', 'v2beta1')),
    },
  };
  // Documents are rebuilt when the served kinds change: their etags go with them.
  const etags = new WeakMap<object, string>();
  const etagOf = (doc: object) => {
    let e = etags.get(doc);
    if (!e) etags.set(doc, (e = discoveryETag(doc)));
    return e;
  };

  const root = (which: 'api' | 'apis', legacy: () => unknown) => (ctx: Context) => {
    const n = negotiateDiscovery(ctx.get('accept') || undefined);
    if (n.mode === 'aggregated') {
      const doc = aggregated[which][n.version]();
      sendDocument(ctx, n.contentType, n.format, doc, etagOf(doc));
    } else {
      sendDocument(ctx, n.contentType, n.format, legacy());
    }
  };
  const groups = perSurface(surface, (kinds) => apiGroupList(kinds));
  router.get('/api', root('api', () => apiVersions(serverAddress())));
  router.get('/apis', root('apis', groups));

  const legacyOnly = (build: (ctx: Context) => unknown) => (ctx: Context) => {
    const doc = build(ctx);
    if (!doc) throw notFoundError();
    const n = negotiateDiscovery(ctx.get('accept') || undefined);
    sendDocument(ctx, n.mode === 'legacy' ? n.contentType : 'application/json', n.format, doc);
  };
  router.get('/api/:version', legacyOnly((ctx) => (ctx.params.version === 'v1' ? apiResourceList(surface.kinds, '', 'v1') : undefined)));
  router.get('/apis/:group', legacyOnly((ctx) => apiGroup(surface.kinds, ctx.params.group)));
  router.get('/apis/:group/:version', legacyOnly((ctx) => apiResourceList(surface.kinds, ctx.params.group, ctx.params.version)));
}
