/**
 * The unsafe deletion of objects that cannot be read (KEP-3926, upstream's corrupt object deleter):
 * DELETE with `ignoreStoreReadErrorWithClusterBreakingPotential=true`, under the
 * AllowUnsafeMalformedObjectDeletion gate, removes an object whose stored data no longer decodes,
 * which no other request can (every read of it fails). It is for that object only: a readable one is
 * refused; the normal delete is tried first; then the row is removed without being read, so its
 * finalizers, preconditions and admission are skipped, and whatever depended on it is left as it is.
 */
import { ApiError, forbidden, invalid, type FieldError, type QualifiedResource } from '../api/errors.ts';
import type { RequestContext } from '../api/request-context.ts';
import type { RequestInfo } from '../api/request-info.ts';
import type { SuccessStatus } from '../api/types.ts';
import { addAuditAnnotation } from '../audit/annotations.ts';
import { StorageError, type ObjectKey } from '../storage/storage.ts';
import type { DeleteOptions } from './delete-options.ts';
import type { DeleteOutcome, ResourceStore } from './resource-store.ts';
import { isCorruptObjectError, toApiError } from './storage-errors.ts';

/** The verb a user needs on the resource, besides delete, to delete with the option. */
export const UNSAFE_DELETE_VERB = 'unsafe-delete-ignore-read-errors';

const OPTION = 'ignoreStoreReadErrorWithClusterBreakingPotential';

/** The audit annotation that marks a request that asked for it (whatever came of it). */
const AUDIT_ANNOTATION = 'apiserver.k8s.io/unsafe-delete-ignore-read-error';

/** Attempts at removing the row while others write it (each re-reads it). */
const ATTEMPTS = 4;

/**
 * What the handler does before deleting with the option (upstream's DeleteResource): marks the audit
 * event, and, when authorization is on, asks for the `unsafe-delete-ignore-read-errors` verb on the
 * object (403 with upstream's words otherwise). Not on a subresource.
 */
export async function authorizeUnsafeDelete(ctx: RequestContext, info: RequestInfo, resource: QualifiedResource): Promise<void> {
  addAuditAnnotation(ctx, AUDIT_ANNOTATION, '');
  if (!info.isResourceRequest || info.subresource) {
    throw forbidden(resource, info.name, `${OPTION} delete option is not allowed on a subresource or non-resource request`);
  }
  // No authorization configured: nothing to ask (as AlwaysAllow would answer).
  if (!ctx.auth) return;
  const request: RequestInfo = { ...info, verb: UNSAFE_DELETE_VERB, subresource: '' };
  let result;
  try {
    result = await ctx.auth.access.authorize({ user: ctx.user, request });
  } catch (err) {
    throw forbidden(resource, info.name, `error while checking permission for "${UNSAFE_DELETE_VERB}", ${(err as Error).message}`);
  }
  if (result.decision === 'allow') return;
  throw forbidden(resource, info.name, `not permitted to do "${UNSAFE_DELETE_VERB}", reason: ${result.reason ?? ''}`);
}

/** Deletecollection never takes the option (422, upstream's words). */
export function refuseUnsafeDeleteCollection(): ApiError {
  return invalid('meta.k8s.io', 'DeleteOptions', '', [
    { type: 'FieldValueInvalid', field: OPTION, value: true, detail: 'is not allowed with DELETECOLLECTION, try again after removing the option' },
  ]);
}

/** What came of an unsafe delete: the normal delete's outcome (it worked after all), or upstream's Status. */
export type UnsafeDeleteResult = { readonly outcome: DeleteOutcome } | { readonly status: SuccessStatus };

/**
 * Deletes an object that cannot be read, as upstream's corruptObjectDeleter does. Answers the outcome
 * of the normal delete when that one succeeds after all, otherwise the Status upstream's handler
 * fills in for a deleter that returns no object (Success, code 200, the name and the Kind).
 */
export async function deleteUnreadable(store: ResourceStore, ctx: RequestContext, namespace: string, name: string, options: DeleteOptions): Promise<UnsafeDeleteResult> {
  const key = store.key(namespace, name);
  // Straight to storage: only an object that fails to decode qualifies (not one that is missing, or
  // one whose read failed otherwise, as upstream's check is).
  const first = await readState(store, key).catch((err) => {
    if (err instanceof StorageError) return 'failed otherwise' as const;
    throw err;
  });
  if (typeof first === 'string') throw notCorrupt(store.qualified, name);

  // The normal delete first: it is expected to fail on the same read error.
  try {
    return { outcome: await store.delete(ctx, namespace, name, options) };
  } catch (err) {
    if (!isCorruptObjectError(err)) throw err;
  }

  const deleteRow = store.storage.deleteUnreadable?.bind(store.storage);
  if (!deleteRow) throw new Error(`the storage of ${store.qualified.resource} cannot delete unreadable objects`);
  for (let attempt = 0; attempt < ATTEMPTS; attempt++) {
    // Read again: the object may have been removed or rewritten since (upstream notes the race).
    const state = await readState(store, key).catch((err) => Promise.reject(toApiError(err, store.qualified, name)));
    if (state === 'gone') return { status: removed(store, name) };
    if (state === 'readable') throw notCorrupt(store.qualified, name);
    try {
      await deleteRow(key, state.resourceVersion, `object not decodable revision=${state.resourceVersion}: ${state.message}`);
      return { status: removed(store, name) };
    } catch (err) {
      if (err instanceof StorageError && err.code === 'Conflict') continue;
      // Gone meanwhile: deleted, though not by us (upstream answers success too).
      if (err instanceof StorageError && err.code === 'NotFound') return { status: removed(store, name) };
      throw toApiError(err, store.qualified, name);
    }
  }
  throw toApiError(new StorageError('Conflict', 'too many concurrent changes'), store.qualified, name);
}

/** Whether the stored object reads, is gone, or cannot be read (and why); other read failures are thrown. */
async function readState(store: ResourceStore, key: ObjectKey): Promise<{ resourceVersion: number; message: string } | 'gone' | 'readable'> {
  try {
    return (await store.storage.get(key)) ? 'readable' : 'gone';
  } catch (err) {
    const corrupt = err instanceof StorageError && err.code === 'Corrupt' ? err.corrupt?.[0] : undefined;
    if (corrupt) return { resourceVersion: corrupt.resourceVersion, message: corrupt.message };
    throw err;
  }
}

/** 422 on the option for an object that reads (or does not exist), as upstream words it. */
function notCorrupt(resource: QualifiedResource, name: string): ApiError {
  const error: FieldError = { type: 'FieldValueInvalid', field: OPTION, value: true, detail: 'is exclusively used to delete corrupt object(s), try again by removing this option' };
  // Upstream names the resource where a Kind would go (its own TODO says so).
  return invalid(resource.group, resource.resource, name, [error]);
}

/** Upstream's handler's Status for a deleter that returns no object. */
function removed(store: ResourceStore, name: string): SuccessStatus {
  return { kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Success', details: { name, kind: store.kind.kind }, code: 200 };
}
