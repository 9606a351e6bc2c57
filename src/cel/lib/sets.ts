/**
 * cel-go's sets extension: sets.contains, sets.equivalent and sets.intersects over lists, with
 * membership by CEL equality and cel-go's cost (the product of the sizes, doubled for equivalent).
 */
import { contains } from '../runtime/ops.ts';
import { actualSize, type CelValue } from '../values.ts';
import { global, type CostFn, type Overload } from './overload.ts';

type List = readonly CelValue[];

function setsContains(list: List, sub: List): boolean {
  for (const v of sub) if (!contains(list, v)) return false;
  return true;
}

function setsIntersects(a: List, b: List): boolean {
  for (const v of a) if (contains(b, v)) return true;
  return false;
}

const product =
  (factor: number): CostFn =>
  (args) =>
    1 + Math.floor(actualSize(args[0]!) * actualSize(args[1]!) * factor);

export const setsOverloads: readonly Overload[] = [
  global('list_sets_contains_list', 'sets.contains', ['list<T>', 'list<T>'], 'bool', ([a, b]) => setsContains(a as List, b as List), { cost: product(1) }),
  global('list_sets_equivalent_list', 'sets.equivalent', ['list<T>', 'list<T>'], 'bool', ([a, b]) => setsContains(a as List, b as List) && setsContains(b as List, a as List), { cost: product(2) }),
  global('list_sets_intersects_list', 'sets.intersects', ['list<T>', 'list<T>'], 'bool', ([a, b]) => setsIntersects(a as List, b as List), { cost: product(1) }),
];
