import type { Context } from 'koa';
import { negotiate, writeCommitted } from '../respond.ts';
import type { RequestScope } from '../scope.ts';
import { forWrite } from '../request-context.ts';
import { decodeObject } from './decode-object.ts';
import { handleMappedUpdate, mappingOf } from './mapped-subresource.ts';

/** PUT on an object or a subresource: 200, or 201 when the kind creates on update. */
export async function handleUpdate(ctx: Context, scope: RequestScope): Promise<void> {
  const mapping = mappingOf(scope);
  if (mapping) return handleMappedUpdate(ctx, scope, mapping);
  const negotiated = negotiate(ctx, scope, { allowTable: true });
  const { object, dryRun, fieldManager } = await decodeObject(ctx, scope);
  const { stored, created } = await scope.store.replace(forWrite(scope.context, { dryRun, fieldManager }), scope.info.namespace, scope.info.name, object);
  writeCommitted(ctx, scope, created ? 201 : 200, stored.object, stored.text, negotiated);
}
