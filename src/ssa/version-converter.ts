/**
 * Upstream's merge.Converter as the Updater sees it: managers' sets recorded at another apiVersion
 * are compared against the objects converted to that version and typed by its schema. Synchronous on
 * purpose (the Updater is pure and synchronous): a caller whose conversions wait on something (a
 * CRD's conversion webhook) answers from what it converted already, and throws otherwise (see
 * src/registry/managed-fields/conversions.ts). Without a converter the Updater compares every set
 * against the request's objects, as for built-in kinds, which have one version each here.
 */
import type { JsonValue } from './fieldpath/path-element.ts';
import type { ObjectSchema } from '../schema/type-schema.ts';

export interface VersionConverter {
  /** The schema objects of `apiVersion` are typed by; undefined for a version the kind does not have (upstream's missing version). */
  schemaOf(apiVersion: string): ObjectSchema | undefined;
  /** `value` (an object of another version of the kind) converted to `apiVersion`. Throws when it cannot. */
  convert(value: JsonValue, apiVersion: string): JsonValue;
}

/** A conversion (or the typing of its result) failed: worded as upstream's Updater wraps it. */
export class ConversionFailedError extends Error {
  constructor(message: string, cause?: unknown) {
    super(message, cause === undefined ? undefined : { cause });
    this.name = 'ConversionFailedError';
  }
}

/**
 * Thrown by a converter that has yet to convert `value` to `apiVersion` (its conversions wait): the
 * Updater lets it through untouched, so that the caller can convert and run the Updater again.
 */
export class ConversionPending extends Error {
  constructor(readonly value: JsonValue, readonly apiVersion: string) {
    super(`conversion to ${apiVersion} pending`);
    this.name = 'ConversionPending';
  }
}
