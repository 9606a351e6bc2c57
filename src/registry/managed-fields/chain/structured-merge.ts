import { badRequest } from '../../../api/errors.ts';
import { cloneJson } from '../../../codecs/deep-json.ts';
import type { JsonValue } from '../../../ssa/fieldpath/index.ts';
import { SchemaError } from '../../../ssa/typed/index.ts';
import type { Updater, VersionConverter } from '../../../ssa/updater.ts';
import { STRING_FIELDS } from '../entry.ts';
import type { Managed } from '../managed.ts';
import { describeObject, groupVersionString, isJsonObject, managedFieldsOf, objectGvk, withoutManagedFields, type GroupVersionKind, type JsonObject } from '../object-meta.ts';
import type { ApplyResult, Manager, UpdateResult } from './manager.ts';

/**
 * The end of the chain (upstream's structuredMergeManager): the structured-merge updater decides
 * who owns what, and for an apply builds the merged object.
 */
export class StructuredMergeManager implements Manager {
  constructor(
    private readonly updater: Updater,
    private readonly gvk: GroupVersionKind,
    /** Runs the kind's defaulting on an applied result, as upstream's objectDefaulter does. */
    private readonly defaulter?: (obj: JsonObject) => void,
    /** Objects converted to the versions other managers recorded (upstream's versionConverter). */
    private readonly converter?: VersionConverter,
  ) {}

  private get apiVersion(): string {
    return groupVersionString(this.gvk);
  }

  update(live: JsonObject, next: JsonObject, managed: Managed, manager: string): UpdateResult {
    // The stored managedFields are no part of what is compared (they are re-encoded afterwards).
    const { managers } = this.updater.update(withoutManagedFields(live) as JsonValue, next as JsonValue, this.apiVersion, new Map(managed.fields), manager, this.converter);
    return { object: next, managed: { fields: managers, times: new Map(managed.times) } };
  }

  apply(live: JsonObject, config: JsonObject, managed: Managed, manager: string, force: boolean): ApplyResult {
    // Unreachable behind the version check at the head of the chain; kept as upstream keeps it.
    const configGv = objectGvk(config);
    if (configGv.group !== this.gvk.group || configGv.version !== this.gvk.version) {
      throw badRequest(`Incorrect version specified in apply patch. Specified patch version: ${groupVersionString(configGv)}, expected: ${this.apiVersion}`);
    }
    if (hasManagedFieldsList(config)) throw badRequest('metadata.managedFields must be nil');

    let result;
    try {
      result = this.updater.apply(withoutManagedFields(live) as JsonValue, config as JsonValue, this.apiVersion, new Map(managed.fields), manager, force, this.converter);
    } catch (err) {
      throw this.typingError(err, live, config);
    }
    const out: Managed = { fields: result.managers, times: new Map(managed.times) };
    if (result.object === null) return { object: null, managed: out };
    if (!isJsonObject(result.object)) throw new Error('failed to convert new typed object to object: not a JSON object');
    // The merge may share subtrees with its inputs; the result is about to be changed in place.
    const object = cloneJson(result.object);
    this.defaulter?.(object);
    return { object, managed: out };
  }

  /**
   * Typing failures as upstream words them. Upstream answers them with a 500 (plain errors); a
   * configuration that does not fit the schema is the client's mistake, so here it is a 400 with the
   * same message. A stored object that does not fit is the server's own fault and stays an error.
   */
  private typingError(err: unknown, live: JsonObject, config: JsonObject): unknown {
    if (!(err instanceof SchemaError)) return err;
    if (err.subject === 'config') {
      return badRequest(`failed to create typed patch object (${describeObject(config, objectGvk(config))}): ${err.message}`);
    }
    if (err.subject === 'live') {
      return new Error(`failed to create typed live object (${describeObject(live, this.gvk)}): ${err.message}`);
    }
    return badRequest(err.message);
  }
}

/**
 * Upstream refuses an applied configuration whose metadata.managedFields reads as a list of
 * entries (even an empty one); null, or a list its accessor cannot read, passes on to typing.
 */
function hasManagedFieldsList(config: JsonObject): boolean {
  const raw = managedFieldsOf(config);
  if (!Array.isArray(raw)) return false;
  return raw.every(readableEntry);
}

function readableEntry(entry: unknown): boolean {
  if (!isJsonObject(entry)) return false;
  for (const key of STRING_FIELDS) {
    const v = entry[key];
    if (v !== undefined && v !== null && typeof v !== 'string') return false;
  }
  const time = entry.time;
  return time === undefined || time === null || (typeof time === 'string' && /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?(Z|[+-]\d{2}:\d{2})$/.test(time));
}
