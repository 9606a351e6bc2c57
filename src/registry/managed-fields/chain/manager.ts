import type { Managed } from '../managed.ts';
import type { JsonObject } from '../object-meta.ts';

/**
 * One link of the field manager chain (upstream's internal.Manager): each link adds one concern
 * and passes the call on. Objects come in without metadata.managedFields (the managed set travels
 * beside them) and go out the same way; failures are thrown.
 */
export interface Manager {
  /** A non-apply write: `next` is the object to store, `live` the one before it (empty for a create). */
  update(live: JsonObject, next: JsonObject, managed: Managed, manager: string): UpdateResult;
  /** A server-side apply of `config`; `object` null means the live object does not change. */
  apply(live: JsonObject, config: JsonObject, managed: Managed, manager: string, force: boolean): ApplyResult;
}

export interface UpdateResult {
  readonly object: JsonObject;
  readonly managed: Managed;
}

export interface ApplyResult {
  readonly object: JsonObject | null;
  readonly managed: Managed;
}
