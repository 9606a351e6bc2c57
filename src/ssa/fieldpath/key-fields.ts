import { compareGoStrings } from '../../api/go/strings.ts';
import type { JsonValue } from './path-element.ts';

/**
 * Upstream FieldList.Sort: by name in Go's byte order, stable, so repeated names (which a malformed
 * key can carry) keep their order. Sorts the array in place and returns it.
 */
export function sortKeyFields<T extends readonly [string, JsonValue]>(fields: T[]): T[] {
  return fields.sort((a, b) => compareGoStrings(a[0], b[0]));
}
