import { decodeManagedFields, ManagedFieldsDecodeError } from './decode.ts';
import { managedFieldsOf, setManagedFields, type JsonObject } from './object-meta.ts';

/**
 * Upstream's managedFieldsValidatingAdmissionController: a mutating admission plugin that leaves
 * metadata.managedFields undecodable gets its change to them undone, and the client is warned.
 * Call with the object after mutating admission and its managedFields from before it; returns the
 * warning to send, or undefined when the fields were fine.
 */
export function restoreManagedFieldsAfterAdmission(obj: JsonObject, before: unknown): string | undefined {
  try {
    decodeManagedFields(managedFieldsOf(obj));
    return undefined;
  } catch (err) {
    if (!(err instanceof ManagedFieldsDecodeError)) throw err;
    setManagedFields(obj, Array.isArray(before) ? before : undefined);
    return `.metadata.managedFields was in an invalid state after admission; this could be caused by an outdated mutating admission controller; please fix your requests: ${err.message}`;
  }
}
