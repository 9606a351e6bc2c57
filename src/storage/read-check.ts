/**
 * Reading rows that may not be objects any more. The server's own writes are decoded and validated
 * before they are stored, so their rows are served as they are (as JSON text, unparsed). A row
 * changed outside the server (see migrations/0004-rows-written-outside.ts) is checked when read: a
 * row that does not decode as an object of its resource is a corrupt object, as upstream's storage
 * calls an object it cannot transform or decode (storage.NewCorruptObjError).
 */
import { StorageError, type ObjectKey, type ResourceRef } from './storage.ts';

/**
 * Whether a stored value can be read as an object of its resource: undefined when it can, otherwise
 * the decoder's complaint. The registry supplies one per resource (it knows the kinds).
 */
export type ReadCheck = (value: unknown) => string | undefined;

/** One stored object that cannot be read. */
export interface CorruptObject {
  /** Where it is stored, in the form of upstream's storage keys (`/registry/configmaps/ns/name`). */
  readonly key: string;
  readonly namespace: string;
  readonly name: string;
  /** The version of the row as stored. */
  readonly resourceVersion: number;
  /** Why it cannot be read (the decoder's words). */
  readonly message: string;
}

/** The most corrupt objects one list reports; past it the report says it was cut (upstream's limit). */
export const MAX_REPORTED_CORRUPT_OBJECTS = 100;

/** The storage key of an object, as upstream's keys read: `/registry/[<group>/]<resource>/[<namespace>/]<name>`. */
export function storageKeyOf(key: ObjectKey): string {
  const group = key.group ? `${key.group}/` : '';
  const namespace = key.namespace ? `${key.namespace}/` : '';
  return `/registry/${group}${key.resource}/${namespace}${key.name}`;
}

export function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** What Go calls a JSON value in its decoding errors. */
export function jsonKindOf(value: unknown): string {
  if (Array.isArray(value)) return 'array';
  if (value === null) return 'null';
  if (typeof value === 'boolean') return 'bool';
  return typeof value;
}

/**
 * The least every stored object must be for the server to handle it at all: a JSON object with a
 * metadata object. Resources without a check of their own get this one.
 */
export const STRUCTURAL_READ_CHECK: ReadCheck = (value) => {
  if (!isPlainObject(value)) return `json: cannot unmarshal ${jsonKindOf(value)} into Go value of type map[string]interface {}`;
  if (value.metadata === undefined || value.metadata === null) return 'object has no metadata';
  if (!isPlainObject(value.metadata)) return `metadata is a JSON ${jsonKindOf(value.metadata)}, not an object`;
  return undefined;
};

/** The read checks of a storage, by resource. */
export class ReadChecks {
  readonly #checks = new Map<string, ReadCheck>();

  set(ref: ResourceRef, check: ReadCheck): void {
    this.#checks.set(refKey(ref), check);
  }

  /** The resource's check, or the structural one. */
  for(ref: ResourceRef): ReadCheck {
    return this.#checks.get(refKey(ref)) ?? STRUCTURAL_READ_CHECK;
  }

  /**
   * Checks one row (text as stored): the corrupt object it is, or undefined when it reads. Text that
   * is not JSON cannot come from jsonb, but is reported rather than thrown all the same.
   */
  check(key: ObjectKey, text: string, resourceVersion: number): CorruptObject | undefined {
    let value: unknown;
    try {
      value = JSON.parse(text);
    } catch (err) {
      return corrupt(key, resourceVersion, (err as Error).message);
    }
    let message: string | undefined;
    try {
      message = this.for(key)(value);
    } catch (err) {
      // A check that trips over the value has met a value it cannot read.
      message = (err as Error).message;
    }
    return message === undefined ? undefined : corrupt(key, resourceVersion, message);
  }
}

function corrupt(key: ObjectKey, resourceVersion: number, message: string): CorruptObject {
  return { key: storageKeyOf(key), namespace: key.namespace, name: key.name, resourceVersion, message };
}

function refKey(ref: ResourceRef): string {
  return `${ref.group}/${ref.resource}`;
}

/** Corrupt, with upstream's aggregated text: `unable to transform or decode N objects: {…}`. */
export function corruptObjectsError(corrupt: readonly CorruptObject[], truncated = false): StorageError {
  const lines = corrupt.map((c) => `\t${corruptObjectText(c)}\n`);
  if (truncated) lines.push('\ttoo many errors, the list is truncated\n');
  return new StorageError('Corrupt', `unable to transform or decode ${lines.length} objects: {\n${lines.join('')}}`, undefined, corrupt, truncated);
}

/**
 * One corrupt object as upstream's storage error prints it (storage.NewCorruptObjError around its
 * decoder's complaint): `StorageError: corrupt object, Code: 7, Key: …, ResourceVersion: 0,
 * AdditionalErrorMsg: object not decodable revision=<version>: <why>`.
 */
export function corruptObjectText(c: CorruptObject): string {
  return `StorageError: corrupt object, Code: 7, Key: ${c.key}, ResourceVersion: 0, AdditionalErrorMsg: object not decodable revision=${c.resourceVersion}: ${c.message}`;
}
