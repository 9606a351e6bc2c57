import type { Context } from 'koa';
import { writeObject } from '../respond.ts';
import type { RequestScope } from '../scope.ts';
import { decodeObject } from './decode-object.ts';

/** POST on a collection: 201 with the stored object. */
export async function handleCreate(ctx: Context, scope: RequestScope): Promise<void> {
  const { object, dryRun } = await decodeObject(ctx, scope);
  const stored = await scope.store.create(scope.info.namespace, object, { dryRun });
  writeObject(ctx, scope.kind, 201, stored.object, stored.text);
}
