/**
 * The Kubernetes protobuf envelope (`application/vnd.kubernetes.protobuf`): the magic bytes
 * `6b 38 73 00` followed by a `runtime.Unknown` whose `typeMeta` names the apiVersion and kind and
 * whose `raw` holds the object's message. The real server writes `contentEncoding` and
 * `contentType` as empty strings; so do we.
 */
import protobuf from 'protobufjs';
import { ApiError, badRequest } from '../../api/errors.ts';
import { messageForKind, splitApiVersion } from './kind-messages.ts';
import { encodeMessage, messageCodec, type Json } from './message-codec.ts';
import { hasMagic, setEmbeddedObjectDecoder } from './well-known.ts';
import { WIRE_LEN, WireError, WireReader } from './wire-reader.ts';

/** The magic prefix, read as a little-endian fixed32 so the writer can emit it in place. */
const MAGIC_FIXED32_LE = 0x0073386b;

/** How deep RawExtensions may nest enveloped objects (watch events hold one level). */
const MAX_EMBEDDING_DEPTH = 32;

export interface DecodedObject {
  readonly apiVersion: string;
  readonly kind: string;
  /** The JSON form, with `kind` and `apiVersion` set. */
  readonly object: Json;
}

export interface ProtobufDecodeOptions {
  /**
   * The type the endpoint expects. The real server fills an empty envelope apiVersion or kind from
   * it, and words decode errors around it (`the object provided is unrecognized (must be of type
   * ConfigMap): …`, `Secret in version "v1" cannot be handled as a ConfigMap: …`).
   */
  readonly expect?: { readonly apiVersion: string; readonly kind: string };
}

/** A failure once the envelope named a type: errors are then worded around that type. */
class TypedDecodeError extends Error {
  readonly apiVersion: string;
  readonly kind: string;

  constructor(message: string, apiVersion: string, kind: string) {
    super(message);
    this.name = 'TypedDecodeError';
    this.apiVersion = apiVersion;
    this.kind = kind;
  }
}

interface Envelope {
  apiVersion: string;
  kind: string;
  raw: Uint8Array | undefined;
}

function readTypeMeta(r: WireReader, end: number, into: Envelope): void {
  while (r.pos < end) {
    const tag = r.uint32(end);
    const id = tag >>> 3;
    const wt = tag & 7;
    if ((id === 1 || id === 2) && wt !== WIRE_LEN) throw new WireError(`proto: wrong wireType = ${wt} for field ${id === 1 ? 'APIVersion' : 'Kind'}`);
    if (id === 1) into.apiVersion = r.string(end);
    else if (id === 2) into.kind = r.string(end);
    else r.skip(wt, end, id);
  }
}

function readEnvelope(bytes: Uint8Array): Envelope {
  if (bytes.length === 0) throw new WireError('empty data');
  if (!hasMagic(bytes)) throw new WireError('provided data does not appear to be a protobuf message, expected prefix [107 56 115 0]');
  if (bytes.length === 4) throw new WireError('empty body');
  const r = new WireReader(bytes, 4);
  const end = bytes.length;
  const env: Envelope = { apiVersion: '', kind: '', raw: undefined };
  while (r.pos < end) {
    const tag = r.uint32(end);
    const id = tag >>> 3;
    const wt = tag & 7;
    if (id === 0) throw new WireError(`proto: Unknown: illegal tag 0 (wire type ${wt})`);
    if (id >= 1 && id <= 4 && wt !== WIRE_LEN) throw new WireError(`proto: wrong wireType = ${wt} for field ${['TypeMeta', 'Raw', 'ContentEncoding', 'ContentType'][id - 1]}`);
    if (id === 1) readTypeMeta(r, r.delimited(end), env);
    else if (id === 2) env.raw = r.bytes(end);
    else r.skip(wt, end, id); // contentEncoding and contentType are ignored, as upstream does
  }
  return env;
}

function goTypeMeta(env: Envelope): string {
  return `runtime.TypeMeta{APIVersion:${JSON.stringify(env.apiVersion)}, Kind:${JSON.stringify(env.kind)}}`;
}

let depth = 0;

/** Decodes an enveloped object; throws WireError (envelope unreadable) or TypedDecodeError. */
function decodeEnvelope(bytes: Uint8Array, expect?: ProtobufDecodeOptions['expect']): DecodedObject {
  const env = readEnvelope(bytes);
  if (expect) {
    // Upstream fills what the envelope leaves empty from the endpoint's type.
    if (env.kind === '') env.kind = expect.kind;
    if (splitApiVersion(env.apiVersion)[1] === '' && expect.apiVersion !== '') env.apiVersion = expect.apiVersion;
  }
  if (env.kind === '') throw new WireError(`Object 'Kind' is missing in '${goTypeMeta(env)}'`);
  if (splitApiVersion(env.apiVersion)[1] === '') throw new WireError(`Object 'apiVersion' is missing in '${goTypeMeta(env)}'`);
  const { apiVersion, kind } = env;
  const message = messageForKind(apiVersion, kind);
  if (!message) {
    throw new TypedDecodeError(
      `no kind ${JSON.stringify(kind)} is registered for version ${JSON.stringify(apiVersion)} in scheme "pkg/api/legacyscheme/scheme.go:30"`,
      apiVersion,
      kind,
    );
  }
  const codec = messageCodec(message);
  const object: Json = { kind, apiVersion };
  if (env.raw && env.raw.length > 0) {
    try {
      codec.decodeInto(new WireReader(env.raw), env.raw.length, object);
    } catch (err) {
      if (err instanceof WireError) throw new TypedDecodeError(err.message, apiVersion, kind);
      throw err;
    }
  }
  codec.applyTopLevelDefaults(object);
  // A decoded TypeMeta never comes from the message itself; keep the envelope's.
  object.kind = kind;
  object.apiVersion = apiVersion;
  return { apiVersion, kind, object };
}

setEmbeddedObjectDecoder((bytes) => {
  if (depth >= MAX_EMBEDDING_DEPTH) throw new WireError('protobuf: embedded objects nested too deeply');
  depth++;
  try {
    return decodeEnvelope(bytes).object;
  } catch (err) {
    if (err instanceof TypedDecodeError) throw new WireError(`embedded ${err.kind}: ${err.message}`);
    throw err;
  } finally {
    depth--;
  }
});

/** The real server quotes the first 30 bytes of an unreadable body: as text when it starts with `{`, else hex. */
function summarize(bytes: Uint8Array, max = 30): string {
  if (bytes.length === 0) return '<empty>';
  const head = Buffer.from(bytes.buffer, bytes.byteOffset, Math.min(bytes.length, max));
  const more = bytes.length > max ? ' ...' : '';
  return (bytes[0] === 0x7b ? head.toString('utf8') : head.toString('hex')) + more;
}

/**
 * Decodes an `application/vnd.kubernetes.protobuf` body into the JSON form of the object.
 *
 * Known kinds are the schema's kinds and their `<Kind>List`, the meta types under any apiVersion
 * (DeleteOptions, ListOptions, Status, WatchEvent …) and the other top-level types of the built-in
 * packages (Scale, Eviction, TokenRequest …).
 *
 * @throws ApiError 400 BadRequest for anything malformed: missing magic, truncated or corrupt
 *   bytes, an unknown kind, RawExtension bytes that are not JSON.
 * @example
 * const { kind, object } = decodeProtobufObject(body, { expect: { apiVersion: 'v1', kind: 'ConfigMap' } });
 */
export function decodeProtobufObject(bytes: Uint8Array, options: ProtobufDecodeOptions = {}): DecodedObject {
  const expect = options.expect;
  try {
    depth = 0;
    return decodeEnvelope(bytes, expect);
  } catch (err) {
    if (err instanceof TypedDecodeError) {
      if (!expect) throw badRequest(`unable to decode ${err.kind} (${err.apiVersion}) from protobuf: ${err.message}`);
      const version = splitApiVersion(err.apiVersion)[1];
      throw badRequest(`${err.kind} in version ${JSON.stringify(version)} cannot be handled as a ${expect.kind}: ${err.message}`);
    }
    if (err instanceof WireError || err instanceof RangeError) {
      // A RangeError here is a stack overflow from absurdly nested input.
      const why = err instanceof WireError ? err.message : 'protobuf body nested too deeply';
      if (!expect) throw badRequest(`unable to decode protobuf body: ${why}`);
      throw badRequest(`the object provided is unrecognized (must be of type ${expect.kind}): ${why} (${summarize(bytes)})`);
    }
    throw err;
  }
}

/** The 406 the real server answers when an object has no protobuf form (custom resources). */
function notMarshalable(object: Json): ApiError {
  const goType = Array.isArray(object.items) ? '*unstructured.UnstructuredList' : '*unstructured.Unstructured';
  return new ApiError(
    406,
    'NotAcceptable',
    `object ${goType} does not implement the protobuf marshalling interface and cannot be encoded to a protobuf message`,
  );
}

/**
 * Encodes the JSON form of an object (its `apiVersion` and `kind` pick the message) as an
 * `application/vnd.kubernetes.protobuf` body.
 *
 * @throws ApiError 406 NotAcceptable when the kind has no protobuf form (custom resources), as upstream.
 * @throws Error when the object has no apiVersion or kind (a programming error).
 */
export function encodeProtobufObject(object: Json): Uint8Array {
  const { apiVersion, kind } = object;
  if (typeof apiVersion !== 'string' || typeof kind !== 'string' || apiVersion === '' || kind === '') {
    throw new Error('encodeProtobufObject: the object needs apiVersion and kind');
  }
  const message = messageForKind(apiVersion, kind);
  if (!message) throw notMarshalable(object);
  const codec = messageCodec(message);
  const w = protobuf.Writer.create();
  w.fixed32(MAGIC_FIXED32_LE);
  w.uint32(0x0a).fork().uint32(0x0a).string(apiVersion).uint32(0x12).string(kind).ldelim();
  w.uint32(0x12).fork();
  codec.encode(object, w);
  w.ldelim();
  w.uint32(0x1a).string('').uint32(0x22).string('');
  return w.finish();
}

/** Whether objects of this apiVersion and kind have a protobuf form. */
export function supportsProtobuf(apiVersion: string, kind: string): boolean {
  return messageForKind(apiVersion, kind) !== undefined;
}

/** How a list is written in parts (see protobufListParts). */
export interface ProtobufListParts {
  /** One item as the list's `items` field (field 2: tag, length, message). */
  item(object: Json): Uint8Array;
  /** Everything before the items, once their total length is known. */
  head(itemsLength: number): Uint8Array;
  /** Everything after them. */
  tail(): Uint8Array;
}

/**
 * The bytes of `encodeProtobufObject(list)`, in parts, for a list written as it is read: the
 * envelope and the list's metadata, then the items one by one (a list message is its ListMeta,
 * field 1, then its items, field 2, in field order), then the envelope's last fields.
 *
 * @throws ApiError 406 NotAcceptable when the kind has no protobuf form.
 */
export function protobufListParts(apiVersion: string, listKind: string, itemKind: string, metadata: object): ProtobufListParts {
  const listMessage = messageForKind(apiVersion, listKind);
  const itemMessage = messageForKind(apiVersion, itemKind);
  if (!listMessage || !itemMessage) throw notMarshalable({ items: [] });
  const meta = encodeMessage(listMessage, { metadata } as Json);
  const itemCodec = messageCodec(itemMessage);
  return {
    item: (object) => {
      const w = protobuf.Writer.create();
      w.uint32(0x12).fork();
      itemCodec.encode(object, w);
      w.ldelim();
      return w.finish();
    },
    head: (itemsLength) => {
      const w = protobuf.Writer.create();
      w.fixed32(MAGIC_FIXED32_LE);
      w.uint32(0x0a).fork().uint32(0x0a).string(apiVersion).uint32(0x12).string(listKind).ldelim();
      w.uint32(0x12).uint32(meta.length + itemsLength);
      return Buffer.concat([w.finish(), meta]);
    },
    tail: () => protobuf.Writer.create().uint32(0x1a).string('').uint32(0x22).string('').finish(),
  };
}
