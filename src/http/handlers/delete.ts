import type { Context } from 'koa';
import { decodeBody, parseContentType } from '../../codecs/index.ts';
import { decodeProtobufObject } from '../../codecs/protobuf/index.ts';
import { parseDeleteOptions, type DeleteOptions } from '../../registry/delete-options.ts';
import type { DeleteOutcome } from '../../registry/resource-store.ts';
import { authorizeUnsafeDelete, deleteUnreadable } from '../../registry/unsafe-delete.ts';
import { readBody } from '../body.ts';
import { negotiate, writeCommitted, writeStatus } from '../respond.ts';
import { forWrite } from '../request-context.ts';
import { servesCbor, type RequestScope } from '../scope.ts';
import { queryParams } from '../query-params.ts';

/** DeleteOptions from the optional body and the query. */
export async function readDeleteOptions(ctx: Context, scope: RequestScope): Promise<DeleteOptions> {
  const raw = await readBody(ctx, scope.settings.maxRequestBodyBytes);
  let body: unknown;
  if (raw.length > 0) {
    const format = parseContentType(ctx.get('content-type') || undefined, { allowYaml: true, allowProtobuf: true, allowCbor: servesCbor(scope) });
    body =
      format === 'protobuf'
        ? decodeProtobufObject(raw, { expect: { apiVersion: 'meta.k8s.io/v1', kind: 'DeleteOptions' } }).object
        : decodeBody(raw, format, { maxDecodedBytes: scope.settings.maxRequestBodyBytes });
  }
  return parseDeleteOptions(queryParams(ctx), body, { allowUnsafeDelete: scope.context.featureGates.enabled('AllowUnsafeMalformedObjectDeletion') });
}

/**
 * DELETE on one object: the object (200) while it is Terminating, a Success Status once it is gone.
 * 202 only when the client explicitly asked for cascading deletion through orphanDependents=false.
 */
export async function handleDelete(ctx: Context, scope: RequestScope): Promise<void> {
  const negotiated = negotiate(ctx, scope, { allowTable: true });
  const options = await readDeleteOptions(ctx, scope);
  const context = forWrite(scope.context, { dryRun: options.dryRun });
  let outcome: DeleteOutcome;
  if (options.ignoreStoreReadErrorWithClusterBreakingPotential) {
    // An object that cannot be read (src/registry/unsafe-delete.ts).
    await authorizeUnsafeDelete(context, scope.info, scope.store.qualified);
    const result = await deleteUnreadable(scope.store, context, scope.info.namespace, scope.info.name, options);
    if ('status' in result) {
      writeStatus(ctx, result.status);
      return;
    }
    outcome = result.outcome;
  } else {
    outcome = await scope.store.delete(context, scope.info.namespace, scope.info.name, options);
  }
  if (outcome.gone && outcome.status) {
    writeStatus(ctx, outcome.status);
    return;
  }
  if (outcome.gone) {
    // Kinds that return the deleted object answer 200 with it.
    writeCommitted(ctx, scope, 200, outcome.object.object, outcome.object.text, negotiated);
    return;
  }
  const code = options.orphanDependents === false ? 202 : 200;
  writeCommitted(ctx, scope, code, outcome.object.object, outcome.object.text, negotiated);
}
