/**
 * Go strings are UTF-8 bytes: they order byte-wise, and bytes that are not valid UTF-8 read as U+FFFD
 * once a client sees them.
 */

/**
 * Go's `a < b` on strings (UTF-8 bytes, that is code points). JavaScript's `<` compares UTF-16 units,
 * which disagrees only where a surrogate (a character above U+FFFF) meets a unit in U+E000..U+FFFF.
 * Allocation-free, as it runs inside every set operation and sort. Strings here are well formed (the
 * decoders turn a lone surrogate into U+FFFD, as Go's do).
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

/**
 * Bytes as a Go string reads once sent to a client as JSON, and as Go's `for range` yields its runes:
 * valid UTF-8 decoded, and every byte that does not start a valid sequence replaced by U+FFFD on its
 * own (TextDecoder would merge some of them).
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

/**
 * Go's utf8.RuneCountInString: the number of code points (a surrogate pair is one; a lone surrogate,
 * which Go would have as U+FFFD, is one too). Allocation-free.
 */
export function runeCount(s: string): number {
  let n = 0;
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    // A high surrogate followed by a low one is one code point.
    if (c >= 0xd800 && c <= 0xdbff && i + 1 < s.length) {
      const d = s.charCodeAt(i + 1);
      if (d >= 0xdc00 && d <= 0xdfff) i++;
    }
    n++;
  }
  return n;
}
