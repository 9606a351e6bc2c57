/**
 * The manager a write is recorded under when the request names none: the User-Agent up to its
 * first '/', unprintable characters dropped, cut to fit fieldManager's 128-byte limit
 * (upstream's managerOrUserAgent / prefixFromUserAgent).
 */

/** Upstream's FieldManagerMaxLength, in bytes. */
const FIELD_MANAGER_MAX_BYTES = 128;

/** Go's unicode.IsPrint: letters, marks, numbers, punctuation, symbols and the ASCII space. */
const PRINTABLE = /^[\p{L}\p{M}\p{N}\p{P}\p{S} ]$/u;

/**
 * The runes Go's `for range` yields over these bytes: valid UTF-8 sequences decode, and every
 * byte of an invalid one is a U+FFFD of its own.
 */
function goRunes(bytes: Uint8Array): string[] {
  const out: string[] = [];
  let i = 0;
  while (i < bytes.length) {
    const b0 = bytes[i]!;
    let width = 0;
    let cp = 0;
    if (b0 < 0x80) {
      width = 1;
      cp = b0;
    } else if (b0 >= 0xc2 && b0 <= 0xdf) {
      width = 2;
      cp = b0 & 0x1f;
    } else if (b0 >= 0xe0 && b0 <= 0xef) {
      width = 3;
      cp = b0 & 0x0f;
    } else if (b0 >= 0xf0 && b0 <= 0xf4) {
      width = 4;
      cp = b0 & 0x07;
    }
    let ok = width > 0 && i + width <= bytes.length;
    for (let k = 1; ok && k < width; k++) {
      const b = bytes[i + k]!;
      if ((b & 0xc0) !== 0x80) ok = false;
      else cp = (cp << 6) | (b & 0x3f);
    }
    // Overlong forms, surrogates and values past U+10FFFF are invalid in Go as well.
    if (ok && ((width === 3 && (cp < 0x800 || (cp >= 0xd800 && cp <= 0xdfff))) || (width === 4 && (cp < 0x10000 || cp > 0x10ffff)))) ok = false;
    if (!ok) {
      out.push('\uFFFD');
      i += 1;
    } else {
      out.push(String.fromCodePoint(cp));
      i += width;
    }
  }
  return out;
}

/**
 * The header's characters as Go sees them. Node hands header values over as latin1 text, one
 * character per byte; read those bytes as UTF-8 the way Go ranges over a string. Text that holds
 * characters past U+00FF did not come from a raw header and is taken as it is.
 */
function headerRunes(value: string): string[] {
  if (/[^\x00-\xff]/.test(value)) return [...value];
  return goRunes(Buffer.from(value, 'latin1'));
}

/** Upstream's prefixFromUserAgent. */
export function managerFromUserAgent(userAgent: string | undefined): string {
  const prefix = (userAgent ?? '').split('/')[0]!;
  let out = '';
  let bytes = 0;
  for (const rune of headerRunes(prefix)) {
    if (!PRINTABLE.test(rune)) continue;
    const width = Buffer.byteLength(rune, 'utf8');
    if (bytes + width > FIELD_MANAGER_MAX_BYTES) break;
    out += rune;
    bytes += width;
  }
  return out;
}

/** The request's fieldManager when it has one, else the User-Agent's prefix (upstream's managerOrUserAgent). */
export function managerOrUserAgent(fieldManager: string | undefined, userAgent: string | undefined): string {
  return fieldManager ? fieldManager : managerFromUserAgent(userAgent);
}
