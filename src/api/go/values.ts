/**
 * Go's fmt renderings (`%v`, `%#v`, `%T`) of decoded JSON, so that error texts read exactly as
 * kube-apiserver's (`map: map[image:nginx] does not contain declared merge key: name`).
 *
 * Decoded JSON in Go is `map[string]interface {}`, `[]interface {}`, `string`, `int64` (the apiserver
 * keeps integers), `float64`, `bool` or nil; fmt prints map keys sorted, in Go's byte order.
 */
import { goNumber, isGoInt } from './number.ts';
import { goQuote } from './quote.ts';
import { compareGoStrings } from './strings.ts';

/** A decoded JSON object (not an array, not null). */
function isJsonObject(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

/** `fmt.Sprintf("%v", v)` of a decoded JSON value. */
export function goValue(v: unknown): string {
  if (v === null || v === undefined) return '<nil>';
  if (typeof v === 'string') return v;
  if (typeof v === 'number') return goNumber(v);
  if (typeof v === 'boolean') return String(v);
  if (Array.isArray(v)) return `[${v.map(goValue).join(' ')}]`;
  if (isJsonObject(v)) {
    const keys = Object.keys(v).sort(compareGoStrings);
    return `map[${keys.map((k) => `${k}:${goValue(v[k])}`).join(' ')}]`;
  }
  return String(v);
}

/** `fmt.Sprintf("%#v", v)` of a decoded JSON value. */
export function goSyntax(v: unknown): string {
  if (v === null || v === undefined) return 'interface {}(nil)';
  if (typeof v === 'string') return goQuote(v);
  if (typeof v === 'number') return goNumber(v);
  if (typeof v === 'boolean') return String(v);
  if (Array.isArray(v)) return `[]interface {}{${v.map(goSyntax).join(', ')}}`;
  if (isJsonObject(v)) {
    const keys = Object.keys(v).sort(compareGoStrings);
    return `map[string]interface {}{${keys.map((k) => `${goQuote(k)}:${goSyntax(v[k])}`).join(', ')}}`;
  }
  return String(v);
}

/** `fmt.Sprintf("%T", v)` of a decoded JSON value. */
export function goType(v: unknown): string {
  if (v === null || v === undefined) return '<nil>';
  if (typeof v === 'string') return 'string';
  if (typeof v === 'number') return isGoInt(v) ? 'int64' : 'float64';
  if (typeof v === 'boolean') return 'bool';
  if (Array.isArray(v)) return '[]interface {}';
  return 'map[string]interface {}';
}

/** `fmt.Sprintf("%s", reflect.TypeOf(v))` of a decoded JSON value: %T, but a nil Type is a bad %s operand. */
export function goTypeName(v: unknown): string {
  return v === null || v === undefined ? '%!s(<nil>)' : goType(v);
}

/** `fmt.Sprintf("%s", v)`: strings as they are, anything else as Go flags a wrong verb. */
export function goString(v: unknown): string {
  if (typeof v === 'string') return v;
  if (v === null || v === undefined) return '%!s(<nil>)';
  return `%!s(${goTypeName(v)}=${goValue(v)})`;
}

/**
 * Go's json.Marshal of a decoded JSON value: map keys sorted, and `<`, `>`, `&`, U+2028 and U+2029
 * escaped as \u003c … (what field errors print for a value that is neither a string nor a number).
 */
export function goJson(v: unknown): string {
  const sorted = JSON.stringify(v === undefined ? null : v, (_key, value) => {
    if (isJsonObject(value) && !GO_STRUCTS.has(value)) {
      const out: Record<string, unknown> = {};
      for (const k of Object.keys(value).sort()) out[k] = value[k];
      return out;
    }
    return value;
  });
  return sorted.replace(/[<>&\u2028\u2029]/g, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`);
}

const GO_STRUCTS = new WeakSet<object>();

/**
 * Marks an object as a Go struct for `goJson`: its fields print in the order given (Go's declaration
 * order), not sorted as a map's keys are.
 */
export function goStruct<T extends Record<string, unknown>>(fields: T): T {
  GO_STRUCTS.add(fields);
  return fields;
}
