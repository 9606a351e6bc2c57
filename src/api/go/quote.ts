/** Go's quoting of strings, as messages from the real server print them. */

const GO_ESCAPES: Record<string, string> = {
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

/** Quotes a string the way Go's `%q` does, so messages read as the real server's. */
export function goQuote(s: string): string {
  let out = '"';
  for (const ch of s) {
    const code = ch.codePointAt(0)!;
    const esc = GO_ESCAPES[ch];
    if (esc) out += esc;
    else if (code < 0x20 || code === 0x7f) out += `\\x${code.toString(16).padStart(2, '0')}`;
    else if (code >= 0x80 && code <= 0x9f) out += `\\u${code.toString(16).padStart(4, '0')}`;
    else out += ch;
  }
  return `${out}"`;
}

/** Formats a string list as Go's `%#v` prints a `[]string` (nil prints as `[]string(nil)`). */
export function goStringSlice(values: readonly string[] | null | undefined): string {
  if (!values) return '[]string(nil)';
  return `[]string{${values.map(goQuote).join(', ')}}`;
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
