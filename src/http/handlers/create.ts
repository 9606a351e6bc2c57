import type { Context } from 'koa';
import { negotiate, writeCommitted } from '../respond.ts';
import type { RequestScope } from '../scope.ts';
import { forWrite } from '../request-context.ts';
import { decodeObject } from './decode-object.ts';

/** POST on a collection: 201 with the stored object. */
export async function handleCreate(ctx: Context, scope: RequestScope): Promise<void> {
  // The answer's encoding is settled before the write: a 406 must not follow a commit.
  const negotiated = negotiate(ctx, scope, { allowTable: true });
  const { object, dryRun, fieldManager } = await decodeObject(ctx, scope);
  const stored = await scope.store.create(forWrite(scope.context, { dryRun, fieldManager }), scope.info.namespace, object);
  writeCommitted(ctx, scope, 201, stored.object, stored.text, negotiated);
}
