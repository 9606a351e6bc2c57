/**
 * How upstream's schema errors print a value: a pointer to its one-field wrapper struct around the
 * decoded JSON (`value.valueUnstructured`), with `%v` and `%#v`. The renderings of the JSON itself are
 * Go's fmt ones, shared with every other error text (src/api/go).
 */
import { goSyntax, goValue } from '../../api/go/values.ts';
import type { JsonValue } from '../fieldpath/path-element.ts';

/** `%v` of upstream's value wrapper (a pointer to a one-field struct): `&{…}`. */
export function goValueWrapper(v: JsonValue): string {
  return `&{${goValue(v)}}`;
}

/** `%#v` of upstream's value wrapper. */
export function goValueWrapperSyntax(v: JsonValue): string {
  return `&value.valueUnstructured{Value:${goSyntax(v)}}`;
}
