/**
 * Kubernetes' regex library: find and findAll with Go's regexp semantics (RE2 syntax, leftmost
 * first, FindAllString's rule for empty matches) and its "Illegal regex" errors.
 */
import { evalError } from '../errors.ts';
import { compileRe2, type GoRegexp } from '../runtime/re2.ts';
import { actualSize, type CelValue } from '../values.ts';
import { ceilCost, member, REGEX_LENGTH, STRING_TRAVERSAL, type CostFn, type Overload } from './overload.ts';

function regex(pattern: string): GoRegexp {
  try {
    return compileRe2(pattern);
  } catch (e) {
    throw evalError(`Illegal regex: ${(e as Error).message}`);
  }
}

/** Go's FindString: the empty string when nothing matches. */
function find(s: string, pattern: string): string {
  return regex(pattern).find(s) ?? '';
}

/** The cost of a regex search: the string traversed once per tenth of the pattern's length, roughly. */
const searchCost: CostFn = ([s, re]) => ceilCost(1 + actualSize(s!), STRING_TRAVERSAL) * ceilCost(actualSize(re!), REGEX_LENGTH);

export const regexOverloads: readonly Overload[] = [
  member('string_find_string', 'find', ['string', 'string'], 'string', ([s, re]) => find(s as string, re as string), { cost: searchCost }),
  member('string_find_all_string', 'findAll', ['string', 'string'], 'list<string>', ([s, re]) => regex(re as string).findAll(s as string, -1), { cost: searchCost }),
  member('string_find_all_string_int', 'findAll', ['string', 'string', 'int'], 'list<string>', ([s, re, n]) => regex(re as string).findAll(s as string, Number(n as bigint)), { cost: searchCost }),
];


