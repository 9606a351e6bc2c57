import type { ListOptions, ResourceRef } from '../storage.ts';
import { compileSelectors } from './selector-sql.ts';

/**
 * Builds the one statement that serves a list page. One statement means one snapshot: the list's
 * resourceVersion, the page and the remaining count are all read at the same point in time.
 *
 * At the latest version it reads `objects`. At an exact version R it reads the state as of R: rows
 * not changed since R, plus, for keys changed after R, the version each change replaced (the
 * `previous` of the first change after R; none when that change created the key).
 *
 * Result rows: (list_rv, compacted_rv, current_rv, total, outside, namespace, name, object). With no items there is one row whose
 * object is null, so the version is always returned. `outside` says whether rows written outside the
 * server lie at or after the list's start key (an empty partial-index probe normally; see read-check.ts).
 */
export function buildListQuery(ref: ResourceRef, options: ListOptions): { text: string; values: unknown[] } {
  const values: unknown[] = [ref.group, ref.resource];
  const param = (v: unknown): string => {
    values.push(v);
    return `$${values.length}`;
  };

  const conditions: string[] = [];
  if (options.namespace !== undefined) conditions.push(`namespace = ${param(options.namespace)}`);
  if (options.after) {
    conditions.push(`(namespace, name) > (${param(options.after.namespace)}, ${param(options.after.name)})`);
  }
  const keyConditions = conditions.map((c) => ` and ${c}`).join('');

  const filter = (column: string): string => {
    if (!options.filter) return '';
    const f = compileSelectors({ labels: options.filter.labels, fields: options.filter.fields }, column, values.length + 1);
    values.push(...f.params);
    return ` and (${f.sql})`;
  };

  const limit = options.limit && options.limit > 0 ? options.limit : undefined;
  const limitSql = limit !== undefined ? ` limit ${param(limit + 1)}` : '';
  const ordered = ` order by namespace, name${limitSql}`;

  // Each branch is ordered and limited on its own (the primary key gives the order cheaply), so a page
  // after a key reads one page of rows, not everything after the key; the text cast comes last.
  let page: string;
  let version: string;
  let count: string;
  if (options.exactVersion !== undefined) {
    const rv = param(options.exactVersion);
    version = `${rv}::bigint`;
    const unchanged = `from objects where api_group = $1 and resource = $2 and resource_version <= ${rv}${keyConditions}`;
    const replaced = `from (
        select distinct on (namespace, name) namespace, name, previous
          from history
         where api_group = $1 and resource = $2 and resource_version > ${rv}${keyConditions}
         order by namespace, name, resource_version
      ) first_change where previous is not null`;
    page = `select namespace, name, object from (
        (select namespace, name, object ${unchanged}${filter('object')}${ordered})
        union all
        (select namespace, name, previous as object ${replaced}${filter('previous')}${ordered})
      ) as_of${ordered}`;
    count = `(select count(*) ${unchanged}) + (select count(*) ${replaced})`;
  } else {
    version = `coalesce((select max(resource_version) from history), (select compacted_resource_version from compaction))`;
    const latest = `from objects where api_group = $1 and resource = $2${keyConditions}`;
    page = `select namespace, name, object ${latest}${filter('object')}${ordered}`;
    count = `(select count(*) ${latest})`;
  }
  // Counting is only asked for without selectors (remainingItemCount is omitted with them), and not
  // when the continue token brought the count (knownRemainingAfter).
  const remaining = options.countRemaining && limit !== undefined && !options.filter && knownRemainingAfter(options) === undefined ? count : 'null::bigint';

  const text = `
    with v as (
      select ${version} as list_rv,
             (select compacted_resource_version from compaction) as compacted_rv,
             coalesce((select max(resource_version) from history), (select compacted_resource_version from compaction)) as current_rv,
             ${remaining} as total,
             exists (select 1 from objects where api_group = $1 and resource = $2${keyConditions} and written_outside) as outside
    )
    select v.list_rv, v.compacted_rv, v.current_rv, v.total, v.outside, page.namespace, page.name, page.object::text as object
      from v left join lateral (${page}) page on true`;
  return { text, values };
}

/**
 * The items after the start key in the list's snapshot when the continue token carried them
 * (ListOptions.remainingAfter): only for a counted list at the token's exact version.
 */
export function knownRemainingAfter(options: ListOptions): number | undefined {
  if (!options.countRemaining || options.filter || options.exactVersion === undefined || !options.after) return undefined;
  return options.remainingAfter;
}
