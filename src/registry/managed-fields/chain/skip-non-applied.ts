import type { Managed } from '../managed.ts';
import { uidOf, type JsonObject } from '../object-meta.ts';
import type { ApplyResult, Manager, UpdateResult } from './manager.ts';

/** The updater an apply records the fields it found unowned under. */
const BEFORE_FIRST_APPLY = 'before-first-apply';

/**
 * Upstream's skipNonAppliedManager at kube-apiserver's probability of 1: creates always start
 * tracking; an update of an object that tracks nothing (its managedFields were cleared) keeps
 * tracking nothing; the first apply to such an object first records everything already there as
 * "before-first-apply", so the applier conflicts with it rather than silently taking it over.
 */
export class SkipNonAppliedManager implements Manager {
  constructor(
    private readonly next: Manager,
    /** A new, empty object of the kind. */
    private readonly emptyObject: () => JsonObject,
  ) {}

  update(live: JsonObject, next: JsonObject, managed: Managed, manager: string): UpdateResult {
    // A live object without a uid is the empty object of a create.
    if (managed.fields.size === 0 && uidOf(live) !== '') return { object: next, managed };
    return this.next.update(live, next, managed, manager);
  }

  apply(live: JsonObject, config: JsonObject, managed: Managed, manager: string, force: boolean): ApplyResult {
    let current = managed;
    if (current.fields.size === 0) {
      current = this.next.update(this.emptyObject(), live, current, BEFORE_FIRST_APPLY).managed;
    }
    return this.next.apply(live, config, current, manager, force);
  }
}
