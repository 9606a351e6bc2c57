import { cloneJson } from '../../../codecs/deep-json.ts';
import type { Managed } from '../managed.ts';
import { withoutManagedFields, type JsonObject } from '../object-meta.ts';
import type { ApplyResult, Manager, UpdateResult } from './manager.ts';

/**
 * The name an update runs under inside the chain, so that what the write itself took can be told
 * apart from what its manager held before.
 */
const CURRENT_OPERATION = 'current-operation';

/**
 * Upstream's managedFieldsUpdater: a manager's entry gets a new time only when its operation
 * changed something it now owns; an updater's new fields join its earlier entry; a no-op apply
 * leaves the live object as it was.
 */
export class ManagedFieldsUpdater implements Manager {
  constructor(
    private readonly next: Manager,
    /** The time of this request, in whole Unix seconds. */
    private readonly now: number,
  ) {}

  update(live: JsonObject, next: JsonObject, managed: Managed, manager: string): UpdateResult {
    const result = this.next.update(live, next, managed, CURRENT_OPERATION);
    const taken = result.managed.fields.get(CURRENT_OPERATION);
    if (taken) {
      const fields = result.managed.fields;
      fields.delete(CURRENT_OPERATION);
      const previous = fields.get(manager);
      fields.set(manager, previous ? { ...taken, set: taken.set.union(previous.set) } : taken);
      result.managed.times.set(manager, this.now);
    }
    return result;
  }

  apply(live: JsonObject, config: JsonObject, managed: Managed, manager: string, force: boolean): ApplyResult {
    const result = this.next.apply(live, config, managed, manager, force);
    if (result.object !== null) {
      result.managed.times.set(manager, this.now);
      return result;
    }
    return { object: cloneJson(withoutManagedFields(live)), managed: result.managed };
  }
}
