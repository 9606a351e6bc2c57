/**
 * Decodes CBOR request bodies into JSON values the way apimachinery's CBOR decoding options read
 * them: a self-described tag (55799) is skipped; duplicate map keys, invalid UTF-8 text, NaN and
 * infinities, bignums, simple values other than false/true/null and integers beyond int64 are
 * refused; nesting stops at 64 levels and arrays and maps at 1024 entries. Byte strings read as
 * strings: tagged 22 (base64 later), 21 (base64url) or 23 (hex), they become that encoding of their
 * bytes, as `[]byte` fields hold them in JSON; untagged, their bytes are the string. Other tags give
 * their content. Errors are CborDecodeError with the decoder's own words.
 */

export class CborDecodeError extends Error {}

const MAX_DEPTH = 64;
const MAX_ITEMS = 1024;
const INT64_MAX = 2n ** 63n - 1n;
const utf8Fatal = new TextDecoder('utf-8', { fatal: true });
const utf8Lenient = new TextDecoder('utf-8');

/** Bytes from a byte string, with the tag that says how they become text. */
class ByteString {
  constructor(
    readonly bytes: Uint8Array,
    readonly later?: number,
  ) {}

  text(): string {
    const b = Buffer.from(this.bytes.buffer, this.bytes.byteOffset, this.bytes.byteLength);
    if (this.later === 22) return b.toString('base64');
    if (this.later === 21) return b.toString('base64url');
    if (this.later === 23) return b.toString('hex');
    // A Go string holds any bytes; its JSON form replaces invalid sequences, as this does.
    return utf8Lenient.decode(this.bytes);
  }
}

class Reader {
  pos = 0;
  constructor(readonly buf: Uint8Array) {}

  need(n: number): void {
    if (this.pos + n > this.buf.length) throw new CborDecodeError('unexpected EOF');
  }

  u8(): number {
    this.need(1);
    return this.buf[this.pos++]!;
  }

  view(n: number): DataView {
    this.need(n);
    const v = new DataView(this.buf.buffer, this.buf.byteOffset + this.pos, n);
    this.pos += n;
    return v;
  }

  take(n: number): Uint8Array {
    this.need(n);
    const b = this.buf.subarray(this.pos, this.pos + n);
    this.pos += n;
    return b;
  }

  /** The argument of a head; undefined for an indefinite length (31). */
  argument(info: number, major: number): bigint | undefined {
    if (info < 24) return BigInt(info);
    if (info === 24) return BigInt(this.u8());
    if (info === 25) return BigInt(this.view(2).getUint16(0));
    if (info === 26) return BigInt(this.view(4).getUint32(0));
    if (info === 27) return this.view(8).getBigUint64(0);
    if (info === 31 && major >= 2 && major <= 5) return undefined;
    throw new CborDecodeError(`cbor: invalid additional information ${info} for type ${TYPE_NAMES[major]}`);
  }
}

const TYPE_NAMES = ['positive integer', 'negative integer', 'byte string', 'UTF-8 text string', 'array', 'map', 'tag', 'primitives'];

function length(n: bigint | undefined): number {
  if (n !== undefined && n > BigInt(Number.MAX_SAFE_INTEGER)) throw new CborDecodeError('cbor: length too large');
  return Number(n);
}

function halfToNumber(bits: number): number {
  const exp = (bits >> 10) & 0x1f;
  const mant = bits & 0x3ff;
  const sign = bits & 0x8000 ? -1 : 1;
  if (exp === 0) return sign * mant * 2 ** -24;
  if (exp === 31) return mant ? NaN : sign * Infinity;
  return sign * (1 + mant / 1024) * 2 ** (exp - 15);
}

function checkFloat(v: number): number {
  if (Number.isNaN(v)) throw new CborDecodeError('cbor: floating-point NaN values are not supported');
  if (!Number.isFinite(v)) throw new CborDecodeError('cbor: floating-point infinity values are not supported');
  return v;
}

/** The chunks of an indefinite-length string, each a definite string of the same major type. */
function chunks(r: Reader, major: number): Uint8Array[] {
  const parts: Uint8Array[] = [];
  for (;;) {
    const ib = r.u8();
    if (ib === 0xff) return parts;
    if (ib >> 5 !== major || (ib & 0x1f) === 31) throw new CborDecodeError(`cbor: wrong element type ${TYPE_NAMES[ib >> 5]} for indefinite-length ${TYPE_NAMES[major]}`);
    parts.push(r.take(length(r.argument(ib & 0x1f, major))));
  }
}

function item(r: Reader, depth: number): unknown {
  if (depth > MAX_DEPTH) throw new CborDecodeError(`cbor: exceeded max nested level ${MAX_DEPTH}`);
  const ib = r.u8();
  const major = ib >> 5;
  const info = ib & 0x1f;
  switch (major) {
    case 0: {
      const n = r.argument(info, major)!;
      if (n > INT64_MAX) throw new CborDecodeError(`cbor: cannot unmarshal positive integer into Go value of type int64 (${n} overflows Go's int64)`);
      return Number(n);
    }
    case 1: {
      const n = r.argument(info, major)!;
      if (n > INT64_MAX) throw new CborDecodeError(`cbor: cannot unmarshal negative integer into Go value of type int64 (-1-${n} overflows Go's int64)`);
      return Number(-1n - n);
    }
    case 2: {
      const n = r.argument(info, major);
      return new ByteString(n === undefined ? Buffer.concat(chunks(r, 2)) : r.take(length(n)));
    }
    case 3: {
      const n = r.argument(info, major);
      const bytes = n === undefined ? Buffer.concat(chunks(r, 3)) : r.take(length(n));
      try {
        return utf8Fatal.decode(bytes);
      } catch {
        throw new CborDecodeError('cbor: invalid UTF-8 string');
      }
    }
    case 4: {
      const n = r.argument(info, major);
      const out: unknown[] = [];
      if (n === undefined) {
        while (r.need(1), r.buf[r.pos] !== 0xff) {
          if (out.length >= MAX_ITEMS) throw new CborDecodeError(`cbor: exceeded max number of elements ${MAX_ITEMS} for CBOR array`);
          out.push(item(r, depth + 1));
        }
        r.pos++;
        return out;
      }
      if (n > BigInt(MAX_ITEMS)) throw new CborDecodeError(`cbor: exceeded max number of elements ${MAX_ITEMS} for CBOR array`);
      for (let i = 0; i < Number(n); i++) out.push(item(r, depth + 1));
      return out;
    }
    case 5: {
      const n = r.argument(info, major);
      if (n !== undefined && n > BigInt(MAX_ITEMS)) throw new CborDecodeError(`cbor: exceeded max number of key-value pairs ${MAX_ITEMS} for CBOR map`);
      const out: Record<string, unknown> = {};
      const seen = new Set<string>();
      for (let i = 0; n === undefined ? (r.need(1), r.buf[r.pos] !== 0xff) : i < Number(n); i++) {
        if (i >= MAX_ITEMS) throw new CborDecodeError(`cbor: exceeded max number of key-value pairs ${MAX_ITEMS} for CBOR map`);
        const rawKey = item(r, depth + 1);
        const key = typeof rawKey === 'string' ? rawKey : rawKey instanceof ByteString ? rawKey.text() : undefined;
        if (key === undefined) throw new CborDecodeError(`cbor: cannot unmarshal ${describe(rawKey)} into Go value of type string`);
        if (seen.has(key)) throw new CborDecodeError(`cbor: found duplicate map key "${key}" at map element index ${i}`);
        seen.add(key);
        Object.defineProperty(out, key, { value: toJson(item(r, depth + 1)), enumerable: true, writable: true, configurable: true });
      }
      if (n === undefined) r.pos++;
      return out;
    }
    case 6: {
      const tag = r.argument(info, major)!;
      if (tag === 2n || tag === 3n) throw new CborDecodeError('cbor: bignum tags are not allowed');
      const content = item(r, depth + 1);
      if ((tag === 21n || tag === 22n || tag === 23n) && content instanceof ByteString) return new ByteString(content.bytes, Number(tag));
      if (tag === 1n && typeof content === 'number') return new Date(content * 1000).toISOString().replace('.000Z', 'Z');
      return content;
    }
    default:
      if (info === 20) return false;
      if (info === 21) return true;
      if (info === 22) return null;
      if (info === 25) return checkFloat(halfToNumber(r.view(2).getUint16(0)));
      if (info === 26) return checkFloat(r.view(4).getFloat32(0));
      if (info === 27) return checkFloat(r.view(8).getFloat64(0));
      if (info === 24) throw new CborDecodeError(`cbor: simple value ${r.u8()} is not recognized`);
      if (info === 31) throw new CborDecodeError('cbor: unexpected "break" code');
      throw new CborDecodeError(`cbor: simple value ${info} is not recognized`);
  }
}

function describe(v: unknown): string {
  if (typeof v === 'number') return 'integer';
  if (typeof v === 'boolean' || v === null) return 'primitives';
  if (Array.isArray(v)) return 'array';
  return 'map';
}

function toJson(v: unknown): unknown {
  if (v instanceof ByteString) return v.text();
  if (Array.isArray(v)) return v.map(toJson);
  return v;
}

/** Decodes one CBOR document (with or without the self-described tag) into a JSON value. */
export function decodeCbor(bytes: Uint8Array): unknown {
  const r = new Reader(bytes);
  if (bytes.length === 0) throw new CborDecodeError('EOF');
  const value = toJson(item(r, 1));
  if (r.pos < bytes.length) throw new CborDecodeError(`cbor: ${bytes.length - r.pos} bytes of extraneous data starting at index ${r.pos}`);
  return value;
}
