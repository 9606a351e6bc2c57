import { ConflictsError } from '../../../ssa/conflicts.ts';
import type { FieldSet, JsonValue } from '../../../ssa/fieldpath/index.ts';
import { compare, toFieldSet, validate } from '../../../ssa/typed/index.ts';
import type { ObjectSchema } from '../../../schema/type-schema.ts';
import { lastAppliedOf } from '../last-applied.ts';
import type { Managed } from '../managed.ts';
import { isJsonObject, stringField, withoutManagedFields, type JsonObject } from '../object-meta.ts';
import type { ApplyResult, Manager, UpdateResult } from './manager.ts';

/** Only kubectl's own server-side apply inherits what its client-side apply managed. */
const KUBECTL = 'kubectl';

/**
 * Upstream's lastAppliedManager: when kubectl moves an object from client-side to server-side
 * apply, conflicts over fields its last-applied annotation still describes (and the live object
 * still holds unchanged) are its own, so the apply is forced through; any other conflict stands.
 */
export class LastAppliedManager implements Manager {
  constructor(
    private readonly next: Manager,
    private readonly schema: ObjectSchema,
    private readonly apiVersion: string,
  ) {}

  update(live: JsonObject, next: JsonObject, managed: Managed, manager: string): UpdateResult {
    return this.next.update(live, next, managed, manager);
  }

  apply(live: JsonObject, config: JsonObject, managed: Managed, manager: string, force: boolean): ApplyResult {
    try {
      return this.next.apply(live, config, managed, manager, force);
    } catch (err) {
      if (manager !== KUBECTL || !(err instanceof ConflictsError)) throw err;
      const allowed = this.allowedConflicts(live);
      if (!allowed) throw err;
      const remaining = err.conflicts.filter((c) => !allowed.has(c.path));
      if (remaining.length > 0) throw new ConflictsError(remaining);
      return this.next.apply(live, config, managed, manager, true);
    }
  }

  /**
   * The fields the last-applied annotation claims that the live object still has with the same
   * values; undefined when there is no usable annotation (then the conflicts stand as they are).
   */
  private allowedConflicts(live: JsonObject): FieldSet | undefined {
    const text = lastAppliedOf(live);
    if (text === undefined) return undefined;
    try {
      const liveValue = withoutManagedFields(live) as JsonValue;
      validate(liveValue, this.schema);
      const lastApplied: unknown = JSON.parse(text);
      // Upstream decodes it as an unstructured object, which needs a kind.
      if (!isJsonObject(lastApplied) || stringField(lastApplied, 'kind') === '') return undefined;
      if (stringField(lastApplied, 'apiVersion') !== this.apiVersion) return undefined;
      const claimed = toFieldSet(lastApplied as JsonValue, this.schema);
      const differences = compare(lastApplied as JsonValue, liveValue, this.schema);
      return claimed.difference(differences.modified).difference(differences.added).difference(differences.removed);
    } catch {
      return undefined;
    }
  }
}
