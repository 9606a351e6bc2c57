/**
 * Go's fmt renderings of JSON values, for error texts that must read exactly as kube-apiserver's.
 *
 * Upstream formats an unstructured value (a pointer to a struct wrapping an `interface{}`) with `%v`,
 * `%#v` and `%T`; a JSON number decoded by the apiserver is an int64 when it is integral and fits, else
 * a float64, which is the only distinction JavaScript loses (`1.0` reads as the int64 `1` here).
 */
import { compareGoStrings, goNumber, goQuote, isGoInt } from '../fieldpath/go-text.ts';
import type { JsonValue } from '../fieldpath/path-element.ts';

// Quoting and number printing are shared with the field path texts, so the two can never disagree.
export { goFloat, goQuote } from '../fieldpath/go-text.ts';

/** `%q` of a []string: `["a" "b"]`. */
export function goQuoteList(items: readonly string[]): string {
  return `[${items.map(goQuote).join(' ')}]`;
}

/** `%v` of a decoded JSON value held in an interface{}. */
export function goPlain(v: JsonValue): string {
  if (v === null) return '<nil>';
  if (typeof v === 'string') return v;
  if (typeof v === 'boolean') return String(v);
  if (typeof v === 'number') return goNumber(v);
  if (Array.isArray(v)) return `[${v.map(goPlain).join(' ')}]`;
  const keys = Object.keys(v).sort(compareGoStrings);
  return `map[${keys.map((k) => `${k}:${goPlain(v[k]!)}`).join(' ')}]`;
}

/** `%#v` of a decoded JSON value held in an interface{}. */
export function goSyntax(v: JsonValue): string {
  if (v === null) return 'interface {}(nil)';
  if (typeof v === 'string') return goQuote(v);
  if (typeof v === 'boolean') return String(v);
  if (typeof v === 'number') return goNumber(v);
  if (Array.isArray(v)) return `[]interface {}{${v.map(goSyntax).join(', ')}}`;
  const keys = Object.keys(v).sort(compareGoStrings);
  return `map[string]interface {}{${keys.map((k) => `${goQuote(k)}:${goSyntax(v[k]!)}`).join(', ')}}`;
}

/** `%T` of a decoded JSON value. */
export function goTypeOf(v: JsonValue): string {
  if (v === null) return '<nil>';
  if (typeof v === 'string') return 'string';
  if (typeof v === 'boolean') return 'bool';
  if (typeof v === 'number') return isGoInt(v) ? 'int64' : 'float64';
  if (Array.isArray(v)) return '[]interface {}';
  return 'map[string]interface {}';
}

/** `%v` of upstream's value wrapper (a pointer to a one-field struct): `&{…}`. */
export function goValueWrapper(v: JsonValue): string {
  return `&{${goPlain(v)}}`;
}

/** `%#v` of upstream's value wrapper. */
export function goValueWrapperSyntax(v: JsonValue): string {
  return `&value.valueUnstructured{Value:${goSyntax(v)}}`;
}
