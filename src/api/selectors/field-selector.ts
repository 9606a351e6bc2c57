import { badRequest } from '../errors.ts';
import { compareCodePoints } from './label-requirement.ts';

/** Where a selectable field lives in the object: `['metadata', 'name']`. */
export type FieldPath = readonly string[];

/**
 * A selectable field whose value, when absent, reads as something other than `''`: a Node's
 * `spec.unschedulable` is omitted when false, yet `spec.unschedulable=false` must match it.
 */
export interface FieldSpec {
  readonly path: FieldPath;
  readonly missing: string;
}

/** The fields a kind lets clients select on, by the name used in selectors. */
export type SelectableFields = Readonly<Record<string, FieldPath | FieldSpec>>;

/** The fields every kind supports. */
export const METADATA_FIELDS: SelectableFields = Object.freeze({
  'metadata.name': Object.freeze(['metadata', 'name']),
  'metadata.namespace': Object.freeze(['metadata', 'namespace']),
});

export type FieldOperator = '=' | '==' | '!=';

/** One term: the field, its location, and the (unescaped) value it is compared with. */
export interface FieldRequirement {
  readonly field: string;
  readonly operator: FieldOperator;
  readonly value: string;
  readonly path: FieldPath;
  /** What the field reads as when the object lacks it. */
  readonly missing: string;
}

/** The AND of its terms; empty selects everything. Frozen plain data. */
export type FieldSelector = readonly FieldRequirement[];

export interface ParseFieldSelectorOptions {
  /** The message for a field the kind does not support; the default is the built-in kinds' wording. */
  readonly unsupported?: (field: string) => string;
}

const OPERATORS: readonly FieldOperator[] = ['!=', '==', '='];

/** Splits at commas not preceded by an escaping backslash. */
function splitTerms(text: string): string[] {
  if (text === '') return [];
  const terms: string[] = [];
  let start = 0;
  let escaped = false;
  for (let i = 0; i < text.length; i++) {
    const c = text[i];
    if (escaped) escaped = false;
    else if (c === '\\') escaped = true;
    else if (c === ',') {
      terms.push(text.slice(start, i));
      start = i + 1;
    }
  }
  terms.push(text.slice(start));
  return terms;
}

/** The leftmost operator splits a term: `a=!b` is `a` `=` `!b`. */
function splitTerm(term: string): [string, FieldOperator, string] | undefined {
  for (let i = 0; i < term.length; i++) {
    for (const op of OPERATORS) {
      if (term.startsWith(op, i)) return [term.slice(0, i), op, term.slice(i + op.length)];
    }
  }
  return undefined;
}

/** Undoes `\\`, `\,` and `\=`; any other escape, or a bare `,` or `=`, is an error. */
function unescapeValue(s: string): string {
  let out = '';
  let escaped = false;
  for (const c of s) {
    if (escaped) {
      if (c !== '\\' && c !== ',' && c !== '=') {
        throw badRequest(`invalid field selector: invalid escape sequence: \\${c}`);
      }
      out += c;
      escaped = false;
    } else if (c === '\\') {
      escaped = true;
    } else if (c === ',' || c === '=') {
      // The server prints the rune with %v, that is as its decimal code point.
      throw badRequest(`invalid field selector: unescaped character in value: ${c.codePointAt(0)}`);
    } else {
      out += c;
    }
  }
  if (escaped) throw badRequest('invalid field selector: invalid escape sequence: \\');
  return out;
}

/** Escapes a literal value for use in a field selector. */
export function escapeFieldValue(value: string): string {
  return value.replace(/[\\,=]/g, (c) => `\\${c}`);
}

/**
 * Parses the `fieldSelector` query parameter against the fields a kind supports. Syntax
 * errors come first (terms in sorted order, as upstream), then unknown fields; both are
 * 400 BadRequest with the server's messages.
 *
 * @example parseFieldSelector('metadata.name=web,status.phase!=Running',
 *   { ...METADATA_FIELDS, 'status.phase': ['status', 'phase'] })
 */
export function parseFieldSelector(
  text: string,
  fields: SelectableFields,
  options: ParseFieldSelectorOptions = {},
): FieldSelector {
  const terms = splitTerms(text).sort(compareCodePoints);
  const parsed: [string, FieldOperator, string][] = [];
  for (const term of terms) {
    if (term === '') continue;
    const split = splitTerm(term);
    if (!split) throw badRequest(`invalid selector: '${text}'; can't understand '${term}'`);
    parsed.push([split[0], split[1], unescapeValue(split[2])]);
  }
  const unsupported = options.unsupported ?? ((f: string) => `field label not supported: ${f}`);
  const reqs = parsed.map(([field, operator, value]): FieldRequirement => {
    const spec = Object.hasOwn(fields, field) ? fields[field] : undefined;
    if (!spec) throw badRequest(unsupported(field));
    const { path, missing } = isFieldSpec(spec) ? spec : { path: spec, missing: '' };
    return Object.freeze({ field, operator, value, path, missing });
  });
  return Object.freeze(reqs);
}

function isFieldSpec(spec: FieldPath | FieldSpec): spec is FieldSpec {
  return !Array.isArray(spec);
}

/**
 * The text a field reads as: strings as they are, numbers and booleans as their JSON text,
 * and anything absent, null, or not a scalar as `missing`. The SQL compiler reads fields the same way.
 */
export function fieldText(obj: unknown, path: FieldPath, missing = ''): string {
  let cur: unknown = obj;
  for (const key of path) {
    if (cur === null || typeof cur !== 'object' || Array.isArray(cur) || !Object.hasOwn(cur, key)) return missing;
    cur = (cur as Record<string, unknown>)[key];
  }
  if (typeof cur === 'string') return cur;
  if (typeof cur === 'number' || typeof cur === 'boolean') return String(cur);
  return missing;
}

/**
 * Whether an object satisfies every term; a field the object lacks reads as `''`
 * (or the field's `missing` value).
 *
 * @example matchesFields(sel, { metadata: { name: 'web' } })
 */
export function matchesFields(selector: FieldSelector, obj: unknown): boolean {
  return selector.every((r) => {
    const equal = fieldText(obj, r.path, r.missing) === r.value;
    return r.operator === '!=' ? !equal : equal;
  });
}

/**
 * The value a selector demands for a field with `=` or `==`, if any: a watch or list of
 * one object (`metadata.name=x`) can then read that object directly.
 */
export function exactFieldValue(selector: FieldSelector, field: string): string | undefined {
  return selector.find((r) => r.field === field && r.operator !== '!=')?.value;
}

/** The name a `metadata.name=x` term pins the selector to, if any. */
export function requiredName(selector: FieldSelector): string | undefined {
  return exactFieldValue(selector, 'metadata.name');
}

/** The namespace a `metadata.namespace=x` term pins the selector to, if any. */
export function requiredNamespace(selector: FieldSelector): string | undefined {
  return exactFieldValue(selector, 'metadata.namespace');
}

/** The selector as text, values escaped, so that parsing it again gives the same selector. */
export function fieldSelectorToString(selector: FieldSelector): string {
  return selector.map((r) => `${r.field}${r.operator}${escapeFieldValue(r.value)}`).join(',');
}
