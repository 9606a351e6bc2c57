import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import {
  decodeProtobufObject,
  decodeProtobufWatchFrames,
  encodeProtobufObject,
  encodeProtobufWatchEvent,
  frameProtobufWatchEvent,
} from '../../src/codecs/protobuf/index.ts';
import { assertBadRequest, concat, configMap, envelope, goEncode, MAGIC, pbType } from './helpers.ts';

describe('protobuf watch frames', () => {
  test('a frame is a 4-byte big-endian length, then a raw WatchEvent (no envelope)', () => {
    const cm = configMap('x', { data: { a: 'b' } });
    const frame = encodeProtobufWatchEvent('ADDED', cm);
    const length = new DataView(frame.buffer, frame.byteOffset).getUint32(0, false);
    assert.equal(length, frame.length - 4);
    const payload = frame.subarray(4);
    assert.notDeepEqual(Uint8Array.from(payload.subarray(0, 4)), MAGIC, 'the stream serializer writes WatchEvent without the magic');

    const WatchEvent = pbType('k8s.io.apimachinery.pkg.apis.meta.v1.WatchEvent');
    const event = WatchEvent.decode(payload) as unknown as { type: string; object: { raw: Uint8Array } };
    assert.equal(event.type, 'ADDED');
    assert.deepEqual(Uint8Array.from(event.object.raw.subarray(0, 4)), MAGIC, 'the embedded object carries the envelope');
    assert.deepEqual(Uint8Array.from(event.object.raw), Uint8Array.from(encodeProtobufObject(cm)));
    assert.deepEqual(decodeProtobufObject(event.object.raw).object, cm);
  });

  test('frames concatenate into a stream that reads back event by event', () => {
    const a = configMap('a');
    const b = configMap('b', { metadata: { name: 'b', namespace: 'default', resourceVersion: '8' } });
    const status = { kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Failure', message: 'too old resource version: 1 (8)', reason: 'Expired', code: 410 };
    const stream = concat(
      encodeProtobufWatchEvent('ADDED', a),
      frameProtobufWatchEvent('MODIFIED', encodeProtobufObject(b)),
      encodeProtobufWatchEvent('BOOKMARK', { kind: 'ConfigMap', apiVersion: 'v1', metadata: { resourceVersion: '9', annotations: { 'k8s.io/initial-events-end': 'true' } } }),
      encodeProtobufWatchEvent('ERROR', status),
    );
    assert.deepEqual(decodeProtobufWatchFrames(stream), [
      { type: 'ADDED', object: a },
      { type: 'MODIFIED', object: b },
      { type: 'BOOKMARK', object: { kind: 'ConfigMap', apiVersion: 'v1', metadata: { resourceVersion: '9', annotations: { 'k8s.io/initial-events-end': 'true' } } } },
      { type: 'ERROR', object: status },
    ]);
  });

  test('large objects get multi-byte varint lengths', () => {
    const big = configMap('big', { data: { blob: 'x'.repeat(300_000) } });
    const [event] = decodeProtobufWatchFrames(encodeProtobufWatchEvent('ADDED', big));
    assert.deepEqual(event, { type: 'ADDED', object: big });
  });

  test('an enveloped WatchEvent decodes with its object', () => {
    const raw = goEncode('k8s.io.apimachinery.pkg.apis.meta.v1.WatchEvent', { type: 'DELETED', object: { raw: encodeProtobufObject(configMap('gone')) } });
    assert.deepEqual(decodeProtobufObject(envelope('v1', 'WatchEvent', raw)).object, {
      kind: 'WatchEvent',
      apiVersion: 'v1',
      type: 'DELETED',
      object: configMap('gone'),
    });
  });

  test('a trailing partial frame is a 400', () => {
    const frame = encodeProtobufWatchEvent('ADDED', configMap('a'));
    assertBadRequest(() => decodeProtobufWatchFrames(frame.subarray(0, frame.length - 1)), /unexpected EOF/);
  });
});
