import { cloneJson } from '../../codecs/deep-json.ts';
import type { FieldSet } from '../../ssa/fieldpath/index.ts';
import { ConflictsError } from '../../ssa/conflicts.ts';
import { ConversionFailedError, ConversionPending, Updater, type VersionConverter } from '../../ssa/updater.ts';
import { ApiError } from '../../api/errors.ts';
import type { ObjectSchema } from '../../schema/type-schema.ts';
import { defaultChain, type ChainOptions } from './chain/default-chain.ts';
import { runConverting, type KindVersions } from './conversions.ts';
import { applyConflictError } from './conflict-error.ts';
import { decodeManagedFields, decodeOrEmpty, isResetManagedFields, ManagedFieldsDecodeError } from './decode.ts';
import { encodeManagedFields } from './encode.ts';
import type { Managed } from './managed.ts';
import { managedFieldsOf, parseGroupVersion, setManagedFields, withoutManagedFields, type JsonObject } from './object-meta.ts';
import { dateSeconds } from './time.ts';
import { emptyObjectFor, withoutZeroLeftovers } from './zero-object.ts';

export interface FieldManagerOptions {
  readonly schema: ObjectSchema;
  /** The endpoint's apiVersion (`apps/v1`, `v1`). */
  readonly apiVersion: string;
  readonly kind: string;
  /** The subresource written through; '' for the main resource. */
  readonly subresource: string;
  /** Fields this endpoint's strategy resets, by apiVersion (see resetFieldsFor). */
  readonly resetFields?: ReadonlyMap<string, FieldSet>;
  /**
   * The kind's defaulting, run on the object an apply produces (upstream defaults it right after the
   * merge, before the object goes on to admission and the strategy). Without it, the caller must
   * default the result of apply itself.
   */
  readonly defaulter?: (obj: JsonObject) => void;
  /** Upstream's DefaultMaxUpdateManagers (10); tests may lower it. */
  readonly maxUpdateManagers?: number;
  /**
   * The kind's other versions (a custom resource with several): sets recorded at one of them are
   * compared against the objects converted there (use updateConverting / applyConverting). Without
   * it every set is compared at the endpoint's version.
   */
  readonly versions?: KindVersions;
}

/**
 * Records who manages which fields of an object, in metadata.managedFields, on every write, and
 * performs server-side apply (upstream's FieldManager over NewDefaultFieldManager's chain). One
 * per endpoint: a kind's main resource and each of its subresources get their own.
 */
export class FieldManager {
  readonly #chain: ChainOptions;
  readonly #subresource: string;
  readonly #versions: KindVersions | undefined;

  constructor(options: FieldManagerOptions) {
    const gv = parseGroupVersion(options.apiVersion);
    if (!gv) throw new Error(`invalid apiVersion ${options.apiVersion}`);
    const gvk = { ...gv, kind: options.kind };
    this.#subresource = options.subresource;
    this.#versions = options.versions;
    this.#chain = {
      schema: options.schema,
      gvk,
      subresource: options.subresource,
      updater: new Updater(options.schema, options.resetFields ? { ignoredFields: options.resetFields } : {}),
      emptyObject: () => emptyObjectFor(options.schema, options.apiVersion, options.kind),
      ...(options.defaulter ? { defaulter: options.defaulter } : {}),
      ...(options.maxUpdateManagers !== undefined ? { maxUpdateManagers: options.maxUpdateManagers } : {}),
    };
  }

  /** A new, empty object of the endpoint's kind: the live object of a create. */
  emptyObject(): JsonObject {
    return this.#chain.emptyObject();
  }

  /**
   * Upstream's UpdateNoErrors: `next` (copied) with metadata.managedFields recording `manager`'s
   * Update; `live` is the stored object, or null for a create. managedFields the client sent are
   * kept when they decode and are not empty; an empty list (or a list of one empty entry) clears
   * them; otherwise the stored ones carry on. Writes through a subresource always carry on the
   * stored ones. Never fails: if the fields cannot be worked out, the object goes without them.
   */
  update(live: object | null, next: object, manager: string, now: Date = new Date(), converter?: VersionConverter): object {
    const liveObj = (live as JsonObject | null) ?? this.emptyObject();
    const managed = this.#decodeLiveOrNew(liveObj, next as JsonObject);
    // The copy leaves out the managedFields sent (read above; the result gets its own): not copying
    // them is what removing them from a whole copy would come to, key order included.
    const object = cloneJson(withoutManagedFields(next as JsonObject));
    try {
      const result = this.#chainFor(now, converter).update(liveObj, object, managed, manager);
      setManagedFields(result.object, encodeManagedFields(result.managed));
      return result.object;
    } catch (err) {
      // A conversion still to be done (updateConverting does it and runs this again).
      if (err instanceof ConversionPending) throw err;
      // Upstream logs "[SHOULD NOT HAPPEN]" and stores the object without managedFields, so that
      // nothing half-computed is ever kept.
      setManagedFields(object, undefined);
      return object;
    }
  }

  /**
   * Upstream's Apply: `config` applied by `manager` over `live` (the stored object, or null for a
   * create, which applies over emptyObject() and leaves out what only that empty object held).
   * Returns the object to store with its managedFields: the merge result, or for an apply that
   * changes nothing a copy of the live object (whose managedFields may still change, say when a
   * second manager now co-owns fields, and whose last-applied annotation kubectl may refresh).
   * Throws ApiError: 409 Conflict unless `force`; 400 for a configuration of another kind or
   * version, with managedFields, or that does not fit the schema. A stored object whose
   * managedFields or shape is broken is the server's own fault: a plain Error.
   */
  apply(live: object | null, config: object, manager: string, force: boolean, now: Date = new Date(), converter?: VersionConverter): object {
    const liveObj = (live as JsonObject | null) ?? this.emptyObject();
    let managed: Managed;
    try {
      managed = decodeManagedFields(managedFieldsOf(liveObj));
    } catch (err) {
      if (err instanceof ManagedFieldsDecodeError) throw new Error(`failed to decode managed fields: ${err.message}`);
      throw err;
    }
    let result;
    try {
      result = this.#chainFor(now, converter).apply(liveObj, config as JsonObject, managed, manager, force);
    } catch (err) {
      if (err instanceof ConflictsError) throw applyConflictError(err.conflicts);
      if (err instanceof ConversionFailedError) throw conversionFailed(err);
      throw err;
    }
    // The chain's last link turns "unchanged" into a copy of the live object.
    const object = result.object!;
    if (live === null) withoutZeroLeftovers(object, liveObj, config);
    setManagedFields(object, encodeManagedFields(result.managed));
    return object;
  }

  /**
   * update, with the objects converted to the versions other managers recorded first (a custom
   * resource's webhook may be asked). Without other versions of the kind, update itself.
   */
  async updateConverting(live: object | null, next: object, manager: string, now: Date = new Date()): Promise<object> {
    if (!this.#versions) return this.update(live, next, manager, now);
    return runConverting(this.#versions, (converter) => this.update(live, next, manager, now, converter));
  }

  /** apply, with conversions as updateConverting does them. */
  async applyConverting(live: object | null, config: object, manager: string, force: boolean, now: Date = new Date()): Promise<object> {
    if (!this.#versions) return this.apply(live, config, manager, force, now);
    // Each run gets its own copy of the configuration: nothing a stopped run did carries over.
    return runConverting(this.#versions, (converter) => this.apply(live, cloneJson(config as JsonObject), manager, force, now, converter));
  }

  #chainFor(now: Date, converter: VersionConverter | undefined) {
    return defaultChain(converter ? { ...this.#chain, converter } : this.#chain, dateSeconds(now));
  }

  /** Upstream's decodeLiveOrNew. */
  #decodeLiveOrNew(live: JsonObject, next: JsonObject): Managed {
    // A subresource write may not touch managedFields: the stored ones stand.
    if (this.#subresource !== '') return decodeOrEmpty(managedFieldsOf(live));
    const sent = managedFieldsOf(next);
    if (isResetManagedFields(sent)) return decodeOrEmpty(undefined);
    try {
      const managed = decodeManagedFields(sent);
      if (managed.fields.size > 0) return managed;
    } catch (err) {
      if (!(err instanceof ManagedFieldsDecodeError)) throw err;
    }
    // Clients that know nothing of managedFields (or send garbage) must not wipe them.
    return decodeOrEmpty(managedFieldsOf(live));
  }
}

/**
 * A failed conversion, as upstream answers the field manager's plain error: 500 with the text as the
 * message and no reason (ErrorToAPIStatus of an error that is no API status).
 */
function conversionFailed(err: ConversionFailedError): ApiError {
  const e = new ApiError(500, '', err.message);
  delete (e.status as { reason?: string }).reason;
  return e;
}
