/**
 * CBOR as Kubernetes writes it (RFC 8949 with apimachinery's encoding options): a self-described
 * CBOR tag (55799) before each top-level value; definite lengths only; Go strings and field names
 * as byte strings (major type 2), so the output is valid CBOR whatever bytes a string holds;
 * `[]byte` fields as tag 22 ("expected later encoding: base64") around their raw bytes; integers
 * and floats in their shortest form (a float64 field holding 1 is the half-precision 1.0); map keys
 * in bytewise lexical order of their encodings (RFC 8949 §4.2.1), so equal objects give equal bytes.
 *
 * The schema says which strings are `[]byte` and which numbers are floats; without one (free-form
 * JSON) integers are integers and everything else a float, as unstructured data holds them.
 */
import type { TypeSchema } from '../../schema/type-schema.ts';

export const SELF_DESCRIBED_CBOR = Uint8Array.of(0xd9, 0xd9, 0xf7);
const TAG_BASE64_LATER = 22;
const ANY: TypeSchema = { kind: 'any' };

/** A growable byte buffer. */
class Output {
  #buf = Buffer.allocUnsafe(256);
  #len = 0;

  #room(n: number): void {
    if (this.#len + n <= this.#buf.length) return;
    const next = Buffer.allocUnsafe(Math.max(this.#buf.length * 2, this.#len + n));
    this.#buf.copy(next, 0, 0, this.#len);
    this.#buf = next;
  }

  byte(b: number): void {
    this.#room(1);
    this.#buf[this.#len++] = b;
  }

  bytes(b: Uint8Array): void {
    this.#room(b.length);
    this.#buf.set(b, this.#len);
    this.#len += b.length;
  }

  /** A head: major type and argument, shortest form. */
  head(major: number, n: number | bigint): void {
    const m = major << 5;
    const v = BigInt(n);
    if (v < 24n) this.byte(m | Number(v));
    else if (v < 0x100n) {
      this.byte(m | 24);
      this.byte(Number(v));
    } else if (v < 0x10000n) {
      this.byte(m | 25);
      this.#room(2);
      this.#buf.writeUInt16BE(Number(v), this.#len);
      this.#len += 2;
    } else if (v < 0x100000000n) {
      this.byte(m | 26);
      this.#room(4);
      this.#buf.writeUInt32BE(Number(v), this.#len);
      this.#len += 4;
    } else {
      this.byte(m | 27);
      this.#room(8);
      this.#buf.writeBigUInt64BE(v, this.#len);
      this.#len += 8;
    }
  }

  float(v: number): void {
    const half = toHalf(v);
    if (half !== undefined) {
      this.byte(0xf9);
      this.#room(2);
      this.#buf.writeUInt16BE(half, this.#len);
      this.#len += 2;
    } else if (Math.fround(v) === v) {
      this.byte(0xfa);
      this.#room(4);
      this.#buf.writeFloatBE(v, this.#len);
      this.#len += 4;
    } else {
      this.byte(0xfb);
      this.#room(8);
      this.#buf.writeDoubleBE(v, this.#len);
      this.#len += 8;
    }
  }

  result(): Buffer {
    return this.#buf.subarray(0, this.#len);
  }
}

/** The IEEE 754 half-precision bits of `v` when it has an exact one (finite values only). */
function toHalf(v: number): number | undefined {
  if (Object.is(v, 0)) return 0;
  if (Object.is(v, -0)) return 0x8000;
  const sign = v < 0 ? 0x8000 : 0;
  const a = Math.abs(v);
  if (a > 65504) return undefined;
  const exp = Math.floor(Math.log2(a));
  if (exp >= -14) {
    const mant = a / 2 ** exp - 1;
    const bits = mant * 1024;
    if (!Number.isInteger(bits)) return undefined;
    if (2 ** exp * (1 + bits / 1024) !== a) return undefined;
    return sign | ((exp + 15) << 10) | bits;
  }
  // Subnormal: a multiple of 2^-24.
  const bits = a * 2 ** 24;
  return Number.isInteger(bits) && bits < 1024 ? sign | bits : undefined;
}

const utf8 = (s: string) => Buffer.from(s, 'utf8');

function writeString(out: Output, s: string): void {
  const b = utf8(s);
  out.head(2, b.length);
  out.bytes(b);
}

function writeInteger(out: Output, v: number): void {
  if (v >= 0) out.head(0, Number.isSafeInteger(v) ? v : BigInt(v));
  else out.head(1, Number.isSafeInteger(v) ? -1 - v : -1n - BigInt(v));
}

/** Encodes a map whose keys sort by their encoded form; `entry` writes one value. */
function writeMap(out: Output, keys: string[], entry: (key: string) => void): void {
  const encoded = keys.map((k) => {
    const o = new Output();
    writeString(o, k);
    return { k, bytes: o.result() };
  });
  encoded.sort((a, b) => Buffer.compare(a.bytes, b.bytes));
  out.head(5, keys.length);
  for (const { k, bytes } of encoded) {
    out.bytes(bytes);
    entry(k);
  }
}

function writeValue(out: Output, value: unknown, schema: TypeSchema): void {
  if (value === null || value === undefined) return out.byte(0xf6);
  if (typeof value === 'boolean') return out.byte(value ? 0xf5 : 0xf4);
  if (typeof value === 'number') {
    if (!Number.isFinite(value)) throw new Error('CBOR: NaN and infinite values have no encoding');
    if (schema.kind === 'number' || !Number.isInteger(value)) return out.float(value);
    return writeInteger(out, value);
  }
  if (typeof value === 'string') {
    if (schema.kind === 'string' && schema.format === 'byte') {
      out.head(6, TAG_BASE64_LATER);
      const raw = Buffer.from(value, 'base64');
      out.head(2, raw.length);
      return out.bytes(raw);
    }
    return writeString(out, value);
  }
  if (Array.isArray(value)) {
    const items = schema.kind === 'array' ? schema.items : ANY;
    out.head(4, value.length);
    for (const v of value) writeValue(out, v, items);
    return;
  }
  const obj = value as Record<string, unknown>;
  const keys = Object.keys(obj).filter((k) => obj[k] !== undefined);
  if (schema.kind === 'object') return writeMap(out, keys, (k) => writeValue(out, obj[k], schema.fields.get(k)?.schema ?? ANY));
  if (schema.kind === 'map') return writeMap(out, keys, (k) => writeValue(out, obj[k], schema.values));
  return writeMap(out, keys, (k) => writeValue(out, obj[k], ANY));
}

/** One value's CBOR, without the self-described tag (for embedding). */
export function encodeCborValue(value: unknown, schema: TypeSchema = ANY): Buffer {
  const out = new Output();
  writeValue(out, value, schema);
  return out.result();
}

/** A top-level document: the self-described tag, then the value. */
export function encodeCbor(value: unknown, schema: TypeSchema = ANY): Buffer {
  const out = new Output();
  out.bytes(SELF_DESCRIBED_CBOR);
  writeValue(out, value, schema);
  return out.result();
}

/**
 * A map built from already-encoded values (a list's items, a watch event's object), keys sorted as
 * everywhere else: lets big documents be assembled from parts encoded once.
 */
export function encodeCborMapOfParts(parts: Readonly<Record<string, Uint8Array>>, selfDescribed = true): Buffer {
  const out = new Output();
  if (selfDescribed) out.bytes(SELF_DESCRIBED_CBOR);
  writeMap(out, Object.keys(parts), (k) => out.bytes(parts[k]!));
  return out.result();
}

/** An array of already-encoded items. */
export function encodeCborArrayOfParts(items: readonly Uint8Array[]): Buffer {
  const out = new Output();
  out.head(4, items.length);
  for (const item of items) out.bytes(item);
  return out.result();
}

/** A list (`kind`, `apiVersion`, `metadata`, `items`) from its head and its items' encodings. */
export function encodeCborList(head: Readonly<Record<string, unknown>>, items: readonly Uint8Array[]): Buffer {
  const parts: Record<string, Uint8Array> = {};
  for (const [key, value] of Object.entries(head)) parts[key] = encodeCborValue(value);
  parts.items = encodeCborArrayOfParts(items);
  return encodeCborMapOfParts(parts);
}
