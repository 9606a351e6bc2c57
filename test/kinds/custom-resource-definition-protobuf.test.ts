/**
 * The protobuf form of CustomResourceDefinition's special types, byte for byte as Go's generated
 * marshallers (apiextensions v1 generated.pb.go) write them: JSON, the JSON Schema unions,
 * doubles, and the zero values Go writes for non-pointer fields.
 */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { decodeMessage, decodeProtobufObject, encodeMessage, encodeProtobufObject } from '../../src/codecs/protobuf/index.ts';
import { certificateCrd } from './custom-resource-definition-fixtures.ts';

const V1 = 'k8s.io.apiextensions_apiserver.pkg.apis.apiextensions.v1';
const PROPS = `${V1}.JSONSchemaProps`;
const hex = (b: Uint8Array) => Buffer.from(b).toString('hex');
const bytes = (h: string) => Uint8Array.from(Buffer.from(h.replace(/\s/g, ''), 'hex'));
const str = (s: string) => Buffer.from(s).toString('hex');

describe('JSONSchemaProps unions on the wire', () => {
  const cases: { name: string; json: Record<string, unknown>; wire: string }[] = [
    // field 30 (additionalProperties): JSONSchemaPropsOrBool{allows=1: false}; Go always writes allows.
    { name: 'additionalProperties: false', json: { additionalProperties: false }, wire: 'f201 02 0800' },
    { name: 'additionalProperties: true', json: { additionalProperties: true }, wire: 'f201 02 0801' },
    // A schema allows: allows=1 true, then schema=2.
    { name: 'additionalProperties: a schema', json: { additionalProperties: { type: 'string' } }, wire: `f201 0c 0801 1208 2a06${str('string')}` },
    // field 24 (items): JSONSchemaPropsOrArray{schema=1} or {jSONSchemas=2 …}.
    { name: 'items: a schema', json: { items: { type: 'string' } }, wire: `c201 0a 0a08 2a06${str('string')}` },
    { name: 'items: a list of schemas', json: { items: [{ type: 'string' }, { type: 'integer' }] }, wire: `c201 15 1208 2a06${str('string')} 1209 2a07${str('integer')}` },
    // field 8 (default) and 20 (enum): JSON{raw=1} holding the JSON text.
    { name: 'default and enum as raw JSON', json: { default: 'a', enum: [1, 'b'] }, wire: `4205 0a03${str('"a"')} a20103 0a01${str('1')} a20105 0a03${str('"b"')}` },
    // field 32 (dependencies): map entries of JSONSchemaPropsOrStringArray{property=2 …} or {schema=1}.
    { name: 'dependencies: names and a schema', json: { dependencies: { a: ['b'], c: { type: 'object' } } }, wire: `8202 08 0a01${str('a')} 1203 1201${str('b')} 8202 0f 0a01${str('c')} 120a 0a08 2a06${str('object')}` },
    // field 9 (maximum) and 11 (minimum): doubles, wire type 1, little-endian.
    { name: 'doubles', json: { maximum: 10, minimum: 1.5 }, wire: '49 0000000000002440 59 000000000000f83f' },
  ];
  for (const c of cases) {
    test(c.name, () => {
      assert.equal(hex(encodeMessage(PROPS, c.json)), c.wire.replace(/\s/g, ''));
      assert.deepEqual(decodeMessage(PROPS, bytes(c.wire)), c.json);
    });
  }

  test('a JSON with no raw bytes is null, as MarshalJSON writes it; a null enum item is such a JSON', () => {
    assert.deepEqual(decodeMessage(PROPS, bytes('4200')), { default: null });
    const wire = `a20103 0a01${str('1')} a20100`;
    assert.equal(hex(encodeMessage(PROPS, { enum: [1, null] })), wire.replace(/\s/g, ''));
    assert.deepEqual(decodeMessage(PROPS, bytes(wire)), { enum: [1, null] });
  });

  test('zero values Go writes for non-pointer fields: omitempty ones are dropped, pointers kept', () => {
    // nullable=37 false, x-kubernetes-embedded-resource=39 false, x-kubernetes-preserve-unknown-fields=38 false (a *bool), description=4 "".
    const wire = 'a80200 b00200 b80200 2200';
    assert.deepEqual(decodeMessage(PROPS, bytes(wire)), { 'x-kubernetes-preserve-unknown-fields': false });
  });

  test('accepted names keep their empty plural and kind (a value struct without omitempty)', () => {
    // CustomResourceDefinitionNames as Go writes a zero one: plural=1, singular=2, kind=4, listKind=5, all "".
    assert.deepEqual(decodeMessage(`${V1}.CustomResourceDefinitionNames`, bytes('0a00 1200 2200 2a00')), { plural: '', kind: '' });
  });

  test('a wrong wire type in a union is a clear error', () => {
    assert.throws(() => decodeMessage(PROPS, bytes('f201 02 0a00')), /wrong wireType = 2 for field Allows of JSONSchemaPropsOrBool/);
  });
});

test('a whole CRD survives JSON → protobuf → JSON', () => {
  const crd = certificateCrd();
  const back = decodeProtobufObject(encodeProtobufObject(crd)).object;
  assert.deepEqual(back, crd);
});
