/**
 * The few pieces of Go's string and number handling that field paths depend on: Go orders strings by
 * their UTF-8 bytes, quotes them with strconv.Quote, prints floats with `%v`, and turns bytes that are
 * not UTF-8 into U+FFFD when a message reaches a client as JSON.
 */

/**
 * Go's string order (UTF-8 bytes, that is code points). JavaScript's `<` compares UTF-16 units, which
 * disagrees only where a surrogate (a character above U+FFFF) meets a unit in U+E000..U+FFFF.
 * Allocation-free, as it runs inside every set operation.
 */
export function compareGoStrings(a: string, b: string): number {
  if (a === b) return 0;
  const n = a.length < b.length ? a.length : b.length;
  for (let i = 0; i < n; i++) {
    let x = a.charCodeAt(i);
    let y = b.charCodeAt(i);
    if (x === y) continue;
    if (x >= 0xd800 && y >= 0xd800) {
      // Move surrogates above U+E000..U+FFFF, where their code points belong.
      x = x >= 0xe000 ? x - 0x800 : x + 0x2000;
      y = y >= 0xe000 ? y - 0x800 : y + 0x2000;
    }
    return x < y ? -1 : 1;
  }
  return a.length === b.length ? 0 : a.length < b.length ? -1 : 1;
}

const QUOTE_ESCAPES: Readonly<Record<string, string>> = {
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

// strconv.IsPrint: letters, marks, numbers, punctuation, symbols and the ASCII space.
const PRINTABLE = /^[\p{L}\p{M}\p{N}\p{P}\p{S} ]$/u;

function hex(code: number, width: number): string {
  return code.toString(16).padStart(width, '0');
}

/** strconv.Quote (what `%q` prints): printable characters as they are, the rest escaped. */
export function goQuote(s: string): string {
  let out = '"';
  for (const ch of s) {
    const escape = QUOTE_ESCAPES[ch];
    if (escape !== undefined) {
      out += escape;
      continue;
    }
    const code = ch.codePointAt(0)!;
    if (code < 0x20 || code === 0x7f) out += `\\x${hex(code, 2)}`;
    else if (code >= 0xd800 && code <= 0xdfff) out += '\ufffd'; // a lone surrogate is U+FFFD once in Go
    else if (PRINTABLE.test(ch)) out += ch;
    else if (code < 0x10000) out += `\\u${hex(code, 4)}`;
    else out += `\\U${hex(code, 8)}`;
  }
  return `${out}"`;
}

const INT64_BOUND = 2 ** 63;

/**
 * Whether a JSON number is an int64 to Go: kube-apiserver decodes integral numbers that fit as int64
 * and everything else as float64, and the two print differently.
 */
export function isGoInt(n: number): boolean {
  return Number.isInteger(n) && n >= -INT64_BOUND && n < INT64_BOUND;
}

/** strconv.FormatFloat(x, 'g', -1, 64), which is what `%v` prints for a float64. */
export function goFloat(x: number): string {
  if (Number.isNaN(x)) return 'NaN';
  if (!Number.isFinite(x)) return x > 0 ? '+Inf' : '-Inf';
  if (x === 0) return Object.is(x, -0) ? '-0' : '0';
  // toExponential() gives the same shortest round-trip digits Go uses.
  const [mantissa, expText] = Math.abs(x).toExponential().split('e') as [string, string];
  const digits = mantissa.replace('.', '');
  const exp = Number(expText);
  let out: string;
  if (exp < -4 || exp >= 6) {
    const abs = Math.abs(exp);
    out = `${digits[0]}${digits.length > 1 ? `.${digits.slice(1)}` : ''}e${exp < 0 ? '-' : '+'}${abs < 10 ? '0' : ''}${abs}`;
  } else if (exp < 0) {
    out = `0.${'0'.repeat(-exp - 1)}${digits}`;
  } else if (digits.length <= exp + 1) {
    out = digits + '0'.repeat(exp + 1 - digits.length);
  } else {
    out = `${digits.slice(0, exp + 1)}.${digits.slice(exp + 1)}`;
  }
  return x < 0 ? `-${out}` : out;
}

/** `%v` of a number as kube-apiserver holds it (int64 or float64). */
export function goNumber(n: number): string {
  return isGoInt(n) ? BigInt(n).toString() : goFloat(n);
}

/**
 * Bytes as a Go string reads once sent to a client as JSON: valid UTF-8 decoded, and every byte that
 * does not start a valid sequence replaced by U+FFFD on its own (TextDecoder would merge some of them).
 */
export function goBytesText(bytes: Uint8Array): string {
  let out = '';
  let i = 0;
  while (i < bytes.length) {
    const b = bytes[i]!;
    if (b < 0x80) {
      out += String.fromCharCode(b);
      i++;
      continue;
    }
    const size = validSequenceLength(bytes, i);
    if (size === 0) {
      out += '\ufffd';
      i++;
    } else {
      out += Buffer.from(bytes.buffer, bytes.byteOffset + i, size).toString('utf8');
      i += size;
    }
  }
  return out;
}

// The length of the valid UTF-8 sequence starting at i, or 0 (the rules of Go's utf8.DecodeRune).
function validSequenceLength(bytes: Uint8Array, i: number): number {
  const b0 = bytes[i]!;
  const cont = (k: number, lo = 0x80, hi = 0xbf) => {
    const b = bytes[i + k];
    return b !== undefined && b >= lo && b <= hi;
  };
  if (b0 >= 0xc2 && b0 <= 0xdf) return cont(1) ? 2 : 0;
  if (b0 === 0xe0) return cont(1, 0xa0) && cont(2) ? 3 : 0;
  if (b0 === 0xed) return cont(1, 0x80, 0x9f) && cont(2) ? 3 : 0;
  if (b0 >= 0xe1 && b0 <= 0xef) return cont(1) && cont(2) ? 3 : 0;
  if (b0 === 0xf0) return cont(1, 0x90) && cont(2) && cont(3) ? 4 : 0;
  if (b0 === 0xf4) return cont(1, 0x80, 0x8f) && cont(2) && cont(3) ? 4 : 0;
  if (b0 >= 0xf1 && b0 <= 0xf3) return cont(1) && cont(2) && cont(3) ? 4 : 0;
  return 0;
}
