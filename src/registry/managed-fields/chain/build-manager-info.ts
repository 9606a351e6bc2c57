import { OPERATION_APPLY, OPERATION_UPDATE } from '../entry.ts';
import { buildManagerIdentifier } from '../identifier.ts';
import type { Managed } from '../managed.ts';
import type { JsonObject } from '../object-meta.ts';
import type { ApplyResult, Manager, UpdateResult } from './manager.ts';

/**
 * Upstream's buildManagerInfoManager: turns the manager's name into its identifier, which for an
 * update carries the apiVersion and for either the subresource written through. An update with no
 * name at all is recorded as "unknown".
 */
export class BuildManagerInfoManager implements Manager {
  constructor(
    private readonly next: Manager,
    private readonly apiVersion: string,
    private readonly subresource: string,
  ) {}

  private identifier(manager: string, operation: string): string {
    return buildManagerIdentifier({ manager: manager || 'unknown', operation, apiVersion: this.apiVersion, subresource: this.subresource });
  }

  update(live: JsonObject, next: JsonObject, managed: Managed, manager: string): UpdateResult {
    return this.next.update(live, next, managed, this.identifier(manager, OPERATION_UPDATE));
  }

  apply(live: JsonObject, config: JsonObject, managed: Managed, manager: string, force: boolean): ApplyResult {
    return this.next.apply(live, config, managed, this.identifier(manager, OPERATION_APPLY), force);
  }
}
