import type { Context } from 'koa';
import type { KubeObject } from '../../api/types.ts';
import { encodeBody, isPretty } from '../../codecs/index.ts';
import { apiVersionOf } from '../../registry/kind.ts';
import { listResource, type ListPage } from '../../registry/list-reader.ts';
import { parseListQuery } from '../../registry/list-options.ts';
import { parseIncludeObject, toTable } from '../../registry/table.ts';
import { encodeNegotiated, negotiate } from '../respond.ts';
import type { RequestScope } from '../scope.ts';

/** GET on a collection: one page, at the snapshot the resourceVersion rules pick. */
export async function handleList(ctx: Context, scope: RequestScope): Promise<void> {
  const n = negotiate(ctx, { allowTable: true });
  const query = parseListQuery(ctx.URL.searchParams);
  const namespace = scope.kind.namespaced && scope.info.namespace ? scope.info.namespace : undefined;
  const page = await listResource(scope.store, namespace, query);
  const pretty = n.pretty || isPretty(ctx.query.pretty as string | undefined, ctx.get('user-agent'));

  ctx.status = 200;
  ctx.set('Content-Type', n.contentType);
  if (n.output === 'table-json' || n.output === 'table-yaml') {
    const objects = page.items.map((t) => JSON.parse(t) as KubeObject);
    const table = toTable(scope.kind, objects, {
      includeObject: parseIncludeObject(ctx.query.includeObject as string | undefined),
      listMeta: listMeta(page),
      version: n.convert?.version,
    });
    ctx.body = encodeBody(table, n.output === 'table-yaml' ? 'yaml' : 'json', { pretty });
  } else if (n.format === 'json' && !pretty) {
    ctx.body = listJson(scope, page);
  } else {
    const list = JSON.parse(listJson(scope, page)) as unknown;
    ctx.body = encodeNegotiated(list, n, pretty);
  }
}

function listMeta(page: ListPage) {
  return {
    resourceVersion: page.resourceVersion,
    ...(page.continue ? { continue: page.continue } : {}),
    ...(page.remainingItemCount !== undefined ? { remainingItemCount: page.remainingItemCount } : {}),
  };
}

/** The list as JSON text, splicing the stored item texts in without parsing them. */
function listJson(scope: RequestScope, page: ListPage): string {
  const head = JSON.stringify({ kind: `${scope.kind.kind}List`, apiVersion: apiVersionOf(scope.kind), metadata: listMeta(page) });
  return `${head.slice(0, -1)},"items":[${page.items.join(',')}]}\n`;
}
