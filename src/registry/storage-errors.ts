import { alreadyExists, badRequest, conflict, deadlineExceeded, expired, notFound, serviceUnavailable, timeout, type QualifiedResource } from '../api/errors.ts';
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
    default:
      return err;
  }
}
