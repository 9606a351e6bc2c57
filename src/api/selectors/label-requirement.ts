import { labelValueErrors, qualifiedNameErrors } from '../validation/names.ts';
import { aggregateText, invalidValueText } from './label-validation.ts';
import { goQuote, goStringSlice } from '../go/quote.ts';

/**
 * Operators as the server spells them (`selection.Operator`): `=` and `==` mean the same,
 * `!` is "does not exist", `gt`/`lt` compare integers.
 */
export type LabelOperator = '=' | '==' | '!=' | 'in' | 'notin' | 'exists' | '!' | 'gt' | 'lt';

/** One condition on one label. Values are sorted and distinct. */
export interface LabelRequirement {
  readonly key: string;
  readonly operator: LabelOperator;
  readonly values: readonly string[];
}

/**
 * A label selector: the AND of its requirements, sorted by key. An empty list selects everything.
 * Plain frozen data, so it can be shared between watchers and compiled to SQL.
 */
export type LabelSelector = readonly LabelRequirement[];

/** The empty selector, which matches every object. */
export const EVERYTHING: LabelSelector = Object.freeze([]);

/** Go's strconv.ParseInt(s, 10, 64) succeeds for these, and only these, strings. */
export function parseInt64(s: string): bigint | undefined {
  if (!/^[+-]?[0-9]+$/.test(s)) return undefined;
  const n = BigInt(s);
  return n >= -(2n ** 63n) && n < 2n ** 63n ? n : undefined;
}

/**
 * Checks a requirement as the server's `NewRequirement` does and returns the error lines
 * (empty when valid). `path` is the field path the lines start with (none at the top level).
 */
export function requirementErrors(
  key: string,
  operator: string,
  values: readonly string[] | null,
  path = '',
): string[] {
  const child = (name: string) => (path ? `${path}.${name}` : name);
  const errs: string[] = [];
  const keyErrs = qualifiedNameErrors(key);
  if (keyErrs.length > 0) errs.push(invalidValueText(child('key'), goQuote(key), keyErrs.join('; ')));
  const vals = values ?? [];
  const valuesPath = child('values');
  switch (operator) {
    case 'in':
    case 'notin':
      if (vals.length === 0) {
        errs.push(invalidValueText(valuesPath, goStringSlice(values), "for 'in', 'notin' operators, values set can't be empty"));
      }
      break;
    case '=':
    case '==':
    case '!=':
      if (vals.length !== 1) {
        errs.push(invalidValueText(valuesPath, goStringSlice(values), 'exact-match compatibility requires one single value'));
      }
      break;
    case 'exists':
    case '!':
      if (vals.length !== 0) {
        errs.push(invalidValueText(valuesPath, goStringSlice(values), 'values set must be empty for exists and does not exist'));
      }
      break;
    case 'gt':
    case 'lt':
      if (vals.length !== 1) {
        errs.push(invalidValueText(valuesPath, goStringSlice(values), "for 'Gt', 'Lt' operators, exactly one value is required"));
      }
      vals.forEach((v, i) => {
        if (parseInt64(v) === undefined) {
          errs.push(invalidValueText(`${valuesPath}[${i}]`, goQuote(v), "for 'Gt', 'Lt' operators, the value must be an integer"));
        }
      });
      break;
    default:
      errs.push(
        `${child('operator')}: Unsupported value: ${goQuote(operator)}: supported values: ` +
          '"in", "notin", "=", "==", "!=", "gt", "lt", "exists", "!"',
      );
  }
  vals.forEach((v, i) => {
    const valueErrs = labelValueErrors(v);
    if (valueErrs.length > 0) {
      errs.push(invalidValueText(`${valuesPath}[${i}][${key}]`, goQuote(v), valueErrs.join('; ')));
    }
  });
  return errs;
}

/**
 * Builds a frozen requirement (values sorted and distinct), or returns the server's error text.
 * Values are checked in the order given, so error paths (`values[1]`) point at the caller's list;
 * `null` stands for a missing list, which errors print as `[]string(nil)`.
 */
export function makeRequirement(
  key: string,
  operator: LabelOperator,
  values: readonly string[] | null,
): LabelRequirement | { error: string } {
  const errs = requirementErrors(key, operator, values);
  if (errs.length > 0) return { error: aggregateText(errs) };
  return Object.freeze({ key, operator, values: Object.freeze(sortedDistinct(values ?? [])) });
}

/** Distinct values in byte order (Go sorts strings by bytes; code point order is the same). */
export function sortedDistinct(values: Iterable<string>): string[] {
  return [...new Set(values)].sort(compareCodePoints);
}

export function compareCodePoints(a: string, b: string): number {
  const ia = a[Symbol.iterator]();
  const ib = b[Symbol.iterator]();
  for (;;) {
    const x = ia.next();
    const y = ib.next();
    if (x.done || y.done) return x.done ? (y.done ? 0 : -1) : 1;
    const d = x.value.codePointAt(0)! - y.value.codePointAt(0)!;
    if (d !== 0) return d;
  }
}

/** Sorts requirements by key, keeping the given order among equal keys, and freezes the list. */
export function freezeSelector(reqs: readonly LabelRequirement[]): LabelSelector {
  return Object.freeze(reqs.slice().sort((a, b) => compareCodePoints(a.key, b.key)));
}
