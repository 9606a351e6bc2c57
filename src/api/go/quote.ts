/** Go's quoting of strings, as messages from the real server print them. */

const GO_ESCAPES: Readonly<Record<string, string>> = {
  '\x07': '\\a',
  '\b': '\\b',
  '\f': '\\f',
  '\n': '\\n',
  '\r': '\\r',
  '\t': '\\t',
  '\v': '\\v',
  '"': '\\"',
  '\\': '\\\\',
};

// unicode.IsPrint (and strconv.IsPrint): letters, marks, numbers, punctuation, symbols and the ASCII space.
const PRINTABLE = /^[\p{L}\p{M}\p{N}\p{P}\p{S} ]$/u;

/** Whether Go counts one character (a whole code point) as printable: unicode.IsPrint. */
export function isGoPrint(ch: string): boolean {
  return PRINTABLE.test(ch);
}

function hex(code: number, width: number): string {
  return code.toString(16).padStart(width, '0');
}

/**
 * strconv.Quote, which is what `%q` and `%#v` print for a string: printable characters as they are,
 * the rest escaped (\xNN below U+0020 and for DEL, \uNNNN or \UNNNNNNNN above).
 */
export function goQuote(s: string): string {
  let out = '"';
  for (const ch of s) {
    const code = ch.codePointAt(0)!;
    // Printable ASCII is nearly every character met; it needs neither the table nor the regex.
    if (code >= 0x20 && code < 0x7f && code !== 0x22 && code !== 0x5c) {
      out += ch;
      continue;
    }
    const escape = GO_ESCAPES[ch];
    if (escape !== undefined) out += escape;
    else if (code < 0x20 || code === 0x7f) out += `\\x${hex(code, 2)}`;
    else if (code >= 0xd800 && code <= 0xdfff) out += '\ufffd'; // a lone surrogate is U+FFFD once in Go
    else if (PRINTABLE.test(ch)) out += ch;
    else if (code < 0x10000) out += `\\u${hex(code, 4)}`;
    else out += `\\U${hex(code, 8)}`;
  }
  return `${out}"`;
}

/** Formats a string list as Go's `%#v` prints a `[]string` (nil prints as `[]string(nil)`). */
export function goStringSlice(values: readonly string[] | null | undefined): string {
  if (!values) return '[]string(nil)';
  return `[]string{${values.map(goQuote).join(', ')}}`;
}

/** `%q` of a []string: `["a" "b"]`. */
export function goQuoteList(items: readonly string[]): string {
  return `[${items.map(goQuote).join(' ')}]`;
}

/**
 * The time package's own quoting (in duration and time parse errors): double quotes, `"` and `\`
 * escaped, bytes outside printable ASCII as \xNN.
 */
export function timeQuote(text: string): string {
  let out = '"';
  for (const byte of Buffer.from(text, 'utf8')) {
    if (byte >= 0x80 || byte < 0x20) out += `\\x${byte.toString(16).padStart(2, '0')}`;
    else {
      const c = String.fromCharCode(byte);
      out += c === '"' || c === '\\' ? `\\${c}` : c;
    }
  }
  return `${out}"`;
}
