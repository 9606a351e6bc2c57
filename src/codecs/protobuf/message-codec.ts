/**
 * Per-message converters between protobuf wire bytes and the JSON form of Kubernetes objects,
 * compiled once from the generated schema and cached by message name.
 *
 * The JSON form follows the upstream JSON conventions: inline-embedded structs are flattened into
 * their parent, well-known types use their own JSON (see well-known.ts), `bytes` are base64,
 * int64 are JSON numbers, maps are objects and repeated fields arrays. Unset fields are left out;
 * empty lists and maps never appear on the wire, so they are left out too. Zero values Go writes
 * for non-pointer fields are handled as zero-values.ts explains.
 */
import protobuf from 'protobufjs';
import type { Writer } from 'protobufjs';
import { getMessage, type FieldSchema } from '../../schema/generated/index.ts';
import { JSON_SCHEMA_PROPS, schemaUnionCodecs } from './json-schema-unions.ts';
import { WELL_KNOWN_CODECS, type WellKnownCodec } from './well-known.ts';
import { WIRE_FIXED64, WIRE_LEN, WIRE_VARINT, WireError, WireReader } from './wire-reader.ts';
import { dropsZero, keepsEmptyString } from './zero-values.ts';

export type Json = Record<string, unknown>;

// Value kinds of a field (plain numbers: `const enum` does not survive isolated modules).
const K_STRING = 0;
const K_BYTES = 1;
const K_BOOL = 2;
const K_INT32 = 3;
const K_INT64 = 4;
const K_MESSAGE = 5;
const K_WELL_KNOWN = 6;
const K_MAP = 7;
const K_DOUBLE = 8;

const SCALAR_KINDS: Readonly<Record<string, number>> = {
  string: K_STRING,
  bytes: K_BYTES,
  bool: K_BOOL,
  int32: K_INT32,
  int64: K_INT64,
  double: K_DOUBLE,
};

interface FieldPlan {
  /** JSON (= proto) name. */
  readonly name: string;
  readonly id: number;
  readonly kind: number;
  readonly repeated: boolean;
  readonly inline: boolean;
  /** Tag for length-delimited values (strings, bytes, messages, packed lists). */
  readonly lenTag: number;
  /** Tag for varint values. */
  readonly varintTag: number;
  /** Tag for 64-bit values (doubles). */
  readonly fixed64Tag: number;
  /** Leave the field out of the JSON when the wire holds its zero value. */
  readonly dropZero: boolean;
  readonly message: MessageCodec | undefined;
  readonly wellKnown: WellKnownCodec | undefined;
  /** For map fields: the plan of the entry's value (field 2). */
  readonly mapValue: FieldPlan | undefined;
}

/** Marks "no value read" (distinct from a decoded `undefined`, which means "leave out"). */
const NOTHING: unique symbol = Symbol('nothing');

const OBJECT_META = 'k8s.io.apimachinery.pkg.apis.meta.v1.ObjectMeta';
const LIST_META = 'k8s.io.apimachinery.pkg.apis.meta.v1.ListMeta';

const codecs = new Map<string, MessageCodec>();

/**
 * The converter of a message (`k8s.io.api.core.v1.ConfigMap`), compiled on first use.
 * Throws for a name the schema does not know (a programming error).
 */
export function messageCodec(name: string): MessageCodec {
  let codec = codecs.get(name);
  if (!codec) {
    const schema = getMessage(name);
    if (!schema) throw new Error(`protobuf: unknown message ${name}`);
    codec = new MessageCodec(name, schema.typeMeta === true);
    // Cache before compiling so recursive message types resolve to this instance.
    codecs.set(name, codec);
    try {
      codec.compile(schema.fields);
    } catch (err) {
      codecs.delete(name);
      throw err;
    }
  }
  return codec;
}

export class MessageCodec {
  readonly name: string;
  /** Short name for error messages, as Go prints it (`ConfigMap`). */
  readonly goName: string;
  readonly #typeMeta: boolean;
  #fields: FieldPlan[] = [];
  #byId: (FieldPlan | undefined)[] = [];
  #defaultMetadata = false;
  #defaultItems = false;

  constructor(name: string, typeMeta: boolean) {
    this.name = name;
    this.goName = name.slice(name.lastIndexOf('.') + 1);
    this.#typeMeta = typeMeta;
  }

  /** @internal Builds the field plans; called once by `messageCodec`. */
  compile(fields: Readonly<Record<string, FieldSchema>>): void {
    const plans: FieldPlan[] = [];
    for (const [name, field] of Object.entries(fields)) plans.push(this.#plan(name, field));
    plans.sort((a, b) => a.id - b.id);
    const byId: (FieldPlan | undefined)[] = [];
    for (const p of plans) byId[p.id] = p;
    this.#fields = plans;
    this.#byId = byId;
    const metadata = fields.metadata;
    const items = fields.items;
    this.#defaultMetadata = this.#typeMeta && (metadata?.type === OBJECT_META || metadata?.type === LIST_META);
    this.#defaultItems = metadata?.type === LIST_META && items?.repeated === true;
  }

  #plan(name: string, field: FieldSchema): FieldPlan {
    if (field.keyType !== undefined) {
      if (field.keyType !== 'string') throw new Error(`protobuf: ${this.name}.${name}: map keys of type ${field.keyType} are not supported`);
      return plan(name, field.id, K_MAP, { mapValue: valuePlan('value', 2, field.type) });
    }
    let dropZero: boolean;
    if (field.type === 'string') dropZero = field.required !== true && !keepsEmptyString(this.name, name);
    else if (field.type === 'bytes') dropZero = field.required !== true;
    else dropZero = dropsZero(this.name, name);
    return valuePlan(name, field.id, field.type, { repeated: field.repeated === true, inline: field.inline === true, dropZero });
  }

  /**
   * Decodes the message bytes in `[r.pos, end)` into `target` (inline-embedded messages decode
   * into the same object).
   */
  decodeInto(r: WireReader, end: number, target: Json): void {
    const byId = this.#byId;
    while (r.pos < end) {
      const tag = r.uint32(end);
      const id = tag >>> 3;
      const wt = tag & 7;
      const f = byId[id];
      if (f === undefined) {
        if (id === 0) throw new WireError(`proto: ${this.goName}: illegal tag 0 (wire type ${wt})`);
        r.skip(wt, end, id);
        continue;
      }
      if (f.kind === K_MAP) {
        this.#decodeMapEntry(f, f.mapValue!, r, end, wt, target);
      } else if (f.repeated) {
        this.#decodeRepeated(f, r, end, wt, target);
      } else if (f.kind === K_MESSAGE) {
        if (wt !== WIRE_LEN) throw this.#wrongWireType(wt, f);
        const stop = r.delimited(end);
        if (f.inline) {
          f.message!.decodeInto(r, stop, target);
        } else {
          // A message field seen twice merges, as protobuf requires.
          const prev = target[f.name];
          const obj = prev !== null && typeof prev === 'object' && !Array.isArray(prev) ? (prev as Json) : {};
          f.message!.decodeInto(r, stop, obj);
          target[f.name] = obj;
        }
      } else {
        const value = this.#readValue(f, r, end, wt);
        if (value === undefined || (f.dropZero && isZero(f, value))) {
          if (Object.hasOwn(target, f.name)) delete target[f.name];
        } else {
          target[f.name] = value;
        }
      }
    }
  }

  /** Defaults the real server's JSON always has at the top level: `metadata: {}`, and `items: []` on lists. */
  applyTopLevelDefaults(target: Json): void {
    if (this.#defaultMetadata && target.metadata === undefined) target.metadata = {};
    if (this.#defaultItems && target.items === undefined) target.items = [];
  }

  #readValue(f: FieldPlan, r: WireReader, end: number, wt: number): unknown {
    switch (f.kind) {
      case K_STRING:
        if (wt !== WIRE_LEN) throw this.#wrongWireType(wt, f);
        return r.string(end);
      case K_BYTES: {
        if (wt !== WIRE_LEN) throw this.#wrongWireType(wt, f);
        const b = r.bytes(end);
        return Buffer.from(b.buffer, b.byteOffset, b.byteLength).toString('base64');
      }
      case K_BOOL:
        if (wt !== WIRE_VARINT) throw this.#wrongWireType(wt, f);
        return r.bool(end);
      case K_INT32:
        if (wt !== WIRE_VARINT) throw this.#wrongWireType(wt, f);
        return r.int32(end);
      case K_INT64:
        if (wt !== WIRE_VARINT) throw this.#wrongWireType(wt, f);
        return r.int64(end);
      case K_DOUBLE:
        if (wt !== WIRE_FIXED64) throw this.#wrongWireType(wt, f);
        return r.double(end);
      case K_MESSAGE: {
        if (wt !== WIRE_LEN) throw this.#wrongWireType(wt, f);
        const stop = r.delimited(end);
        const obj: Json = {};
        f.message!.decodeInto(r, stop, obj);
        return obj;
      }
      default: {
        if (wt !== WIRE_LEN) throw this.#wrongWireType(wt, f);
        const stop = r.delimited(end);
        return f.wellKnown!.decode(r, stop);
      }
    }
  }

  #decodeRepeated(f: FieldPlan, r: WireReader, end: number, wt: number, target: Json): void {
    let list = target[f.name] as unknown[] | undefined;
    if (!Array.isArray(list)) target[f.name] = list = [];
    if (wt === WIRE_LEN && (f.kind === K_BOOL || f.kind === K_INT32 || f.kind === K_INT64 || f.kind === K_DOUBLE)) {
      // Packed encoding: accepted as protobuf decoders must, though Go writes proto2 lists unpacked.
      const stop = r.delimited(end);
      while (r.pos < stop) list.push(this.#readValue(f, r, stop, f.kind === K_DOUBLE ? WIRE_FIXED64 : WIRE_VARINT));
      return;
    }
    const value = this.#readValue(f, r, end, wt);
    list.push(value === undefined ? (f.wellKnown?.missing ?? null) : value);
  }

  #decodeMapEntry(f: FieldPlan, v: FieldPlan, r: WireReader, end: number, wt: number, target: Json): void {
    if (wt !== WIRE_LEN) throw this.#wrongWireType(wt, f);
    const stop = r.delimited(end);
    let key = '';
    let value: unknown = NOTHING;
    while (r.pos < stop) {
      const tag = r.uint32(stop);
      const id = tag >>> 3;
      const ewt = tag & 7;
      if (id === 1) {
        if (ewt !== WIRE_LEN) throw this.#wrongWireType(ewt, f);
        key = r.string(stop);
      } else if (id === 2) {
        value = this.#readValue(v, r, stop, ewt);
      } else {
        r.skip(ewt, stop, id);
      }
    }
    if (value === NOTHING || value === undefined) value = zeroValue(v);
    let map = target[f.name] as Json | undefined;
    if (map === null || typeof map !== 'object' || Array.isArray(map)) target[f.name] = map = {};
    setKey(map, key, value);
  }

  #wrongWireType(wt: number, f: FieldPlan): WireError {
    return new WireError(`proto: wrong wireType = ${wt} for field ${f.name} of ${this.goName}`);
  }

  /** Writes the fields of a JSON object (no tag or length of its own). Values of the wrong shape are skipped. */
  encode(json: Json, w: Writer): void {
    for (const f of this.#fields) {
      if (f.inline) {
        w.uint32(f.lenTag).fork();
        f.message!.encode(json, w);
        w.ldelim();
        continue;
      }
      const value = json[f.name];
      if (value === undefined || value === null) continue;
      if (f.kind === K_MAP) {
        if (typeof value === 'object' && !Array.isArray(value)) writeMap(f, f.mapValue!, value as Json, w);
      } else if (f.repeated) {
        if (Array.isArray(value)) {
          for (const item of value) {
            if (item !== null && item !== undefined) writeValue(f, item, w);
            else if (item === null && f.wellKnown?.writesNullItems) f.wellKnown.write(w, f.lenTag, null);
          }
        }
      } else {
        writeValue(f, value, w);
      }
    }
  }
}

type PlanOptions = Partial<Pick<FieldPlan, 'repeated' | 'inline' | 'dropZero' | 'message' | 'wellKnown' | 'mapValue'>>;

function plan(name: string, id: number, kind: number, options: PlanOptions = {}): FieldPlan {
  return {
    name,
    id,
    kind,
    repeated: options.repeated ?? false,
    inline: options.inline ?? false,
    lenTag: ((id << 3) | WIRE_LEN) >>> 0,
    varintTag: ((id << 3) | WIRE_VARINT) >>> 0,
    fixed64Tag: ((id << 3) | WIRE_FIXED64) >>> 0,
    dropZero: options.dropZero ?? false,
    message: options.message,
    wellKnown: options.wellKnown,
    mapValue: options.mapValue,
  };
}

/** apiextensions' JSON and JSON Schema unions (their schemas are JSONSchemaProps, compiled on first use). */
const SCHEMA_UNION_CODECS = schemaUnionCodecs(() => messageCodec(JSON_SCHEMA_PROPS));

/** The plan of a field holding values of a proto type (scalar, well-known or message). */
function valuePlan(name: string, id: number, type: string, options: PlanOptions = {}): FieldPlan {
  if (Object.hasOwn(SCALAR_KINDS, type)) return plan(name, id, SCALAR_KINDS[type]!, options);
  const wellKnown = WELL_KNOWN_CODECS.get(type) ?? SCHEMA_UNION_CODECS.get(type);
  if (wellKnown) return plan(name, id, K_WELL_KNOWN, { ...options, wellKnown });
  return plan(name, id, K_MESSAGE, { ...options, message: messageCodec(type) });
}

function isZero(f: FieldPlan, value: unknown): boolean {
  if (value === '' || value === 0 || value === false) return true;
  return f.wellKnown?.isZero?.(value) === true;
}

function zeroValue(f: FieldPlan): unknown {
  switch (f.kind) {
    case K_STRING:
    case K_BYTES:
      return '';
    case K_BOOL:
      return false;
    case K_INT32:
    case K_INT64:
    case K_DOUBLE:
      return 0;
    case K_MESSAGE:
      return {};
    default:
      return f.wellKnown!.missing;
  }
}

/** Sets a map entry; `__proto__` is an ordinary key in JSON and must stay one. */
function setKey(map: Json, key: string, value: unknown): void {
  if (key === '__proto__') Object.defineProperty(map, key, { value, enumerable: true, writable: true, configurable: true });
  else map[key] = value;
}

function toInteger(value: unknown): number | undefined {
  if (typeof value === 'number') return Number.isFinite(value) ? value : undefined;
  if (typeof value === 'string' && /^-?\d+$/.test(value)) return Number(value);
  return undefined;
}

function writeValue(f: FieldPlan, value: unknown, w: Writer): void {
  switch (f.kind) {
    case K_STRING:
      if (typeof value === 'string') w.uint32(f.lenTag).string(value);
      return;
    case K_BYTES:
      if (typeof value === 'string') w.uint32(f.lenTag).bytes(Buffer.from(value, 'base64'));
      return;
    case K_BOOL:
      if (typeof value === 'boolean') w.uint32(f.varintTag).bool(value);
      return;
    case K_INT32: {
      const n = toInteger(value);
      if (n !== undefined) w.uint32(f.varintTag).int32(n);
      return;
    }
    case K_INT64: {
      const n = toInteger(value);
      if (n !== undefined) w.uint32(f.varintTag).int64(n);
      return;
    }
    case K_DOUBLE:
      if (typeof value === 'number' && Number.isFinite(value)) w.uint32(f.fixed64Tag).double(value);
      return;
    case K_MESSAGE:
      if (typeof value === 'object' && value !== null && !Array.isArray(value)) {
        w.uint32(f.lenTag).fork();
        f.message!.encode(value as Json, w);
        w.ldelim();
      }
      return;
    default:
      f.wellKnown!.write(w, f.lenTag, value);
  }
}

function writeMap(f: FieldPlan, v: FieldPlan, map: Json, w: Writer): void {
  // Go writes map entries sorted by key; so do we, for stable bytes.
  const keys = Object.keys(map).sort();
  for (const key of keys) {
    const value = map[key];
    w.uint32(f.lenTag).fork().uint32(0x0a).string(key);
    if (value !== undefined && value !== null) writeValue(v, value, w);
    w.ldelim();
  }
}

/** Decodes a whole message from bytes (no envelope) into its JSON form. */
export function decodeMessage(name: string, bytes: Uint8Array): Json {
  const codec = messageCodec(name);
  const out: Json = {};
  codec.decodeInto(new WireReader(bytes), bytes.length, out);
  return out;
}

/** Encodes the JSON form of a message (no envelope). */
export function encodeMessage(name: string, json: Json): Uint8Array {
  const w = protobuf.Writer.create();
  messageCodec(name).encode(json, w);
  return w.finish();
}
