import { badRequest } from '../errors.ts';
import {
  EVERYTHING,
  freezeSelector,
  makeRequirement,
  parseInt64,
  type LabelOperator,
  type LabelRequirement,
  type LabelSelector,
} from './label-requirement.ts';
import { goQuote } from '../go/quote.ts';

export { parseLabelSelector } from './label-parser.ts';
export { EVERYTHING } from './label-requirement.ts';
export type { LabelOperator, LabelRequirement, LabelSelector } from './label-requirement.ts';

/** metav1.LabelSelectorRequirement */
export interface LabelSelectorRequirementObject {
  key: string;
  operator: string;
  values?: string[] | null;
}

/** metav1.LabelSelector, as it appears in specs (Deployment.spec.selector …). */
export interface LabelSelectorObject {
  matchLabels?: Record<string, string> | null;
  matchExpressions?: LabelSelectorRequirementObject[] | null;
}

const OBJECT_OPERATORS: Readonly<Record<string, LabelOperator>> = {
  In: 'in',
  NotIn: 'notin',
  Exists: 'exists',
  DoesNotExist: '!',
};

/**
 * Converts a structured selector to the requirement list the string parser produces.
 * A missing selector (`null`/`undefined`) selects nothing and returns `null`; an empty one
 * selects everything. Invalid keys, values or operators throw 400 BadRequest.
 *
 * @example labelSelectorFromObject({ matchLabels: { app: 'web' },
 *   matchExpressions: [{ key: 'tier', operator: 'NotIn', values: ['db'] }] })
 */
export function labelSelectorFromObject(ls: LabelSelectorObject | null | undefined): LabelSelector | null {
  if (!ls) return null;
  const reqs: LabelRequirement[] = [];
  const add = (key: string, operator: LabelOperator, values: readonly string[] | null) => {
    const made = makeRequirement(key, operator, values);
    if ('error' in made) throw badRequest(made.error);
    reqs.push(made);
  };
  const matchLabels = ls.matchLabels ?? {};
  for (const key of Object.keys(matchLabels).sort()) add(key, '=', [matchLabels[key]!]);
  for (const expr of ls.matchExpressions ?? []) {
    const operator = Object.hasOwn(OBJECT_OPERATORS, expr.operator) ? OBJECT_OPERATORS[expr.operator] : undefined;
    if (!operator) throw badRequest(`${goQuote(String(expr.operator))} is not a valid label selector operator`);
    add(expr.key, operator, expr.values && expr.values.length > 0 ? expr.values : null);
  }
  return reqs.length === 0 ? EVERYTHING : freezeSelector(reqs);
}

/** The value of a label, or undefined when the object lacks it (inherited properties never count). */
function lookup(labels: Readonly<Record<string, string>> | null | undefined, key: string): string | undefined {
  return labels && Object.hasOwn(labels, key) ? labels[key] : undefined;
}

function matchesOne(r: LabelRequirement, labels: Readonly<Record<string, string>> | null | undefined): boolean {
  const value = lookup(labels, r.key);
  switch (r.operator) {
    case '=':
    case '==':
    case 'in':
      return value !== undefined && r.values.includes(value);
    case '!=':
    case 'notin':
      return value === undefined || !r.values.includes(value);
    case 'exists':
      return value !== undefined;
    case '!':
      return value === undefined;
    case 'gt':
    case 'lt': {
      if (value === undefined || r.values.length !== 1) return false;
      const have = parseInt64(value);
      const want = parseInt64(r.values[0]!);
      if (have === undefined || want === undefined) return false;
      return r.operator === 'gt' ? have > want : have < want;
    }
  }
}

/**
 * Whether an object's labels satisfy every requirement. `!=` and `notin` match objects that lack
 * the key; `gt`/`lt` never match a missing or non-integer value. An empty selector matches
 * everything; a `null` selector (from a missing structured selector) matches nothing.
 *
 * @example matchesLabels(parseLabelSelector('env!=prod'), { app: 'web' }) // true
 */
export function matchesLabels(
  selector: LabelSelector | null,
  labels: Readonly<Record<string, string>> | null | undefined,
): boolean {
  if (selector === null) return false;
  return selector.every((r) => matchesOne(r, labels));
}

/** The selector in the canonical text form the server prints (`a=b,c in (d,e),!f`). */
export function labelSelectorToString(selector: LabelSelector): string {
  return selector
    .map((r) => {
      const values = r.values.join(',');
      switch (r.operator) {
        case 'exists':
          return r.key;
        case '!':
          return `!${r.key}`;
        case 'in':
        case 'notin':
          return `${r.key} ${r.operator} (${values})`;
        case 'gt':
          return `${r.key}>${values}`;
        case 'lt':
          return `${r.key}<${values}`;
        default:
          return `${r.key}${r.operator}${values}`;
      }
    })
    .join(',');
}

/**
 * The single value a selector demands for a label (`key=v`, `key==v` or `key in (v)`), if any.
 * Lets a caller narrow a query before evaluating the rest.
 */
export function labelExactValue(selector: LabelSelector, key: string): string | undefined {
  const r = selector.find((x) => x.key === key);
  if (!r || !['=', '==', 'in'].includes(r.operator) || r.values.length !== 1) return undefined;
  return r.values[0];
}
