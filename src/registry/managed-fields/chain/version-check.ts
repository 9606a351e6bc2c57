import { badRequest } from '../../../api/errors.ts';
import type { Managed } from '../managed.ts';
import { gvkString, objectGvk, type GroupVersionKind, type JsonObject } from '../object-meta.ts';
import type { ApplyResult, Manager, UpdateResult } from './manager.ts';

/** Upstream's versionCheckManager: an applied configuration must be of exactly the endpoint's kind and version. */
export class VersionCheckManager implements Manager {
  constructor(
    private readonly next: Manager,
    private readonly gvk: GroupVersionKind,
  ) {}

  update(live: JsonObject, next: JsonObject, managed: Managed, manager: string): UpdateResult {
    return this.next.update(live, next, managed, manager);
  }

  apply(live: JsonObject, config: JsonObject, managed: Managed, manager: string, force: boolean): ApplyResult {
    const gvk = objectGvk(config);
    if (gvk.group !== this.gvk.group || gvk.version !== this.gvk.version || gvk.kind !== this.gvk.kind) {
      throw badRequest(`invalid object type: ${gvkString(gvk)}`);
    }
    return this.next.apply(live, config, managed, manager, force);
  }
}
