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
 * Result rows: (list_rv, compacted_rv, current_rv, total, namespace, name, object). With no items there is one row whose
 * object is null, so the version is always returned.
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

  let filterSql = '';
  if (options.filter) {
    const f = compileSelectors({ labels: options.filter.labels, fields: options.filter.fields }, 'object', values.length + 1);
    values.push(...f.params);
    filterSql = ` and (${f.sql})`;
  }

  const limit = options.limit && options.limit > 0 ? options.limit : undefined;
  const limitSql = limit !== undefined ? ` limit ${param(limit + 1)}` : '';

  let source: string;
  let version: string;
  if (options.exactVersion !== undefined) {
    const rv = param(options.exactVersion);
    version = `${rv}::bigint`;
    source = `(
      select namespace, name, object from objects
       where api_group = $1 and resource = $2 and resource_version <= ${rv}${keyConditions}
      union all
      select namespace, name, previous as object from (
        select distinct on (namespace, name) namespace, name, previous
          from history
         where api_group = $1 and resource = $2 and resource_version > ${rv}${keyConditions}
         order by namespace, name, resource_version
      ) first_change where previous is not null
    ) as_of`;
  } else {
    version = `coalesce((select max(resource_version) from history), (select compacted_resource_version from compaction))`;
    source = `(select namespace, name, object from objects where api_group = $1 and resource = $2${keyConditions}) latest`;
  }

  const remaining =
    options.countRemaining && limit !== undefined ? `(select count(*) from ${source} where true${filterSql})` : 'null::bigint';

  const text = `
    with v as (
      select ${version} as list_rv,
             (select compacted_resource_version from compaction) as compacted_rv,
             coalesce((select max(resource_version) from history), (select compacted_resource_version from compaction)) as current_rv,
             ${remaining} as total
    )
    select v.list_rv, v.compacted_rv, v.current_rv, v.total, page.namespace, page.name, page.object
      from v left join lateral (
        select namespace, name, object::text as object from ${source}
         where true${filterSql}
         order by namespace, name${limitSql}
      ) page on true`;
  return { text, values };
}
