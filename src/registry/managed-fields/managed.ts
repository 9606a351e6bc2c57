import type { ManagedFieldSets } from '../../ssa/updater.ts';

/**
 * The decoded form of metadata.managedFields: the field sets by manager identifier, and the time
 * of each manager's last change in whole Unix seconds (undefined: the entry has no time).
 */
export interface Managed {
  fields: ManagedFieldSets;
  times: Map<string, number | undefined>;
}

export function emptyManaged(): Managed {
  return { fields: new Map(), times: new Map() };
}
