import type pg from 'pg';
import type { ListKey, ObjectKey, ResourceRef } from '../storage.ts';
import { corruptObjectsError, MAX_REPORTED_CORRUPT_OBJECTS, type CorruptObject, type ReadChecks } from '../read-check.ts';

/** The rows of a list a check covers: its namespace, its keys from `after` (exclusive) up to `through` (inclusive). */
export interface CheckedRange {
  readonly namespace?: string;
  readonly after?: ListKey;
  readonly through?: ListKey;
  /** A list as of this version reads only the rows not changed since. */
  readonly exactVersion?: number;
}

/** Rows read per query while looking through the marked rows of a range. */
const BATCH = 500;

/**
 * Checks the rows written outside the server (objects.written_outside) in a list's range, as the
 * list would meet them, and fails with Corrupt when any does not read: up to
 * MAX_REPORTED_CORRUPT_OBJECTS of them are named, and `truncated` says there were more, as
 * upstream's list reports them. Sound rows cost nothing here: lists call this only when their query
 * said that marked rows exist.
 */
export async function checkWrittenOutside(
  run: (text: string, values: unknown[]) => Promise<pg.QueryResult>,
  checks: ReadChecks,
  ref: ResourceRef,
  range: CheckedRange,
): Promise<void> {
  const { corrupt, truncated } = await findUnreadable(run, checks, ref, range, MAX_REPORTED_CORRUPT_OBJECTS);
  if (corrupt.length > 0) throw corruptObjectsError(corrupt, truncated);
}

/**
 * The rows written outside the server in a list's range that do not read, in keyset order: at most
 * `max` of them (`truncated` says there were more), or all without it (for a list that leaves them
 * out and so must know every one; the range of a page bounds them).
 */
export async function findUnreadable(
  run: (text: string, values: unknown[]) => Promise<pg.QueryResult>,
  checks: ReadChecks,
  ref: ResourceRef,
  range: CheckedRange,
  max = Infinity,
): Promise<{ corrupt: CorruptObject[]; truncated: boolean }> {
  const corrupt: CorruptObject[] = [];
  let truncated = false;
  let after = range.after;
  for (;;) {
    const values: unknown[] = [ref.group, ref.resource];
    const param = (v: unknown): string => {
      values.push(v);
      return `$${values.length}`;
    };
    let conditions = '';
    if (range.namespace !== undefined) conditions += ` and namespace = ${param(range.namespace)}`;
    if (after) conditions += ` and (namespace, name) > (${param(after.namespace)}, ${param(after.name)})`;
    if (range.through) conditions += ` and (namespace, name) <= (${param(range.through.namespace)}, ${param(range.through.name)})`;
    if (range.exactVersion !== undefined) conditions += ` and resource_version <= ${param(range.exactVersion)}`;
    const res = await run(
      `select namespace, name, resource_version, object::text as object from objects
        where api_group = $1 and resource = $2${conditions} and written_outside
        order by namespace, name limit ${BATCH}`,
      values,
    );
    for (const row of res.rows) {
      const key: ObjectKey = { ...ref, namespace: row.namespace, name: row.name };
      const found = checks.check(key, row.object, Number(row.resource_version));
      if (!found) continue;
      if (corrupt.length === max) {
        truncated = true;
        break;
      }
      corrupt.push(found);
    }
    if (truncated || res.rows.length < BATCH) break;
    const last = res.rows[res.rows.length - 1];
    after = { namespace: last.namespace, name: last.name };
  }
  return { corrupt, truncated };
}

/** The keys (`namespace/name`) of objects, to leave them out of a list's rows. */
export function unreadableKeys(corrupt: readonly CorruptObject[]): Set<string> {
  return new Set(corrupt.map((c) => `${c.namespace}/${c.name}`));
}
