import { buildLastApplied, lastAppliedOf, setLastApplied } from '../last-applied.ts';
import type { Managed } from '../managed.ts';
import type { JsonObject } from '../object-meta.ts';
import type { ApplyResult, Manager, UpdateResult } from './manager.ts';

/**
 * Upstream's lastAppliedUpdater: kubectl's server-side apply keeps an existing last-applied
 * annotation in step with the configuration it applies, so that a later client-side apply still
 * computes the right three-way diff. Other managers, and objects without the annotation, are left
 * alone.
 */
export class LastAppliedUpdater implements Manager {
  constructor(private readonly next: Manager) {}

  update(live: JsonObject, next: JsonObject, managed: Managed, manager: string): UpdateResult {
    return this.next.update(live, next, managed, manager);
  }

  apply(live: JsonObject, config: JsonObject, managed: Managed, manager: string, force: boolean): ApplyResult {
    const result = this.next.apply(live, config, managed, manager, force);
    if (manager === 'kubectl' && result.object !== null && lastAppliedOf(result.object) !== undefined) {
      setLastApplied(result.object, buildLastApplied(config));
    }
    return result;
  }
}
