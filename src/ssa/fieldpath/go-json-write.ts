/**
 * JSON text exactly as upstream writes it. Upstream uses json-iterator with its "compatible with the
 * standard library" configuration, which escapes differently in two places:
 *
 * - object keys written by hand (WriteObjectField: every FieldsV1 key, and the field names inside a
 *   `k:` element) escape only `"`, `\` and control characters: `<`, `>`, `&`, U+2028 and U+2029 stay
 *   as they are, and \b and \f are written \u0008 and \u000c (unlike JSON.stringify);
 * - values (strings inside `k:` and `v:` elements, and keys of maps nested in them) also escape `<`,
 *   `>` and `&` as \u003c, \u003e, \u0026 and U+2028/U+2029 as \u2028/\u2029.
 *
 * Numbers print as JSON.stringify prints them, which is what Go prints for an int64 and for a float64
 * (exponent form below 1e-6 and from 1e21); the one difference, -0 (Go float "-0"), reads here as 0.
 */
import { compareGoStrings } from '../../api/go/strings.ts';
import type { JsonValue } from './path-element.ts';

const HEX = '0123456789abcdef';

function needsEscape(code: number, html: boolean): boolean {
  if (code < 0x20 || code === 0x22 || code === 0x5c) return true;
  if (code >= 0xd800 && code <= 0xdfff) return true; // may be a lone surrogate
  return html && (code === 0x3c || code === 0x3e || code === 0x26 || code === 0x2028 || code === 0x2029);
}

function escapeFrom(s: string, start: number, html: boolean): string {
  let out = s.slice(0, start);
  for (let i = start; i < s.length; i++) {
    const code = s.charCodeAt(i);
    if (!needsEscape(code, html)) {
      out += s[i];
      continue;
    }
    if (code >= 0xd800 && code <= 0xdfff) {
      const next = s.charCodeAt(i + 1);
      if (code < 0xdc00 && next >= 0xdc00 && next <= 0xdfff) {
        out += s[i]! + s[i + 1]!;
        i++;
      } else {
        // Go strings hold U+FFFD where JSON had a lone surrogate.
        out += '\ufffd';
      }
      continue;
    }
    switch (code) {
      case 0x22:
        out += '\\"';
        break;
      case 0x5c:
        out += '\\\\';
        break;
      case 0x0a:
        out += '\\n';
        break;
      case 0x0d:
        out += '\\r';
        break;
      case 0x09:
        out += '\\t';
        break;
      case 0x2028:
      case 0x2029:
        out += `\\u202${HEX[code & 0xf]}`;
        break;
      default:
        out += `\\u00${HEX[code >> 4]}${HEX[code & 0xf]}`;
    }
  }
  return out;
}

function quote(s: string, html: boolean): string {
  for (let i = 0; i < s.length; i++) {
    if (needsEscape(s.charCodeAt(i), html)) return `"${escapeFrom(s, i, html)}"`;
  }
  return `"${s}"`;
}

/** A hand-written object key (json-iterator's WriteString). */
export function goJsonKey(s: string): string {
  return quote(s, false);
}

/** A value as json-iterator's WriteVal writes an unstructured value: map keys sorted, strings HTML-safe. */
export function goJsonValue(v: JsonValue): string {
  if (v === null) return 'null';
  switch (typeof v) {
    case 'string':
      return quote(v, true);
    case 'number':
      if (!Number.isFinite(v)) throw new Error(`unsupported value: ${Number.isNaN(v) ? 'NaN' : v > 0 ? '+Inf' : '-Inf'}`);
      return JSON.stringify(v);
    case 'boolean':
      return v ? 'true' : 'false';
  }
  if (Array.isArray(v)) return `[${v.map(goJsonValue).join(',')}]`;
  const keys = Object.keys(v).sort(compareGoStrings);
  return `{${keys.map((k) => `${quote(k, true)}:${goJsonValue(v[k]!)}`).join(',')}}`;
}
