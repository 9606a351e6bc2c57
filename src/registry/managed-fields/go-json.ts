/**
 * The bits of Go's encoding/json that managed fields depend on. Manager identifiers are JSON text
 * used as map keys and sorted byte-wise, and the last-applied annotation is a JSON document, so
 * both have to be spelled exactly as Go spells them for orders and annotations to agree.
 */
import { compareGoStrings } from '../../api/go/strings.ts';

/** Lone UTF-16 surrogates cannot come out of Go's decoder (it yields U+FFFD); make ours agree. */
function wellFormed(s: string): string {
  return s.replace(/[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/g, '\uFFFD');
}

/** Go escapes these even inside strings (HTML safety), where JSON.stringify leaves them alone. */
function htmlEscape(json: string): string {
  return json.replace(/[<>&\u2028\u2029]/g, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`);
}

/**
 * Strings in which none of the three steps changes anything: no character JSON escapes (quote,
 * backslash, controls), none Go escapes for HTML, no surrogate (paired ones take the slow path too).
 * Manager names, versions and subresources all are, so identifiers are built without regexps.
 */
const PLAIN = /^[^"\\\u0000-\u001f<>&\u2028\u2029\ud800-\udfff]*$/;

/** A string as Go's json.Marshal writes it. */
export function goJsonString(s: string): string {
  if (PLAIN.test(s)) return `"${s}"`;
  return htmlEscape(JSON.stringify(wellFormed(s)));
}

/** A float64 as Go's json.Marshal writes it: like JavaScript, but exponents have two digits at least. */
function goNumber(n: number): string {
  if (!Number.isFinite(n)) throw new Error(`json: unsupported value: ${n}`);
  return String(n).replace(/e([+-])(\d)$/, 'e$10$2');
}

/**
 * A decoded JSON value as Go's json.Encoder writes a map[string]interface{}: object keys sorted
 * byte-wise, HTML characters escaped. (The trailing newline Encoder adds is the caller's business.)
 */
export function goJsonMarshal(value: unknown): string {
  if (value === null || value === undefined) return 'null';
  if (typeof value === 'string') return goJsonString(value);
  if (typeof value === 'number') return goNumber(value);
  if (typeof value === 'boolean') return value ? 'true' : 'false';
  if (Array.isArray(value)) return `[${value.map(goJsonMarshal).join(',')}]`;
  if (typeof value === 'object') {
    const obj = value as Record<string, unknown>;
    const keys = Object.keys(obj).filter((k) => obj[k] !== undefined).sort(compareGoStrings);
    return `{${keys.map((k) => `${goJsonString(k)}:${goJsonMarshal(obj[k])}`).join(',')}}`;
  }
  throw new Error(`json: unsupported type: ${typeof value}`);
}
