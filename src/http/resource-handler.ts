import type { Context, Next } from 'koa';
import { ApiError, methodNotAllowed } from '../api/errors.ts';
import type { ApiSurface } from '../registry/api-surface.ts';
import { subresourceOf, type Verb } from '../registry/kind.ts';
import type { Logger } from 'pino';
import { handleCreate, handleSubresourceCreate } from './handlers/create.ts';
import { handleDelete } from './handlers/delete.ts';
import { handleDeleteCollection } from './handlers/delete-collection.ts';
import { handleGet } from './handlers/get.ts';
import { handleList } from './handlers/list.ts';
import { handlePatch } from './handlers/patch.ts';
import { handleUpdate } from './handlers/update.ts';
import { handleWatch } from './handlers/watch.ts';
import { noteDeprecatedRequest } from './deprecation.ts';
import { markRouted } from '../metrics/request-metrics.ts';
import { requestContextOf } from './request-context.ts';
import type { ApiState, HandlerSettings, RequestScope } from './scope.ts';

type Handler = (ctx: Context, scope: RequestScope) => Promise<void>;

const HANDLERS: Record<Verb, Handler> = {
  get: handleGet,
  list: handleList,
  watch: handleWatch,
  create: handleCreate,
  update: handleUpdate,
  patch: handlePatch,
  delete: handleDelete,
  deletecollection: handleDeleteCollection,
};

/** The 404 for a path nothing serves; upstream's carries empty details (`"details":{}`). */
export function notFoundError(): ApiError {
  return new ApiError(404, 'NotFound', 'the server could not find the requested resource', {});
}

/** Dispatches resource requests (/api/v1/…, /apis/<g>/<v>/…) to the handler of their verb. */
export function resourceHandler(surface: ApiSurface, settings: HandlerSettings, logger: Logger) {
  return async function resources(ctx: Context, next: Next): Promise<void> {
    const state = ctx.state as ApiState;
    const info = state.requestInfo;
    if (!info.isResourceRequest) return next();
    const entry = surface.lookup(info.apiGroup, info.apiVersion, info.resource);
    if (!entry) throw notFoundError();
    const { kind, store } = entry;
    const verb = info.verb as Verb;
    const context = requestContextOf(ctx, info, settings.featureGates, settings.auth);
    // A custom resource's deprecated version warns on every request its CRD handler gets, before
    // any routing: subresources (status, and scale though it is a Scale) and refused requests too.
    const crdWarning = kind.deprecationWarning !== undefined;
    if (crdWarning) noteDeprecatedRequest(ctx, kind, info, context);
    if (info.parts.length > 0) throw notFoundError();
    const sub = info.subresource ? subresourceOf(kind, info.subresource) : undefined;
    if (info.subresource) {
      if (!sub) throw notFoundError();
      if (!sub.verbs.includes(verb)) throw methodNotAllowed();
    }
    // Cluster-scoped kinds have no namespaced paths; namespaced kinds have no cluster paths for one object.
    const namespacedPath = info.inNamespace;
    if (!kind.namespaced && namespacedPath) throw notFoundError();
    if (kind.namespaced && !namespacedPath) {
      if (info.name && verb !== 'list' && verb !== 'watch') throw notFoundError();
      if (verb !== 'list' && verb !== 'watch') throw methodNotAllowed();
    }
    const scope: RequestScope = { kind, store, info, context, settings, logger };
    if (sub?.respond && verb === 'create') {
      if (!info.name) throw methodNotAllowed();
      noteDeprecatedRequest(ctx, sub.respond.kind, info, context);
      markRouted(ctx, kind);
      return handleSubresourceCreate(ctx, scope, sub.respond);
    }
    if (!kind.verbs.includes(verb) || !(verb in HANDLERS)) throw methodNotAllowed();
    if (verb === 'create' && info.name) throw methodNotAllowed();
    // PUT and PATCH address one object; a collection path has no such route.
    if ((verb === 'update' || verb === 'patch') && !info.name) throw methodNotAllowed();
    // Routed: a deprecated version is marked now (a request no route serves above is not). A
    // subresource of a kind of its own (scale, eviction) carries that kind's lifecycle, not the parent's.
    if (!sub?.kind && !crdWarning) noteDeprecatedRequest(ctx, kind, info, context);
    // Counted in the request metrics from here on, as upstream counts what reached a route.
    markRouted(ctx, kind);
    await HANDLERS[verb](ctx, scope);
  };
}
