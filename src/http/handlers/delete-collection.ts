import type { Context } from 'koa';
import { ApiError } from '../../api/errors.ts';
import type { KubeObject } from '../../api/types.ts';
import { apiVersionOf } from '../../registry/kind.ts';
import type { ListPage } from '../../registry/list-reader.ts';
import { parseListQuery, type ListQuery } from '../../registry/list-options.ts';
import type { DeleteOptions } from '../../registry/delete-options.ts';
import { negotiate, writeCommitted } from '../respond.ts';
import type { RequestScope } from '../scope.ts';
import { forWrite } from '../request-context.ts';
import { readDeleteOptions } from './delete.ts';
import { refuseUnsafeDeleteCollection } from '../../registry/unsafe-delete.ts';
import { queryParams } from '../query-params.ts';

/** Page size of the listing when the client set no limit (upstream's deleteCollectionPageSize). */
const LIST_PAGE = 10_000;
/** Deletes under way at once: enough for the write batcher to group them. */
const DELETE_WORKERS = 8;

interface Listed {
  readonly namespace: string;
  readonly name: string;
}

/**
 * DELETE on a collection, as upstream's DeleteCollection: list with the request's list options
 * (selectors, resourceVersion, limit and continue included), then delete what the list returned,
 * each through the same path as a single delete. With a limit, one page is listed and deleted and the
 * answer carries that page's continue token; without one, every page is listed first. Listing before
 * deleting keeps the snapshot's continue tokens young: a listing interleaved with deletes could outlive
 * the history window and fail half-way with 410.
 */
export async function handleDeleteCollection(ctx: Context, scope: RequestScope): Promise<void> {
  const negotiated = negotiate(ctx, scope, { allowTable: true });
  const options = await readDeleteOptions(ctx, scope);
  if (options.ignoreStoreReadErrorWithClusterBreakingPotential) throw refuseUnsafeDeleteCollection();
  const query = parseListQuery(queryParams(ctx));
  const namespace = scope.kind.namespaced && scope.info.namespace ? scope.info.namespace : undefined;
  const hasLimit = query.limit !== undefined && query.limit > 0;

  const listed: Listed[] = [];
  let first: ListPage | undefined;
  let last: ListPage;
  let next: ListQuery = { ...query, watch: false, limit: hasLimit ? query.limit : LIST_PAGE };
  for (;;) {
    last = await scope.store.list(scope.context, namespace, next);
    first ??= last;
    for (const text of last.items) {
      const meta = (JSON.parse(text) as KubeObject).metadata ?? {};
      listed.push({ namespace: String(meta.namespace ?? ''), name: String(meta.name) });
    }
    if (hasLimit || !last.continue) break;
    // Later pages follow the token alone: it carries the snapshot version.
    next = { ...next, continue: last.continue, resourceVersion: undefined, resourceVersionMatch: undefined };
  }

  const items = await deleteAll(scope, listed, options);
  const metadata: Record<string, unknown> = { resourceVersion: first.resourceVersion };
  if (hasLimit && last.continue) metadata.continue = last.continue;
  if (hasLimit && last.remainingItemCount !== undefined) metadata.remainingItemCount = last.remainingItemCount;
  const list = { kind: `${scope.kind.kind}List`, apiVersion: apiVersionOf(scope.kind), metadata, items };
  writeCommitted(ctx, scope, 200, list as unknown as KubeObject, undefined, negotiated);
}

/** Deletes each listed object (a few at a time); the answer lists them in listing order. */
async function deleteAll(scope: RequestScope, listed: readonly Listed[], options: DeleteOptions): Promise<KubeObject[]> {
  const results: (KubeObject | undefined)[] = new Array(listed.length);
  const context = forWrite(scope.context, { dryRun: options.dryRun });
  let cursor = 0;
  let failure: unknown;
  const worker = async (): Promise<void> => {
    while (failure === undefined && cursor < listed.length) {
      const i = cursor++;
      const { namespace, name } = listed[i]!;
      try {
        const outcome = await scope.store.delete(context, namespace, name, { ...options, preconditions: undefined });
        results[i] = outcome.object.object;
      } catch (err) {
        // Gone in the meantime is fine: someone else deleted it.
        if (err instanceof ApiError && err.code === 404) continue;
        failure ??= err;
      }
    }
  };
  await Promise.all(Array.from({ length: Math.min(DELETE_WORKERS, listed.length) }, worker));
  if (failure !== undefined) throw failure;
  return results.filter((o): o is KubeObject => o !== undefined);
}
