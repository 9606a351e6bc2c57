import { decodeFieldsV1 } from './fields-v1-cache.ts';
import { FIELDS_V1, OPERATION_APPLY, OPERATION_UPDATE, STRING_FIELDS } from './entry.ts';
import { buildManagerIdentifier } from './identifier.ts';
import { emptyManaged, type Managed } from './managed.ts';
import { parseTimeSeconds } from './time.ts';

/** A managedFields list that cannot be decoded; the message is upstream's where upstream has one. */
export class ManagedFieldsDecodeError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'ManagedFieldsDecodeError';
  }
}

function isObject(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

/** A string field of an entry: '' when absent or null (Go's zero), an error for anything else. */
function stringField(entry: Record<string, unknown>, key: string, index: number): string {
  const v = entry[key];
  if (v === undefined || v === null) return '';
  if (typeof v !== 'string') throw new ManagedFieldsDecodeError(`managed fields entry ${index}: ${key} must be a string`);
  return v;
}

/**
 * metadata.managedFields as upstream's DecodeManagedFields reads it: every entry needs an
 * operation of Apply or Update, an apiVersion and fieldsType FieldsV1; entries with the same
 * identifier collapse into the last one. Absent or null is an empty set of managers.
 */
export function decodeManagedFields(raw: unknown): Managed {
  const managed = emptyManaged();
  if (raw === undefined || raw === null) return managed;
  if (!Array.isArray(raw)) throw new ManagedFieldsDecodeError('managedFields must be a list');
  raw.forEach((item, i) => {
    if (!isObject(item)) throw new ManagedFieldsDecodeError(`managed fields entry ${i} must be an object`);
    const operation = stringField(item, 'operation', i);
    if (operation !== OPERATION_APPLY && operation !== OPERATION_UPDATE) {
      throw new ManagedFieldsDecodeError('operation must be `Apply` or `Update`');
    }
    const apiVersion = stringField(item, 'apiVersion', i);
    if (apiVersion.length < 1) throw new ManagedFieldsDecodeError('apiVersion must not be empty');
    const fieldsType = stringField(item, 'fieldsType', i);
    if (fieldsType === '') throw new ManagedFieldsDecodeError(`missing fieldsType in managed fields entry ${i}`);
    if (fieldsType !== FIELDS_V1) throw new ManagedFieldsDecodeError(`invalid fieldsType ${JSON.stringify(fieldsType)} in managed fields entry ${i}`);
    const manager = stringField(item, 'manager', i);
    const subresource = stringField(item, 'subresource', i);
    const identifier = buildManagerIdentifier({ manager, operation, apiVersion, subresource });
    let set;
    try {
      // An entry without fieldsV1 manages nothing (upstream reads it as `{}`).
      set = decodeFieldsV1(item.fieldsV1 ?? {});
    } catch (err) {
      // Upstream prints the whole entry struct here (with pointer addresses); the identifier says as much.
      throw new ManagedFieldsDecodeError(`error decoding versioned set from ${identifier}: error decoding set: ${(err as Error).message}`);
    }
    managed.fields.set(identifier, { set, apiVersion, applied: operation === OPERATION_APPLY });
    managed.times.set(identifier, entryTime(item.time, i));
  });
  return managed;
}

function entryTime(raw: unknown, index: number): number | undefined {
  if (raw === undefined || raw === null) return undefined;
  const seconds = typeof raw === 'string' ? parseTimeSeconds(raw) : undefined;
  if (seconds === undefined) throw new ManagedFieldsDecodeError(`managed fields entry ${index}: time ${JSON.stringify(raw)} is not an RFC 3339 time`);
  return seconds;
}

/** Decodes, and on failure answers an empty set of managers (upstream's emptyManagedFieldsOnErr). */
export function decodeOrEmpty(raw: unknown): Managed {
  try {
    return decodeManagedFields(raw);
  } catch (err) {
    if (err instanceof ManagedFieldsDecodeError) return emptyManaged();
    throw err;
  }
}

/** Go's zero ManagedFieldsEntry: every field empty or null (unknown keys do not count, as Go ignores them). */
function isZeroEntry(entry: unknown): boolean {
  if (!isObject(entry)) return false;
  for (const key of STRING_FIELDS) {
    const v = entry[key];
    if (v !== undefined && v !== null && v !== '') return false;
  }
  return (entry.time === undefined || entry.time === null) && (entry.fieldsV1 === undefined || entry.fieldsV1 === null);
}

/**
 * A request asks to drop every entry by sending an empty list or a list of one empty entry; an
 * absent or null list is not such a request (upstream's isResetManagedFields).
 */
export function isResetManagedFields(raw: unknown): boolean {
  if (!Array.isArray(raw)) return false;
  if (raw.length === 0) return true;
  return raw.length === 1 && isZeroEntry(raw[0]);
}
