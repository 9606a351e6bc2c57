import { compareGoStrings } from '../../api/go/strings.ts';
import { encodeFieldsV1 } from './fields-v1-cache.ts';
import { FIELDS_V1, OPERATION_APPLY, orderedEntry, type ManagedFieldsEntry } from './entry.ts';
import { parseManagerIdentifier } from './identifier.ts';
import type { Managed } from './managed.ts';
import { GO_ZERO_TIME_SECONDS, formatTimeSeconds, parseTimeSeconds } from './time.ts';

/** An entry with the seconds its time sorts by (a missing time sorts as the epoch). */
interface Sortable {
  readonly entry: ManagedFieldsEntry;
  readonly seconds: number;
}

/**
 * The managed set as metadata.managedFields entries, sorted as upstream sorts them; undefined when
 * there is no manager, which removes the field from the object (upstream sets it to nil).
 */
export function encodeManagedFields(managed: Managed): ManagedFieldsEntry[] | undefined {
  if (managed.fields.size === 0) return undefined;
  const out: Sortable[] = [];
  for (const [identifier, versioned] of managed.fields) {
    const id = parseManagerIdentifier(identifier);
    if (!id) throw new Error(`error unmarshalling manager identifier ${identifier}`);
    const seconds = managed.times.get(identifier);
    let time: string | null | undefined;
    if (seconds !== undefined) time = seconds === GO_ZERO_TIME_SECONDS ? null : formatTimeSeconds(seconds);
    else if (id.time) time = id.time;
    const entry = orderedEntry({
      manager: id.manager,
      operation: versioned.applied ? OPERATION_APPLY : id.operation,
      apiVersion: versioned.apiVersion,
      ...(time !== undefined ? { time } : {}),
      fieldsType: FIELDS_V1,
      fieldsV1: encodeFieldsV1(versioned.set),
      subresource: id.subresource,
    });
    out.push({ entry, seconds: seconds ?? (time ? parseTimeSeconds(time) ?? 0 : 0) });
  }
  return sortByUpstreamOrder(out);
}

/**
 * Upstream's entry order (sortEncodedManagedFields): appliers before updaters, then oldest first in
 * whole seconds, then by manager, apiVersion and subresource, all compared byte-wise.
 */
export function sortEncodedManagedFields(entries: readonly ManagedFieldsEntry[]): ManagedFieldsEntry[] {
  return sortByUpstreamOrder(entries.map((entry) => ({ entry, seconds: entry.time ? parseTimeSeconds(entry.time) ?? 0 : 0 })));
}

function sortByUpstreamOrder(items: Sortable[]): ManagedFieldsEntry[] {
  items.sort((a, b) => {
    const p = a.entry;
    const q = b.entry;
    const byOperation = compareGoStrings(p.operation ?? '', q.operation ?? '');
    if (byOperation !== 0) return byOperation;
    if (a.seconds !== b.seconds) return a.seconds < b.seconds ? -1 : 1;
    return (
      compareGoStrings(p.manager ?? '', q.manager ?? '') ||
      compareGoStrings(p.apiVersion ?? '', q.apiVersion ?? '') ||
      compareGoStrings(p.subresource ?? '', q.subresource ?? '')
    );
  });
  return items.map((i) => i.entry);
}
