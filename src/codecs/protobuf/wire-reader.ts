/**
 * A minimal protobuf wire reader over one buffer. Nested messages are read in place by passing an
 * `end` offset instead of allocating sub-readers. Every read checks bounds and throws `WireError`
 * (never a RangeError from deep inside), so callers can turn any malformed input into a 400.
 */

/** Wire types of the protobuf encoding. */
export const WIRE_VARINT = 0;
export const WIRE_FIXED64 = 1;
export const WIRE_LEN = 2;
export const WIRE_START_GROUP = 3;
export const WIRE_END_GROUP = 4;
export const WIRE_FIXED32 = 5;

/** Malformed protobuf input. Messages follow the Go decoder's wording (`unexpected EOF` …). */
export class WireError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'WireError';
  }
}

const TWO_32 = 4294967296;
const utf8 = new TextDecoder('utf-8');
const SHORT_STRING = 48;

export class WireReader {
  readonly buf: Uint8Array;
  pos: number;

  constructor(buf: Uint8Array, pos = 0) {
    this.buf = buf;
    this.pos = pos;
  }

  /** A varint as an unsigned 32-bit number; bits above 32 of longer varints are dropped. */
  uint32(end: number): number {
    const buf = this.buf;
    let pos = this.pos;
    let value = 0;
    for (let shift = 0; shift < 35; shift += 7) {
      if (pos >= end) throw new WireError('unexpected EOF');
      const b = buf[pos++]!;
      value += (b & 0x7f) * 2 ** shift;
      if (b < 0x80) {
        this.pos = pos;
        return value >>> 0;
      }
    }
    // Longer varints (negative int32s are sign-extended to ten bytes): skip the high bytes.
    for (let i = 5; i < 10; i++) {
      if (pos >= end) throw new WireError('unexpected EOF');
      if (buf[pos++]! < 0x80) {
        this.pos = pos;
        return value >>> 0;
      }
    }
    throw new WireError('proto: integer overflow');
  }

  /** A `double` field (wire type 1: eight bytes, little-endian). */
  double(end: number): number {
    if (this.pos + 8 > end) throw new WireError('unexpected EOF');
    const view = new DataView(this.buf.buffer, this.buf.byteOffset + this.pos, 8);
    this.pos += 8;
    return view.getFloat64(0, true);
  }

  /** An `int32` field: the low 32 bits of the varint, as a signed number. */
  int32(end: number): number {
    return this.uint32(end) | 0;
  }

  /**
   * An `int64` field as a JS number: exact within ±2^53, rounded beyond (JSON clients read numbers
   * as doubles anyway).
   */
  int64(end: number): number {
    const buf = this.buf;
    let pos = this.pos;
    let lo = 0;
    let hi = 0;
    let b = 0;
    let done = false;
    for (let shift = 0; shift < 28; shift += 7) {
      if (pos >= end) throw new WireError('unexpected EOF');
      b = buf[pos++]!;
      lo |= (b & 0x7f) << shift;
      if (b < 0x80) {
        done = true;
        break;
      }
    }
    if (!done) {
      if (pos >= end) throw new WireError('unexpected EOF');
      b = buf[pos++]!;
      lo |= (b & 0x0f) << 28;
      hi = (b & 0x7f) >> 4;
      done = b < 0x80;
      for (let shift = 3; !done && shift < 32; shift += 7) {
        if (pos >= end) throw new WireError('unexpected EOF');
        b = buf[pos++]!;
        hi |= (b & 0x7f) << shift;
        done = b < 0x80;
      }
      if (!done) throw new WireError('proto: integer overflow');
    }
    this.pos = pos;
    if (hi & 0x80000000) {
      // Two's complement negative.
      let nlo = (~lo + 1) >>> 0;
      let nhi = ~hi >>> 0;
      if (nlo === 0) nhi = (nhi + 1) >>> 0;
      return -(nhi * TWO_32 + nlo);
    }
    return (hi >>> 0) * TWO_32 + (lo >>> 0);
  }

  bool(end: number): boolean {
    // A bool is a varint; anything non-zero is true.
    const buf = this.buf;
    let any = false;
    for (let i = 0; i < 10; i++) {
      if (this.pos >= end) throw new WireError('unexpected EOF');
      const b = buf[this.pos++]!;
      if (b & 0x7f) any = true;
      if (b < 0x80) return any;
    }
    throw new WireError('proto: integer overflow');
  }

  /** Reads a length prefix and returns the end offset of the delimited bytes. */
  delimited(end: number): number {
    const len = this.uint32(end);
    const stop = this.pos + len;
    if (stop > end) throw new WireError('unexpected EOF');
    return stop;
  }

  string(end: number): string {
    const stop = this.delimited(end);
    const start = this.pos;
    this.pos = stop;
    const len = stop - start;
    if (len === 0) return '';
    if (len <= SHORT_STRING) {
      // Most API strings are short ASCII: building them directly beats a TextDecoder call.
      const buf = this.buf;
      let out = '';
      for (let i = start; i < stop; i++) {
        const c = buf[i]!;
        if (c >= 0x80) return utf8.decode(buf.subarray(start, stop));
        out += String.fromCharCode(c);
      }
      return out;
    }
    return utf8.decode(this.buf.subarray(start, stop));
  }

  /** The delimited bytes, as a view into the input (no copy). */
  bytes(end: number): Uint8Array {
    const stop = this.delimited(end);
    const out = this.buf.subarray(this.pos, stop);
    this.pos = stop;
    return out;
  }

  /** Skips one field's value of the given wire type. */
  skip(wireType: number, end: number, fieldNumber: number): void {
    switch (wireType) {
      case WIRE_VARINT:
        this.uint32(end);
        return;
      case WIRE_FIXED64:
        this.advance(8, end);
        return;
      case WIRE_LEN:
        this.pos = this.delimited(end);
        return;
      case WIRE_FIXED32:
        this.advance(4, end);
        return;
      case WIRE_START_GROUP: {
        // Groups nest without limit in the wire format: skipped with a stack of open groups, not recursion.
        const open = [fieldNumber];
        while (open.length > 0) {
          const tag = this.uint32(end);
          const wt = tag & 7;
          if (wt === WIRE_END_GROUP) {
            if (tag >>> 3 !== open.pop()) throw new WireError('proto: mismatched end group');
          } else if (wt === WIRE_START_GROUP) {
            open.push(tag >>> 3);
          } else {
            this.skip(wt, end, tag >>> 3);
          }
        }
        return;
      }
      default:
        throw new WireError(`proto: illegal wireType ${wireType}`);
    }
  }

  private advance(n: number, end: number): void {
    if (this.pos + n > end) throw new WireError('unexpected EOF');
    this.pos += n;
  }
}
