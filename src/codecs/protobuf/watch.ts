/**
 * Protobuf watch streams (`application/vnd.kubernetes.protobuf;stream=watch`), framed the way
 * client-go reads them:
 *
 *   frame   = length (4 bytes, big-endian uint32) + payload
 *   payload = a `meta.v1.WatchEvent` message, *without* the envelope (the stream serializer is the
 *             raw protobuf one): field 1 `type` ("ADDED" …), field 2 `object`, a RawExtension whose
 *             `raw` holds the object *with* the envelope (magic + runtime.Unknown).
 */
import { badRequest } from '../../api/errors.ts';
import { decodeProtobufObject, encodeProtobufObject } from './envelope.ts';
import type { Json } from './message-codec.ts';
import { WIRE_LEN, WireError, WireReader } from './wire-reader.ts';

const encoder = new TextEncoder();

function varintSize(n: number): number {
  let size = 1;
  while (n >= 0x80) {
    n = Math.floor(n / 128);
    size++;
  }
  return size;
}

function putVarint(out: Uint8Array, pos: number, n: number): number {
  while (n >= 0x80) {
    out[pos++] = (n & 0x7f) | 0x80;
    n = Math.floor(n / 128);
  }
  out[pos++] = n;
  return pos;
}

/**
 * One watch frame around an object that is already envelope-encoded, so a watch hub can encode
 * each object once and frame it for every watcher.
 *
 * @example
 * const envelope = encodeProtobufObject(configMap);
 * for (const w of watchers) w.write(frameProtobufWatchEvent('ADDED', envelope));
 */
export function frameProtobufWatchEvent(type: string, objectEnvelope: Uint8Array): Uint8Array {
  const typeBytes = encoder.encode(type);
  const rawLen = objectEnvelope.length;
  const extensionLen = 1 + varintSize(rawLen) + rawLen;
  const eventLen = 1 + varintSize(typeBytes.length) + typeBytes.length + 1 + varintSize(extensionLen) + extensionLen;
  const out = new Uint8Array(4 + eventLen);
  new DataView(out.buffer).setUint32(0, eventLen, false);
  let pos = 4;
  out[pos++] = 0x0a; // WatchEvent.type
  pos = putVarint(out, pos, typeBytes.length);
  out.set(typeBytes, pos);
  pos += typeBytes.length;
  out[pos++] = 0x12; // WatchEvent.object
  pos = putVarint(out, pos, extensionLen);
  out[pos++] = 0x0a; // RawExtension.raw
  pos = putVarint(out, pos, rawLen);
  out.set(objectEnvelope, pos);
  return out;
}

/**
 * One frame of a protobuf watch stream: `type` is `ADDED`, `MODIFIED`, `DELETED`, `BOOKMARK` or
 * `ERROR` (whose object is a Status).
 *
 * @throws ApiError 406 when the object's kind has no protobuf form.
 */
export function encodeProtobufWatchEvent(type: string, object: Json): Uint8Array {
  return frameProtobufWatchEvent(type, encodeProtobufObject(object));
}

export interface DecodedWatchEvent {
  readonly type: string;
  readonly object: Json;
}

/**
 * Reads every complete frame of a protobuf watch stream (for tests and clients of this server).
 *
 * @throws ApiError 400 for malformed frames; a trailing partial frame is an error too.
 */
export function decodeProtobufWatchFrames(stream: Uint8Array): DecodedWatchEvent[] {
  const events: DecodedWatchEvent[] = [];
  const view = new DataView(stream.buffer, stream.byteOffset, stream.byteLength);
  let pos = 0;
  try {
    while (pos < stream.length) {
      if (pos + 4 > stream.length) throw new WireError('unexpected EOF');
      const len = view.getUint32(pos, false);
      const end = pos + 4 + len;
      if (end > stream.length) throw new WireError('unexpected EOF');
      const r = new WireReader(stream, pos + 4);
      let type = '';
      let raw: Uint8Array | undefined;
      while (r.pos < end) {
        const tag = r.uint32(end);
        const id = tag >>> 3;
        const wt = tag & 7;
        if (id === 1 && wt === WIRE_LEN) type = r.string(end);
        else if (id === 2 && wt === WIRE_LEN) raw = readRawExtension(r, r.delimited(end));
        else r.skip(wt, end, id);
      }
      if (!raw) throw new WireError('watch event without an object');
      events.push({ type, object: decodeProtobufObject(raw).object });
      pos = end;
    }
  } catch (err) {
    if (err instanceof WireError) throw badRequest(`unable to decode protobuf watch stream: ${err.message}`);
    throw err;
  }
  return events;
}

function readRawExtension(r: WireReader, end: number): Uint8Array | undefined {
  let raw: Uint8Array | undefined;
  while (r.pos < end) {
    const tag = r.uint32(end);
    if (tag >>> 3 === 1 && (tag & 7) === WIRE_LEN) raw = r.bytes(end);
    else r.skip(tag & 7, end, tag >>> 3);
  }
  return raw;
}
