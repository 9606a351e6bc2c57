import type { Context } from 'koa';
import { answerCreate } from '../../registry/answered-create.ts';
import type { SubresourceResponder } from '../../registry/kind.ts';
import { negotiate, writeCommitted, writeObject } from '../respond.ts';
import type { RequestScope } from '../scope.ts';
import { forWrite } from '../request-context.ts';
import { decodeObject } from './decode-object.ts';

/** POST on a collection: 201 with the stored object (or, for kinds that answer instead of storing, the answer). */
export async function handleCreate(ctx: Context, scope: RequestScope): Promise<void> {
  // The answer's encoding is settled before the write: a 406 must not follow a commit.
  const negotiated = negotiate(ctx, scope, { allowTable: true });
  const { object, dryRun, fieldManager } = await decodeObject(ctx, scope);
  const context = forWrite(scope.context, { dryRun, fieldManager });
  const respond = scope.kind.respond;
  if (respond) {
    const answer = await answerCreate(scope.kind, context, scope.info.namespace, object, (obj) => respond.create(context, scope.info.namespace, obj));
    writeObject(ctx, scope.kind, 201, answer, undefined, negotiated);
    return;
  }
  const stored = await scope.store.create(context, scope.info.namespace, object);
  writeCommitted(ctx, scope, 201, stored.object, stored.text, negotiated);
}

/** POST on a subresource with its own code (serviceaccounts/<name>/token): the body and answer are of the responder's kind. */
export async function handleSubresourceCreate(ctx: Context, scope: RequestScope, responder: SubresourceResponder): Promise<void> {
  const bodyScope: RequestScope = { ...scope, kind: responder.kind };
  const negotiated = negotiate(ctx, bodyScope, { allowTable: false });
  const { object, dryRun, fieldManager } = await decodeObject(ctx, bodyScope);
  const context = forWrite(scope.context, { dryRun, fieldManager });
  const { namespace, name } = scope.info;
  const answer = await answerCreate(responder.kind, context, namespace, object, (obj) => responder.create(context, namespace, name, obj));
  writeObject(ctx, responder.kind, 201, answer, undefined, negotiated);
}
