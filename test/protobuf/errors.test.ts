import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { ApiError } from '../../src/api/errors.ts';
import { decodeProtobufObject, encodeProtobufObject } from '../../src/codecs/protobuf/index.ts';
import { assertBadRequest, concat, configMap, envelope, goEncode, MAGIC } from './helpers.ts';

const expect = { apiVersion: 'v1', kind: 'ConfigMap' } as const;

describe('protobuf decode errors are 400 BadRequest', () => {
  test('a body without the magic prefix', () => {
    const body = Buffer.from('{"kind":"ConfigMap","apiVersion":"v1"}');
    assertBadRequest(
      () => decodeProtobufObject(body, { expect }),
      'the object provided is unrecognized (must be of type ConfigMap): provided data does not appear to be a protobuf message, expected prefix [107 56 115 0] ({"kind":"ConfigMap","apiVersio ...)',
    );
    assertBadRequest(() => decodeProtobufObject(body), /does not appear to be a protobuf message/);
  });

  test('an empty body and a body that is only the magic', () => {
    assertBadRequest(() => decodeProtobufObject(new Uint8Array()), /empty data/);
    assertBadRequest(() => decodeProtobufObject(MAGIC), /empty body/);
  });

  test('a truncated envelope', () => {
    const bytes = encodeProtobufObject(configMap('x', { data: { a: 'b' } }));
    // Cutting at a field boundary leaves a valid (shorter) message, so cut inside typeMeta and raw.
    const typeMetaEnd = 4 + 2 + bytes[5]!;
    const rawEnd = bytes.length - 4;
    const cuts = [];
    for (let cut = 5; cut < typeMetaEnd; cut++) cuts.push(cut);
    for (let cut = typeMetaEnd + 1; cut < rawEnd; cut++) cuts.push(cut);
    for (const cut of cuts) {
      assertBadRequest(() => decodeProtobufObject(bytes.subarray(0, cut), { expect }), /^the object provided is unrecognized \(must be of type ConfigMap\): unexpected EOF \(6b387300/);
    }
  });

  test('a truncated object inside a whole envelope is worded around the named kind', () => {
    const raw = goEncode('k8s.io.api.core.v1.ConfigMap', { metadata: { name: 'x' }, data: { a: 'b' } });
    const body = envelope('v1', 'ConfigMap', raw.subarray(0, raw.length - 2));
    assertBadRequest(() => decodeProtobufObject(body, { expect }), 'ConfigMap in version "v1" cannot be handled as a ConfigMap: unexpected EOF');
    assertBadRequest(() => decodeProtobufObject(body), 'unable to decode ConfigMap (v1) from protobuf: unexpected EOF');
  });

  test('an unknown kind', () => {
    assertBadRequest(
      () => decodeProtobufObject(envelope('v1', 'Widget', new Uint8Array()), { expect }),
      'Widget in version "v1" cannot be handled as a ConfigMap: no kind "Widget" is registered for version "v1" in scheme "pkg/api/legacyscheme/scheme.go:30"',
    );
    assertBadRequest(() => decodeProtobufObject(envelope('example.com/v1', 'Widget', new Uint8Array())), /no kind "Widget" is registered for version "example.com\/v1"/);
  });

  test('a missing kind without an expected type', () => {
    assertBadRequest(() => decodeProtobufObject(envelope('v1', '', new Uint8Array())), /Object 'Kind' is missing in 'runtime.TypeMeta\{APIVersion:"v1", Kind:""\}'/);
  });

  test('a field with the wrong wire type', () => {
    // ConfigMap.metadata (field 1) sent as a varint.
    assertBadRequest(() => decodeProtobufObject(envelope('v1', 'ConfigMap', Uint8Array.from([0x08, 0x01]))), /wrong wireType = 0 for field metadata of ConfigMap/);
  });

  test('a RawExtension that is not JSON', () => {
    const data = concat(Uint8Array.from([0x0a, 0x03]), Buffer.from('{x:'));
    const raw = concat(Uint8Array.from([0x12, data.length]), data); // ControllerRevision.data = 2
    assertBadRequest(() => decodeProtobufObject(envelope('apps/v1', 'ControllerRevision', raw)), /RawExtension does not hold valid JSON/);
  });

  test('random and mutated bodies never escape as anything but a 400', () => {
    const valid = encodeProtobufObject({
      kind: 'Pod',
      apiVersion: 'v1',
      metadata: { name: 'p', labels: { a: 'b' }, creationTimestamp: '2024-01-02T03:04:05Z' },
      spec: { containers: [{ name: 'c', image: 'i', ports: [{ containerPort: 80 }], livenessProbe: { httpGet: { port: 'http' } } }] },
    });
    let seed = 42;
    const rand = (n: number) => {
      seed = (seed * 1103515245 + 12345) & 0x7fffffff;
      return seed % n;
    };
    for (let i = 0; i < 3000; i++) {
      const body = Uint8Array.from(valid);
      const flips = 1 + rand(4);
      for (let f = 0; f < flips; f++) body[4 + rand(body.length - 4)] = rand(256);
      const cut = rand(4) === 0 ? body.subarray(0, 4 + rand(body.length - 4)) : body;
      try {
        decodeProtobufObject(cut);
      } catch (err) {
        assert.ok(err instanceof ApiError && err.code === 400, `mutation ${i} threw ${String(err)}`);
      }
    }
  });

  test('encoding a kind without a protobuf form is 406 NotAcceptable', () => {
    assert.throws(
      () => encodeProtobufObject({ apiVersion: 'example.com/v1', kind: 'Widget', metadata: { name: 'w' } }),
      (err: unknown) => err instanceof ApiError && err.code === 406 && /\*unstructured\.Unstructured does not implement the protobuf marshalling interface/.test(err.message),
    );
  });
});
