import { alreadyExists, ApiError, badRequest, conflict, deadlineExceeded, expired, notFound, serviceUnavailable, timeout, type QualifiedResource } from '../api/errors.ts';
import type { Status, StatusCause } from '../api/types.ts';
import { corruptObjectText } from '../storage/read-check.ts';
import { StorageError } from '../storage/storage.ts';

/**
 * Storage errors become API errors here, at the registry's boundary: storage knows nothing of
 * HTTP. Anything that is not a storage error passes through unchanged.
 */
export function toApiError(err: unknown, resource: QualifiedResource, name: string): unknown {
  if (!(err instanceof StorageError)) return err;
  switch (err.code) {
    case 'NotFound':
      return notFound(resource, name);
    case 'Exists':
      return alreadyExists(resource, name);
    case 'Conflict':
    case 'UidMismatch':
      return conflict(resource, name);
    case 'Expired':
      return expired(err.message);
    case 'Unstorable':
      return badRequest(err.message);
    case 'Unavailable': {
      const e = serviceUnavailable(err.message);
      e.status.details = { retryAfterSeconds: 1 };
      return e;
    }
    case 'Timeout':
      // The statement went out and no answer came: a write may still be applied (see StorageError).
      return deadlineExceeded();
    case 'TooLargeVersion': {
      const e = timeout(`Timeout: ${err.message}`);
      e.status.details = { causes: [{ reason: 'ResourceVersionTooLarge', message: 'Too large resource version' }], retryAfterSeconds: 1 };
      return e;
    }
    case 'Corrupt':
      return corruptObjectError(err);
    default:
      return err;
  }
}

/**
 * A read of one object that cannot be decoded: 500 InternalError around upstream's corrupt object
 * storage error, which names the object's key (`Internal error occurred: StorageError: corrupt
 * object, Code: 7, Key: /registry/configmaps/ns/name, …`). The unsafe delete recognises it by that
 * text, as upstream's does.
 */
function corruptObjectError(err: StorageError): ApiError {
  const first = err.corrupt?.[0];
  const text = first ? corruptObjectText(first) : err.message;
  return new ApiError(500, 'InternalError', `Internal error occurred: ${text}`, { causes: [{ message: text }] });
}

/** Whether an API error is the corrupt-object read error above (a stored object that does not decode). */
export function isCorruptObjectError(err: unknown): boolean {
  return err instanceof ApiError && err.code === 500 && err.message.includes('StorageError: corrupt object');
}

/** Storage errors of a list: corrupt objects are reported all together (storeReadError); the rest as toApiError. */
export function toListApiError(err: unknown, resource: QualifiedResource): unknown {
  if (err instanceof StorageError && err.code === 'Corrupt') return storeReadError(err, resource);
  return toApiError(err, resource, '');
}

/**
 * A list that met objects it cannot decode, as upstream answers one (with AllowUnsafeMalformedObjectDeletion's
 * error aggregation): 500 StorageReadError, one cause per object naming its key, and a last cause
 * when there were more than could be named. Those objects can be removed with a delete that sets
 * ignoreStoreReadErrorWithClusterBreakingPotential.
 */
export function storeReadError(err: StorageError, resource: QualifiedResource): ApiError {
  const causes: StatusCause[] = (err.corrupt ?? []).map((c) => ({ reason: 'UnexpectedServerResponse', message: corruptObjectText(c), field: c.key }));
  if (err.truncated) causes.push({ reason: 'FieldValueTooMany', message: 'too many errors, the list is truncated' });
  const qualified = resource.group ? `${resource.resource}.${resource.group}` : resource.resource;
  return new ApiError(500, 'StorageReadError', `failed to read one or more ${qualified} from the storage`, {
    group: resource.group,
    kind: resource.resource,
    name: 'list',
    causes,
  });
}

/**
 * The ERROR event that ends a watch the storage closed, when it closed it for a reason the client
 * must hear: a change whose object cannot be read (the unsafe deletion of a corrupt object), as
 * upstream's watch reports one (StorageReadError). Undefined for the other reasons.
 */
export function watchCloseError(reason: string, detail?: string): Status | undefined {
  if (reason !== 'unreadable') return undefined;
  return new ApiError(500, 'StorageReadError', `saw a DELETED event, but object data is corrupt - ${detail ?? ''}`).status;
}
