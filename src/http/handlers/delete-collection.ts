import type { Context } from 'koa';
import { ApiError } from '../../api/errors.ts';
import type { KubeObject } from '../../api/types.ts';
import { apiVersionOf } from '../../registry/kind.ts';
import { listResource } from '../../registry/list-reader.ts';
import { parseListQuery } from '../../registry/list-options.ts';
import { writeObject } from '../respond.ts';
import type { RequestScope } from '../scope.ts';
import { readDeleteOptions } from './delete.ts';

const PAGE = 500;

/**
 * DELETE on a collection: deletes every object the selectors match (page by page), each through the
 * same path as a single delete, and answers with the list of what was deleted or is now terminating.
 */
export async function handleDeleteCollection(ctx: Context, scope: RequestScope): Promise<void> {
  const options = await readDeleteOptions(ctx, scope);
  const query = parseListQuery(ctx.URL.searchParams);
  const namespace = scope.kind.namespaced && scope.info.namespace ? scope.info.namespace : undefined;
  const items: KubeObject[] = [];
  let cont: string | undefined;
  let resourceVersion = '';
  do {
    // Later pages follow the token alone: it carries the snapshot version.
    const page = await listResource(scope.store, namespace, {
      ...query,
      watch: false,
      limit: PAGE,
      continue: cont,
      resourceVersion: cont ? undefined : query.resourceVersion,
      resourceVersionMatch: cont ? undefined : query.resourceVersionMatch,
    });
    resourceVersion ||= page.resourceVersion;
    for (const text of page.items) {
      const obj = JSON.parse(text) as KubeObject;
      const meta = obj.metadata ?? {};
      try {
        const outcome = await scope.store.delete(String(meta.namespace ?? ''), String(meta.name), { ...options, preconditions: undefined });
        items.push(outcome.object.object);
      } catch (err) {
        // Gone in the meantime is fine: someone else deleted it.
        if (err instanceof ApiError && err.code === 404) continue;
        throw err;
      }
    }
    cont = page.continue;
  } while (cont);
  const list = { kind: `${scope.kind.kind}List`, apiVersion: apiVersionOf(scope.kind), metadata: { resourceVersion }, items };
  writeObject(ctx, scope.kind, 200, list, undefined);
}
