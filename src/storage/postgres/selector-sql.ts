import type { FieldSelector } from '../../api/selectors/field-selector.ts';
import type { LabelRequirement, LabelSelector } from '../../api/selectors/label-selector.ts';

/**
 * Label and field selectors as SQL WHERE fragments over a JSONB object column.
 *
 * Every user-supplied string (keys, values, paths) travels as a `$n` parameter; the only
 * text spliced into the SQL is the caller's column expression and constants from this file.
 * The fragments select exactly what `matchesLabels` / `matchesFields` select in memory.
 *
 * Label equality compiles to containment on the labels object, so an expression index
 *   CREATE INDEX … USING gin ((object -> 'metadata' -> 'labels'))
 * serves `=`, `==`, single-value `in` and exists (`?`).
 */

/** A WHERE fragment and its parameters; the fragment's placeholders start at the index given. */
export interface SqlFragment {
  readonly sql: string;
  readonly params: readonly unknown[];
}

/** Numbers placeholders from a start index and collects their values. */
class Params {
  readonly values: unknown[] = [];
  readonly #first: number;

  constructor(first: number) {
    if (!Number.isInteger(first) || first < 1) throw new RangeError(`placeholder index must be >= 1, got ${first}`);
    this.#first = first;
  }

  add(value: unknown, cast: string): string {
    this.values.push(value);
    return `$${this.#first + this.values.length - 1}::${cast}`;
  }
}

// Go's strconv.ParseInt(s, 10, 64): an optional sign, decimal digits, and within int64.
const INT_PATTERN = `'^[+-]?[0-9]+$'`;
const INT64_MIN = '-9223372036854775808';
const INT64_MAX = '9223372036854775807';

function labelRequirementSql(r: LabelRequirement, labels: string, p: Params): string {
  switch (r.operator) {
    case '=':
    case '==':
      return `${labels} @> ${p.add(JSON.stringify({ [r.key]: r.values[0] }), 'jsonb')}`;
    case 'in':
      if (r.values.length === 1) return `${labels} @> ${p.add(JSON.stringify({ [r.key]: r.values[0] }), 'jsonb')}`;
      return `(${labels} ->> ${p.add(r.key, 'text')}) = ANY(${p.add(r.values, 'text[]')})`;
    case '!=':
      // An object without labels (NULL) or without the key matches: the NULL must not leak out.
      return `NOT coalesce(${labels} @> ${p.add(JSON.stringify({ [r.key]: r.values[0] }), 'jsonb')}, false)`;
    case 'notin':
      return `NOT coalesce((${labels} ->> ${p.add(r.key, 'text')}) = ANY(${p.add(r.values, 'text[]')}), false)`;
    case 'exists':
      return `${labels} ? ${p.add(r.key, 'text')}`;
    case '!':
      return `NOT coalesce(${labels} ? ${p.add(r.key, 'text')}, false)`;
    case 'gt':
    case 'lt': {
      // CASE evaluates the cast only for integer text, so other values simply fail to match.
      const value = `(${labels} ->> ${p.add(r.key, 'text')})`;
      const op = r.operator === 'gt' ? '>' : '<';
      return (
        `CASE WHEN ${value} ~ ${INT_PATTERN} THEN ${value}::numeric BETWEEN ${INT64_MIN} AND ${INT64_MAX}` +
        ` AND ${value}::numeric ${op} ${p.add(r.values[0] ?? '', 'numeric')} ELSE false END`
      );
    }
  }
}

function labelsSql(selector: LabelSelector | null, column: string, p: Params): string[] {
  if (selector === null) return ['FALSE'];
  const labels = `(${column} -> 'metadata' -> 'labels')`;
  return selector.map((r) => labelRequirementSql(r, labels, p));
}

function fieldsSql(selector: FieldSelector, column: string, p: Params): string[] {
  return selector.map((r) => {
    // PostgreSQL text cannot hold NUL, so no stored value contains one: such a term is decided here.
    if (r.value.includes('\u0000')) return r.operator === '!=' ? 'TRUE' : 'FALSE';
    const path = p.add(r.path, 'text[]');
    // Objects and arrays read as missing, like JSON null and absent fields (see fieldText).
    const raw = `CASE WHEN jsonb_typeof(${column} #> ${path}) IN ('object', 'array') THEN NULL ELSE ${column} #>> ${path} END`;
    const missing = r.missing === '' ? `''` : p.add(r.missing, 'text');
    const op = r.operator === '!=' ? '<>' : '=';
    return `coalesce(${raw}, ${missing}) ${op} ${p.add(r.value, 'text')}`;
  });
}

function join(parts: string[], p: Params): SqlFragment {
  const sql = parts.length === 0 ? 'TRUE' : parts.length === 1 ? parts[0]! : parts.map((s) => `(${s})`).join(' AND ');
  return { sql, params: p.values };
}

/**
 * Compiles a label selector. `column` is trusted SQL naming the JSONB object (`o.object`);
 * `firstParam` is the number of the first placeholder. An empty selector gives `TRUE`, a
 * `null` one (a missing structured selector) `FALSE`. Use in WHERE: for rows without labels
 * the positive operators yield NULL, which WHERE treats as false.
 *
 * @example compileLabelSelector(parseLabelSelector('app=web,tier!=db'), 'o.object', 3)
 * // { sql: "((o.object -> 'metadata' -> 'labels') @> $3::jsonb) AND (NOT coalesce(… @> $4::jsonb, false))",
 * //   params: ['{"app":"web"}', '{"tier":"db"}'] }
 */
export function compileLabelSelector(selector: LabelSelector | null, column: string, firstParam = 1): SqlFragment {
  const p = new Params(firstParam);
  return join(labelsSql(selector, column, p), p);
}

/**
 * Compiles a field selector: each term compares `coalesce(column #>> path, missing)` with its value.
 *
 * @example compileFieldSelector(parseFieldSelector('metadata.name=web', METADATA_FIELDS), 'o.object')
 * // { sql: "coalesce(CASE … o.object #>> $1::text[] END, '') = $2::text", params: [['metadata', 'name'], 'web'] }
 */
export function compileFieldSelector(selector: FieldSelector, column: string, firstParam = 1): SqlFragment {
  const p = new Params(firstParam);
  return join(fieldsSql(selector, column, p), p);
}

/** Both selectors ANDed into one fragment (either may be omitted). */
export function compileSelectors(
  selectors: { readonly labels?: LabelSelector | null; readonly fields?: FieldSelector },
  column: string,
  firstParam = 1,
): SqlFragment {
  const p = new Params(firstParam);
  const parts = [
    ...(selectors.labels !== undefined ? labelsSql(selectors.labels, column, p) : []),
    ...(selectors.fields ? fieldsSql(selectors.fields, column, p) : []),
  ];
  return join(parts, p);
}
