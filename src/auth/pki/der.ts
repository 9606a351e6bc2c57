/**
 * Just enough DER (X.690) to write and read X.509 certificates: the writer builds
 * TLVs from buffers, the reader walks them without copying. Nothing here knows X.509.
 */

/** Universal and context tags used by certificates. */
export const Tag = {
  BOOLEAN: 0x01,
  INTEGER: 0x02,
  BIT_STRING: 0x03,
  OCTET_STRING: 0x04,
  NULL: 0x05,
  OID: 0x06,
  UTF8_STRING: 0x0c,
  PRINTABLE_STRING: 0x13,
  T61_STRING: 0x14,
  IA5_STRING: 0x16,
  UTC_TIME: 0x17,
  GENERALIZED_TIME: 0x18,
  BMP_STRING: 0x1e,
  NUMERIC_STRING: 0x12,
  SEQUENCE: 0x30,
  SET: 0x31,
} as const;

function encodeLength(length: number): Buffer {
  if (length < 0x80) return Buffer.from([length]);
  const bytes: number[] = [];
  for (let n = length; n > 0; n = Math.floor(n / 256)) bytes.unshift(n & 0xff);
  return Buffer.from([0x80 | bytes.length, ...bytes]);
}

/** One TLV with the given tag byte and content. */
export function tlv(tag: number, content: Buffer): Buffer {
  return Buffer.concat([Buffer.from([tag]), encodeLength(content.length), content]);
}

export function sequence(...items: readonly Buffer[]): Buffer {
  return tlv(Tag.SEQUENCE, Buffer.concat(items));
}

/** A SET OF; DER wants its elements sorted by their encodings. */
export function setOf(...items: readonly Buffer[]): Buffer {
  return tlv(Tag.SET, Buffer.concat([...items].sort(Buffer.compare)));
}

/** An INTEGER from a non-negative magnitude (big-endian bytes), minimally encoded. */
export function unsignedInteger(magnitude: Buffer): Buffer {
  let start = 0;
  while (start < magnitude.length - 1 && magnitude[start] === 0) start++;
  let body = magnitude.subarray(start);
  if (body.length === 0) body = Buffer.from([0]);
  if (body[0]! & 0x80) body = Buffer.concat([Buffer.from([0]), body]);
  return tlv(Tag.INTEGER, body);
}

export function smallInteger(value: number): Buffer {
  const bytes: number[] = [];
  for (let n = value; n > 0; n = Math.floor(n / 256)) bytes.unshift(n & 0xff);
  return unsignedInteger(Buffer.from(bytes));
}

export function boolean(value: boolean): Buffer {
  return tlv(Tag.BOOLEAN, Buffer.from([value ? 0xff : 0x00]));
}

export function nullValue(): Buffer {
  return tlv(Tag.NULL, Buffer.alloc(0));
}

export function oid(dotted: string): Buffer {
  const parts = dotted.split('.').map((p) => Number.parseInt(p, 10));
  if (parts.length < 2 || parts.some((p) => !Number.isSafeInteger(p) || p < 0)) {
    throw new Error(`invalid object identifier ${dotted}`);
  }
  const arcs = [parts[0]! * 40 + parts[1]!, ...parts.slice(2)];
  const bytes: number[] = [];
  for (const arc of arcs) {
    const chunk: number[] = [arc & 0x7f];
    for (let n = Math.floor(arc / 128); n > 0; n = Math.floor(n / 128)) chunk.unshift((n & 0x7f) | 0x80);
    bytes.push(...chunk);
  }
  return tlv(Tag.OID, Buffer.from(bytes));
}

export function utf8String(value: string): Buffer {
  return tlv(Tag.UTF8_STRING, Buffer.from(value, 'utf8'));
}

export function ia5String(value: string): Buffer {
  return tlv(Tag.IA5_STRING, Buffer.from(value, 'latin1'));
}

export function octetString(value: Buffer): Buffer {
  return tlv(Tag.OCTET_STRING, value);
}

/** A BIT STRING of whole bytes. */
export function bitString(value: Buffer, unusedBits = 0): Buffer {
  return tlv(Tag.BIT_STRING, Buffer.concat([Buffer.from([unusedBits]), value]));
}

/** UTCTime through 2049, GeneralizedTime after, as RFC 5280 requires; whole seconds, UTC. */
export function time(date: Date): Buffer {
  const iso = date.toISOString(); // 2025-01-02T03:04:05.678Z
  const digits = iso.slice(0, 19).replace(/[-:T]/g, '');
  const year = date.getUTCFullYear();
  if (year >= 1950 && year < 2050) return tlv(Tag.UTC_TIME, Buffer.from(`${digits.slice(2)}Z`, 'latin1'));
  return tlv(Tag.GENERALIZED_TIME, Buffer.from(`${digits}Z`, 'latin1'));
}

/** `[n] EXPLICIT`: a constructed context tag wrapping one encoded value. */
export function explicit(n: number, inner: Buffer): Buffer {
  return tlv(0xa0 | n, inner);
}

/** `[n] IMPLICIT` of a primitive type: the content under a context tag. */
export function implicitPrimitive(n: number, content: Buffer): Buffer {
  return tlv(0x80 | n, content);
}

/** A TLV found in a buffer: `bytes` is the whole encoding, `content` its value. */
export interface Node {
  readonly tag: number;
  readonly bytes: Buffer;
  readonly content: Buffer;
}

/** Reads the TLV that starts at `offset`. Throws on truncated or non-DER lengths. */
export function readNode(buf: Buffer, offset = 0): Node {
  if (offset + 2 > buf.length) throw new Error('DER: truncated');
  const tag = buf[offset]!;
  if ((tag & 0x1f) === 0x1f) throw new Error('DER: multi-byte tags are not supported');
  let length = buf[offset + 1]!;
  let headerLength = 2;
  if (length & 0x80) {
    const count = length & 0x7f;
    if (count === 0 || count > 4) throw new Error('DER: unsupported length');
    if (offset + 2 + count > buf.length) throw new Error('DER: truncated');
    length = 0;
    for (let i = 0; i < count; i++) length = length * 256 + buf[offset + 2 + i]!;
    headerLength += count;
  }
  const end = offset + headerLength + length;
  if (end > buf.length) throw new Error('DER: truncated');
  return { tag, bytes: buf.subarray(offset, end), content: buf.subarray(offset + headerLength, end) };
}

/** The TLVs directly inside a constructed node. */
export function children(node: Node): Node[] {
  const out: Node[] = [];
  for (let offset = 0; offset < node.content.length; ) {
    const child = readNode(node.content, offset);
    out.push(child);
    offset += child.bytes.length;
  }
  return out;
}

export function expectTag(node: Node | undefined, tag: number, what: string): Node {
  if (!node || node.tag !== tag) throw new Error(`DER: expected ${what}`);
  return node;
}

export function decodeOid(node: Node): string {
  expectTag(node, Tag.OID, 'an object identifier');
  const arcs: number[] = [];
  let value = 0;
  for (const byte of node.content) {
    value = value * 128 + (byte & 0x7f);
    if (!(byte & 0x80)) {
      arcs.push(value);
      value = 0;
    }
  }
  const first = arcs.shift() ?? 0;
  const head = first < 80 ? [Math.floor(first / 40), first % 40] : [2, first - 80];
  return [...head, ...arcs].join('.');
}

/** Decodes the directory string types certificates use in names; null for other types. */
export function decodeString(node: Node): string | null {
  switch (node.tag) {
    case Tag.UTF8_STRING:
      return node.content.toString('utf8');
    case Tag.PRINTABLE_STRING:
    case Tag.IA5_STRING:
    case Tag.NUMERIC_STRING:
    case Tag.T61_STRING:
      return node.content.toString('latin1');
    case Tag.BMP_STRING: {
      const swapped = Buffer.from(node.content);
      return swapped.swap16().toString('utf16le');
    }
    default:
      return null;
  }
}
