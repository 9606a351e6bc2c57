import { FieldSet, fieldElement } from '../../../ssa/fieldpath/index.ts';
import type { Managed } from '../managed.ts';
import type { JsonObject } from '../object-meta.ts';
import type { ApplyResult, Manager, UpdateResult } from './manager.ts';

/**
 * Fields nobody is recorded as managing: type information and the metadata the server owns. Only
 * these exact paths go (labels, annotations and the like under metadata stay).
 */
const STRIPPED = FieldSet.fromPaths(
  [
    ['apiVersion'],
    ['kind'],
    ['metadata'],
    ['metadata', 'name'],
    ['metadata', 'namespace'],
    ['metadata', 'creationTimestamp'],
    ['metadata', 'selfLink'],
    ['metadata', 'uid'],
    ['metadata', 'clusterName'],
    ['metadata', 'generation'],
    ['metadata', 'managedFields'],
    ['metadata', 'resourceVersion'],
  ].map((names) => names.map(fieldElement)),
);

/** Upstream's stripMetaManager: drops those paths from the acting manager's set, and the manager if nothing is left. */
export class StripMetaManager implements Manager {
  constructor(private readonly next: Manager) {}

  update(live: JsonObject, next: JsonObject, managed: Managed, manager: string): UpdateResult {
    const result = this.next.update(live, next, managed, manager);
    strip(result.managed, manager);
    return result;
  }

  apply(live: JsonObject, config: JsonObject, managed: Managed, manager: string, force: boolean): ApplyResult {
    const result = this.next.apply(live, config, managed, manager, force);
    strip(result.managed, manager);
    return result;
  }
}

function strip(managed: Managed, manager: string): void {
  const vs = managed.fields.get(manager);
  if (!vs) return;
  const set = vs.set.difference(STRIPPED);
  if (set.isEmpty()) managed.fields.delete(manager);
  else managed.fields.set(manager, { ...vs, set });
}
