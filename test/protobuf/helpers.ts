/** Shared helpers for the protobuf codec tests: an independent protobufjs view of the wire, and fixtures. */
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import protobuf from 'protobufjs';
import { ApiError } from '../../src/api/errors.ts';
import { decodeProtobufObject, encodeProtobufObject } from '../../src/codecs/protobuf/index.ts';

type Json = Record<string, unknown>;

export const MAGIC = Uint8Array.from([0x6b, 0x38, 0x73, 0x00]);

let root: protobuf.Root | undefined;

/** The protobufjs descriptor of every Kubernetes message: a second, independent reading of the wire. */
export function pbType(name: string): protobuf.Type {
  root ??= protobuf.Root.fromJSON(JSON.parse(readFileSync(new URL('../../proto/k8s.json', import.meta.url), 'utf8')));
  return root.lookupType(name);
}

/** Encodes with protobufjs the way Go does: every value listed is written, zero values included. */
export function goEncode(name: string, value: Json): Uint8Array {
  const type = pbType(name);
  return type.encode(type.fromObject(value)).finish();
}

/** Wraps raw message bytes in the envelope, as the Go serializer does. */
export function envelope(apiVersion: string, kind: string, raw: Uint8Array): Uint8Array {
  const unknown = goEncode('k8s.io.apimachinery.pkg.runtime.Unknown', {
    typeMeta: { apiVersion, kind },
    raw,
    contentEncoding: '',
    contentType: '',
  });
  return concat(MAGIC, unknown);
}

export function concat(...parts: Uint8Array[]): Uint8Array {
  return Uint8Array.from(Buffer.concat(parts));
}

export function hex(bytes: Uint8Array): string {
  return Buffer.from(bytes).toString('hex');
}

/** JSON → protobuf → JSON. */
export function roundTrip(object: Json): Json {
  return decodeProtobufObject(encodeProtobufObject(object)).object;
}

/** Asserts that the object survives JSON → protobuf → JSON unchanged. */
export function assertRoundTrip(object: Json): void {
  assert.deepEqual(roundTrip(object), object);
}

/** Asserts that decoding fails with a 400 BadRequest whose message matches. */
export function assertBadRequest(fn: () => unknown, message: RegExp | string): void {
  assert.throws(fn, (err: unknown) => {
    assert.ok(err instanceof ApiError, `expected an ApiError, got ${String(err)}`);
    assert.equal(err.code, 400);
    assert.equal(err.reason, 'BadRequest');
    if (typeof message === 'string') assert.equal(err.message, message);
    else assert.match(err.message, message);
    return true;
  });
}

export function meta(name: string, extra: Json = {}): Json {
  return { name, namespace: 'default', ...extra };
}

export function configMap(name: string, extra: Json = {}): Json {
  return { kind: 'ConfigMap', apiVersion: 'v1', metadata: meta(name), ...extra };
}
