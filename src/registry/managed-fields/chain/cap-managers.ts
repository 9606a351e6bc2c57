import { compareGoStrings } from '../../../api/go/strings.ts';
import { OPERATION_UPDATE } from '../entry.ts';
import { buildManagerIdentifier } from '../identifier.ts';
import type { Managed } from '../managed.ts';
import type { JsonObject } from '../object-meta.ts';
import type { ApplyResult, Manager, UpdateResult } from './manager.ts';

/** Upstream's DefaultMaxUpdateManagers. */
export const DEFAULT_MAX_UPDATE_MANAGERS = 10;

/** The manager older update entries are folded into, one per apiVersion. */
const ANCIENT_CHANGES = 'ancient-changes';

/**
 * Upstream's capManagersManager: after every update, keeps the number of update entries (appliers
 * do not count) at most `max` by folding the oldest into "ancient-changes".
 */
export class CapManagersManager implements Manager {
  constructor(
    private readonly next: Manager,
    private readonly max: number = DEFAULT_MAX_UPDATE_MANAGERS,
  ) {}

  update(live: JsonObject, next: JsonObject, managed: Managed, manager: string): UpdateResult {
    const result = this.next.update(live, next, managed, manager);
    capUpdateManagers(result.managed, this.max);
    return result;
  }

  apply(live: JsonObject, config: JsonObject, managed: Managed, manager: string, force: boolean): ApplyResult {
    return this.next.apply(live, config, managed, manager, force);
  }
}

/**
 * Folds update entries, oldest first (whole seconds; no time counts as the epoch; ties by
 * identifier), into an "ancient-changes" entry of their apiVersion until at most `max` remain. The
 * first entry of a version seen becomes that version's bucket once a second one is folded into it;
 * a bucket takes the time of the latest entry folded in. This is upstream's algorithm step for
 * step, including how it treats an existing bucket that is not the oldest of its version.
 */
export function capUpdateManagers(managed: Managed, max: number): void {
  const { fields, times } = managed;
  const updaters = [...fields].filter(([, vs]) => !vs.applied).map(([id]) => id);
  if (updaters.length <= max) return;
  const seconds = (id: string) => times.get(id) ?? 0;
  updaters.sort((a, b) => (seconds(a) !== seconds(b) ? (seconds(a) < seconds(b) ? -1 : 1) : compareGoStrings(a, b)));

  const firstOfVersion = new Map<string, string>();
  let length = updaters.length;
  for (let i = 0; i < updaters.length && length > max; i++) {
    const manager = updaters[i]!;
    const vs = fields.get(manager)!;
    const time = times.get(manager);
    const version = vs.apiVersion;
    const bucket = buildManagerIdentifier({ manager: ANCIENT_CHANGES, operation: OPERATION_UPDATE, apiVersion: version });
    const first = firstOfVersion.get(version);
    if (first === undefined) {
      firstOfVersion.set(version, manager);
      continue;
    }
    if (!fields.has(bucket)) {
      const firstSet = fields.get(first)!;
      fields.delete(first);
      fields.set(bucket, firstSet);
    }
    fields.set(bucket, { set: vs.set.union(fields.get(bucket)!.set), apiVersion: vs.apiVersion, applied: vs.applied });
    fields.delete(manager);
    length--;
    times.set(bucket, time);
  }
}
