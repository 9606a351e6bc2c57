import type Router from '@koa/router';
import type { Context } from 'koa';
import type { ApiSurface } from '../../registry/api-surface.ts';
import { buildOpenapiV3, encodeOpenapiV2Protobuf, OPENAPI_V2_PROTOBUF_MEDIA_TYPE, openapiV2Document } from '../openapi/index.ts';
import { notFoundError } from '../resource-handler.ts';
import { perSurface } from './surface-cache.ts';
import { KUBERNETES_VERSION } from './version-route.ts';

/** The media type /openapi/v2 protobuf is served under (clients ask with either spelling). */
const OPENAPI_V2_PROTOBUF_RESPONSE_TYPE = 'application/com.github.proto-openapi.spec.v2.v1.0+protobuf';

/**
 * /openapi/v2 (JSON, or gnostic protobuf for kubectl's client-side validation) and /openapi/v3
 * (the index, then one document per group-version, addressed with a content hash).
 */
export function registerOpenApiRoutes(router: Router, surface: ApiSurface): void {
  const options = { version: KUBERNETES_VERSION.gitVersion };
  const v3 = perSurface(surface, (kinds) => {
    const built = buildOpenapiV3(kinds, options);
    return { indexJson: JSON.stringify(built.index), documents: built.documents };
  });
  const v2 = perSurface(surface, (kinds) => {
    const doc = openapiV2Document(kinds, options);
    return { json: JSON.stringify(doc), protobuf: Buffer.from(encodeOpenapiV2Protobuf(doc)) };
  });

  router.get('/openapi/v2', (ctx: Context) => {
    const accept = ctx.get('accept');
    const doc = v2();
    if (accept.includes(OPENAPI_V2_PROTOBUF_MEDIA_TYPE) || accept.includes(OPENAPI_V2_PROTOBUF_RESPONSE_TYPE)) {
      // Answer with the dotted form, as kube-apiserver does: `@` is no MIME token character, and
      // client-go (kubectl 1.27/1.28) fails on the response with "mime: unexpected content after media subtype".
      ctx.set('Content-Type', OPENAPI_V2_PROTOBUF_RESPONSE_TYPE);
      ctx.body = doc.protobuf;
      return;
    }
    ctx.set('Content-Type', 'application/json');
    ctx.body = doc.json;
  });
  router.get('/openapi/v3', (ctx: Context) => {
    ctx.set('Content-Type', 'application/json');
    ctx.body = v3().indexJson;
  });
  router.get('/openapi/v3/:path+', (ctx: Context) => {
    const entry = v3().documents.get(ctx.params.path);
    if (!entry) throw notFoundError();
    ctx.set('Content-Type', 'application/json');
    ctx.set('Etag', `"${entry.hash}"`);
    // A request naming the current hash may be cached forever; without it, revalidate.
    ctx.set('Cache-Control', ctx.query.hash === entry.hash ? 'public, immutable, max-age=31536000' : 'no-cache, private');
    ctx.body = entry.json;
  });
}
