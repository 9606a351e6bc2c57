/**
 * apimachinery messages whose JSON form is not the JSON of their proto fields: Time, MicroTime,
 * Duration, Quantity, IntOrString, RawExtension, FieldsV1, and the string lists Verbs and ExtraValue.
 */
import type { Writer } from 'protobufjs';
import { formatGoDuration, parseGoDuration } from '../../api/go/duration.ts';
import { formatRfc3339, formatRfc3339Micro, normalizeTimestamp, parseRfc3339 } from './rfc3339.ts';
import { WIRE_LEN, WIRE_VARINT, WireError, type WireReader } from './wire-reader.ts';
import { stringifyJson } from '../deep-json.ts';
import { mayHaveEscapedSurrogate, replaceLoneSurrogatesDeep } from '../unicode.ts';

export interface WellKnownCodec {
  /**
   * The JSON value of the message bytes in `[r.pos, end)`, or undefined when the message is the
   * type's zero value and Go's JSON encoder would write `null` (Time, RawExtension …): such fields
   * are left out. Leaves `r.pos` at `end`.
   */
  decode(r: WireReader, end: number): unknown;
  /** The JSON value of an entry missing from a map (the Go zero value). */
  readonly missing: unknown;
  /** Writes the field (tag, length and body) for a JSON value; writes nothing for a value of the wrong shape. */
  write(w: Writer, tag: number, value: unknown): void;
  /** Whether a decoded value is the type's zero value (for fields that drop zeros). */
  isZero?(value: unknown): boolean;
  /** Whether a `null` list item is written (apiextensions' JSON: an enum may list null); others are skipped. */
  readonly writesNullItems?: boolean;
}

type EmbeddedDecoder = (bytes: Uint8Array) => unknown;

let embeddedDecoder: EmbeddedDecoder | undefined;

/**
 * Registers how RawExtension bytes that start with the protobuf magic are decoded (they hold a
 * whole enveloped object, as in watch events). Set once by the envelope module.
 */
export function setEmbeddedObjectDecoder(decoder: EmbeddedDecoder): void {
  embeddedDecoder = decoder;
}

const MAGIC = [0x6b, 0x38, 0x73, 0x00] as const;

/** Whether bytes start with the protobuf envelope magic `6b 38 73 00`. */
export function hasMagic(bytes: Uint8Array): boolean {
  return bytes.length >= 4 && bytes[0] === MAGIC[0] && bytes[1] === MAGIC[1] && bytes[2] === MAGIC[2] && bytes[3] === MAGIC[3];
}

const utf8 = new TextDecoder('utf-8');
const encoder = new TextEncoder();

function wrongWireType(wt: number, field: string): WireError {
  return new WireError(`proto: wrong wireType = ${wt} for field ${field}`);
}

/** Reads a Timestamp (seconds, nanos); undefined for the empty message Go writes for the zero time. */
function readTimestamp(r: WireReader, end: number): { seconds: number; nanos: number } | undefined {
  if (r.pos === end) return undefined;
  let seconds = 0;
  let nanos = 0;
  while (r.pos < end) {
    const tag = r.uint32(end);
    const id = tag >>> 3;
    const wt = tag & 7;
    if (id === 1 && wt === WIRE_VARINT) seconds = r.int64(end);
    else if (id === 2 && wt === WIRE_VARINT) nanos = r.int32(end);
    else if (id === 1 || id === 2) throw wrongWireType(wt, id === 1 ? 'Seconds' : 'Nanos');
    else r.skip(wt, end, id);
  }
  return normalizeTimestamp(seconds, nanos);
}

function writeTimestamp(w: Writer, tag: number, seconds: number, nanos: number): void {
  w.uint32(tag).fork().uint32(0x08).int64(seconds).uint32(0x10).int32(nanos).ldelim();
}

/** Reads the single bytes field 1 of RawExtension / FieldsV1. */
function readRaw(r: WireReader, end: number): Uint8Array | undefined {
  let raw: Uint8Array | undefined;
  while (r.pos < end) {
    const tag = r.uint32(end);
    const id = tag >>> 3;
    const wt = tag & 7;
    if (id === 1) {
      if (wt !== WIRE_LEN) throw wrongWireType(wt, 'Raw');
      raw = r.bytes(end);
    } else {
      r.skip(wt, end, id);
    }
  }
  return raw;
}

function parseEmbeddedJson(raw: Uint8Array, what: string): unknown {
  try {
    const text = utf8.decode(raw);
    const value: unknown = JSON.parse(text);
    // As a JSON body: a lone surrogate becomes U+FFFD; depth is bounded where the object is checked.
    return mayHaveEscapedSurrogate(text) ? replaceLoneSurrogatesDeep(value) : value;
  } catch (err) {
    throw new WireError(`${what} does not hold valid JSON: ${(err as Error).message}`);
  }
}

function writeRawJson(w: Writer, tag: number, value: unknown): void {
  w.uint32(tag).fork().uint32(0x0a).bytes(encoder.encode(stringifyJson(value))).ldelim();
}

function readSingleString(r: WireReader, end: number, field: string): string {
  let s = '';
  while (r.pos < end) {
    const tag = r.uint32(end);
    const id = tag >>> 3;
    const wt = tag & 7;
    if (id === 1) {
      if (wt !== WIRE_LEN) throw wrongWireType(wt, field);
      s = r.string(end);
    } else {
      r.skip(wt, end, id);
    }
  }
  return s;
}

const time: WellKnownCodec = {
  decode(r, end) {
    const ts = readTimestamp(r, end);
    return ts ? formatRfc3339(ts.seconds) : undefined;
  },
  missing: null,
  write(w, tag, value) {
    if (typeof value !== 'string') return;
    const ts = parseRfc3339(value);
    if (ts) writeTimestamp(w, tag, ts.seconds, ts.nanos);
  },
};

const microTime: WellKnownCodec = {
  decode(r, end) {
    const ts = readTimestamp(r, end);
    return ts ? formatRfc3339Micro(ts.seconds, Math.floor(ts.nanos / 1000)) : undefined;
  },
  missing: null,
  write(w, tag, value) {
    if (typeof value !== 'string') return;
    const ts = parseRfc3339(value);
    if (ts) writeTimestamp(w, tag, ts.seconds, ts.nanos - (ts.nanos % 1000));
  },
};

const duration: WellKnownCodec = {
  decode(r, end) {
    let ns = 0;
    while (r.pos < end) {
      const tag = r.uint32(end);
      const id = tag >>> 3;
      const wt = tag & 7;
      if (id === 1) {
        if (wt !== WIRE_VARINT) throw wrongWireType(wt, 'Duration');
        ns = r.int64(end);
      } else {
        r.skip(wt, end, id);
      }
    }
    return formatGoDuration(ns);
  },
  missing: '0s',
  write(w, tag, value) {
    const ns = typeof value === 'string' ? parseGoDuration(value) : undefined;
    if (ns !== undefined) w.uint32(tag).fork().uint32(0x08).int64(ns).ldelim();
  },
};

const quantity: WellKnownCodec = {
  decode(r, end) {
    return readSingleString(r, end, 'String_') || '0';
  },
  missing: '0',
  write(w, tag, value) {
    if (typeof value === 'number' && Number.isFinite(value)) value = String(value);
    if (typeof value === 'string') w.uint32(tag).fork().uint32(0x0a).string(value).ldelim();
  },
};

const intOrString: WellKnownCodec = {
  decode(r, end) {
    let type = 0;
    let intVal = 0;
    let strVal = '';
    while (r.pos < end) {
      const tag = r.uint32(end);
      const id = tag >>> 3;
      const wt = tag & 7;
      if (id === 1 && wt === WIRE_VARINT) type = r.int64(end);
      else if (id === 2 && wt === WIRE_VARINT) intVal = r.int32(end);
      else if (id === 3 && wt === WIRE_LEN) strVal = r.string(end);
      else if (id >= 1 && id <= 3) throw wrongWireType(wt, ['Type', 'IntVal', 'StrVal'][id - 1]!);
      else r.skip(wt, end, id);
    }
    return type === 1 ? strVal : intVal;
  },
  missing: 0,
  write(w, tag, value) {
    // Go writes all three fields of the struct.
    if (typeof value === 'number') {
      w.uint32(tag).fork().uint32(0x08).int64(0).uint32(0x10).int32(value).uint32(0x1a).string('').ldelim();
    } else if (typeof value === 'string') {
      w.uint32(tag).fork().uint32(0x08).int64(1).uint32(0x10).int32(0).uint32(0x1a).string(value).ldelim();
    }
  },
  isZero(value) {
    return value === 0;
  },
};

const rawExtension: WellKnownCodec = {
  decode(r, end) {
    const raw = readRaw(r, end);
    if (!raw || raw.length === 0) return undefined;
    if (hasMagic(raw)) {
      if (!embeddedDecoder) throw new WireError('RawExtension holds a protobuf object but no decoder is registered');
      return embeddedDecoder(raw);
    }
    return parseEmbeddedJson(raw, 'RawExtension');
  },
  missing: null,
  write: writeRawJson,
};

const fieldsV1: WellKnownCodec = {
  decode(r, end) {
    const raw = readRaw(r, end);
    return raw && raw.length > 0 ? parseEmbeddedJson(raw, 'FieldsV1') : undefined;
  },
  missing: null,
  write: writeRawJson,
};

const verbs: WellKnownCodec = {
  decode(r, end) {
    const items: string[] = [];
    while (r.pos < end) {
      const tag = r.uint32(end);
      const id = tag >>> 3;
      const wt = tag & 7;
      if (id === 1) {
        if (wt !== WIRE_LEN) throw wrongWireType(wt, 'Items');
        items.push(r.string(end));
      } else {
        r.skip(wt, end, id);
      }
    }
    return items;
  },
  missing: [],
  write(w, tag, value) {
    if (!Array.isArray(value)) return;
    w.uint32(tag).fork();
    for (const v of value) if (typeof v === 'string') w.uint32(0x0a).string(v);
    w.ldelim();
  },
};

/** `metav1.Patch` has no fields; its JSON is an empty object. */
const patch: WellKnownCodec = {
  decode(r, end) {
    r.pos = end;
    return {};
  },
  missing: {},
  write(w, tag, value) {
    if (value !== null && typeof value === 'object') w.uint32(tag).fork().ldelim();
  },
};

const META = 'k8s.io.apimachinery.pkg.apis.meta.v1';

/** Well-known codecs by full message name. */
export const WELL_KNOWN_CODECS: ReadonlyMap<string, WellKnownCodec> = new Map<string, WellKnownCodec>([
  [`${META}.Time`, time],
  [`${META}.MicroTime`, microTime],
  [`${META}.Duration`, duration],
  [`${META}.FieldsV1`, fieldsV1],
  [`${META}.Patch`, patch],
  [`${META}.Verbs`, verbs],
  ['k8s.io.apimachinery.pkg.api.resource.Quantity', quantity],
  ['k8s.io.apimachinery.pkg.api.resource.QuantityValue', quantity],
  ['k8s.io.apimachinery.pkg.util.intstr.IntOrString', intOrString],
  ['k8s.io.apimachinery.pkg.runtime.RawExtension', rawExtension],
  // `type ExtraValue []string`: a message on the wire, a plain list of strings in JSON (user extras).
  ...['authentication.v1', 'authentication.v1beta1', 'authorization.v1', 'authorization.v1beta1', 'certificates.v1', 'certificates.v1beta1'].map(
    (gv): [string, WellKnownCodec] => [`k8s.io.api.${gv}.ExtraValue`, verbs],
  ),
]);

