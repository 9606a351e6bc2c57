import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { decodeCbor, encodeCbor } from '../../src/codecs/cbor/index.ts';
import { decodeProtobufObject, encodeProtobufObject } from '../../src/codecs/protobuf/index.ts';
import { dumpYaml, parseYaml } from '../../src/codecs/yaml.ts';
import { builtinKinds } from '../../src/kinds/index.ts';
import { apiVersionOf } from '../../src/registry/kind.ts';
import { populated } from './populated.ts';

// Every kind, fully populated, through every wire format and back: nothing lost, nothing changed.
describe('every kind round-trips through JSON, YAML, protobuf and CBOR', () => {
  for (const kind of builtinKinds) {
    describe(`${kind.kind} (${apiVersionOf(kind)})`, () => {
      const object = populated(kind);
      const json = JSON.stringify(object);

      test('JSON', () => assert.deepEqual(JSON.parse(json), object));

      test('YAML', () => assert.deepEqual(parseYaml(dumpYaml(object)), object));

      test('CBOR: the same value, and the same bytes when encoded again', () => {
        const bytes = encodeCbor(object, kind.schema);
        const back = decodeCbor(bytes);
        assert.deepEqual(back, object);
        assert.deepEqual(encodeCbor(back, kind.schema), bytes);
      });

      test('protobuf', { skip: !kind.wire.protobuf && 'no protobuf form' }, () => {
        const bytes = encodeProtobufObject(object);
        const back = decodeProtobufObject(bytes, { expect: { apiVersion: apiVersionOf(kind), kind: kind.kind } }).object;
        assert.deepEqual(back, object);
        assert.deepEqual(encodeProtobufObject(back as Record<string, unknown>), bytes);
      });
    });
  }
});
