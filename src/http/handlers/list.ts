import type { Context } from 'koa';
import type { KubeObject } from '../../api/types.ts';
import { encodeBody, isPretty } from '../../codecs/index.ts';
import { encodeCborList, encodeCborValue } from '../../codecs/cbor/index.ts';
import { supportsProtobuf } from '../../codecs/protobuf/index.ts';
import { apiVersionOf } from '../../registry/kind.ts';
import type { ListPage } from '../../registry/list-reader.ts';
import { parseListQuery } from '../../registry/list-options.ts';
import { parseIncludeObject, toTable } from '../../registry/table.ts';
import { listBody } from '../list-body.ts';
import { encodeNegotiated, negotiate } from '../respond.ts';
import type { RequestScope } from '../scope.ts';
import { queryParams } from '../query-params.ts';

/**
 * GET on a collection: one page, at the snapshot the resourceVersion rules pick. A list without a
 * limit is written as it is read (list-body.ts), so that its memory follows a chunk of items rather
 * than the collection; a page (with a limit) is built whole, as it is bounded by its limit.
 */
export async function handleList(ctx: Context, scope: RequestScope): Promise<void> {
  const n = negotiate(ctx, scope, { allowTable: true });
  const query = parseListQuery(queryParams(ctx));
  const namespace = scope.kind.namespaced && scope.info.namespace ? scope.info.namespace : undefined;
  const pretty = n.pretty || isPretty(ctx.query.pretty as string | undefined, ctx.get('user-agent'));
  const table = n.output === 'table-json' || n.output === 'table-yaml';
  // Only a Table reads includeObject (a bad value is a 400 then, and ignored otherwise).
  const includeObject = table ? parseIncludeObject(ctx.query.includeObject as string | undefined) : 'Metadata';

  // Protobuf for a kind without a protobuf form is a 406, which the whole-list path words.
  const streamable = n.format !== 'protobuf' || supportsProtobuf(apiVersionOf(scope.kind), `${scope.kind.kind}List`);
  const cursor = streamable ? await scope.store.openList(scope.context, namespace, query) : undefined;
  if (cursor) {
    ctx.status = 200;
    ctx.set('Content-Type', n.contentType);
    ctx.body = listBody(cursor, {
      kind: scope.kind,
      negotiated: n,
      pretty,
      includeObject,
      onError: (err) => {
        // Too late for a Status: the client sees the response cut off, as from the real server.
        scope.logger.error({ err, url: ctx.url }, 'list failed while it was written; closing the connection');
        ctx.res.destroy();
      },
    });
    return;
  }

  const page = await scope.store.list(scope.context, namespace, query);

  ctx.status = 200;
  ctx.set('Content-Type', n.contentType);
  if (table) {
    const objects = page.items.map((t) => JSON.parse(t) as KubeObject);
    const rendered = toTable(scope.kind, objects, {
      includeObject,
      listMeta: listMeta(page),
      version: n.convert?.version,
    });
    ctx.body = encodeBody(rendered, n.output === 'table-yaml' ? 'yaml' : 'json', { pretty });
  } else if (n.format === 'json' && !pretty) {
    ctx.body = listJson(scope, page);
  } else if (n.format === 'cbor') {
    const head = { kind: `${scope.kind.kind}List`, apiVersion: apiVersionOf(scope.kind), metadata: listMeta(page) };
    ctx.body = encodeCborList(head, page.items.map((t) => encodeCborValue(JSON.parse(t), scope.kind.schema)));
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
