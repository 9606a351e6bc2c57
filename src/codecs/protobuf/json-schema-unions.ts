/**
 * apiextensions.k8s.io/v1's JSON and JSON Schema union types, whose JSON form is not the JSON of
 * their proto fields (k8s.io/apiextensions-apiserver pkg/apis/apiextensions/v1 marshal.go and
 * generated.pb.go):
 *
 * | message                      | proto fields                          | JSON                                  |
 * |------------------------------|---------------------------------------|---------------------------------------|
 * | JSON                         | 1 raw (bytes of JSON text)            | that JSON value (`null` when empty)    |
 * | JSONSchemaPropsOrArray       | 1 schema, 2 jSONSchemas (repeated)    | the list when it has items, else the schema |
 * | JSONSchemaPropsOrBool        | 1 allows (always written), 2 schema   | the schema when set, else the bool    |
 * | JSONSchemaPropsOrStringArray | 1 schema, 2 property (repeated)       | the strings when any, else the schema |
 *
 * Go writes the fields in number order, so do these. The schemas inside are JSONSchemaProps, whose
 * codec the caller hands in (it is compiled from the generated schema like any message).
 */
import type { Writer } from 'protobufjs';
import { stringifyJson } from '../deep-json.ts';
import { mayHaveEscapedSurrogate, replaceLoneSurrogatesDeep } from '../unicode.ts';
import type { WellKnownCodec } from './well-known.ts';
import { WIRE_LEN, WIRE_VARINT, WireError, type WireReader } from './wire-reader.ts';

type Json = Record<string, unknown>;

/** What these codecs need of the JSONSchemaProps message codec. */
export interface SchemaPropsCodec {
  decodeInto(r: WireReader, end: number, target: Json): void;
  encode(json: Json, w: Writer): void;
}

export const APIEXTENSIONS_V1 = 'k8s.io.apiextensions_apiserver.pkg.apis.apiextensions.v1';
export const JSON_SCHEMA_PROPS = `${APIEXTENSIONS_V1}.JSONSchemaProps`;

const utf8 = new TextDecoder('utf-8');
const encoder = new TextEncoder();

const isObject = (v: unknown): v is Json => v !== null && typeof v === 'object' && !Array.isArray(v);

function wrongWireType(wt: number, field: string, message: string): WireError {
  return new WireError(`proto: wrong wireType = ${wt} for field ${field} of ${message}`);
}

/** The fields of one message in `[r.pos, end)`, each handed to `read` with its number and wire type. */
function eachField(r: WireReader, end: number, read: (id: number, wt: number) => boolean): void {
  while (r.pos < end) {
    const tag = r.uint32(end);
    const id = tag >>> 3;
    const wt = tag & 7;
    if (!read(id, wt)) r.skip(wt, end, id);
  }
}

/** The codecs of the four types, keyed by full message name. */
export function schemaUnionCodecs(props: () => SchemaPropsCodec): ReadonlyMap<string, WellKnownCodec> {
  const readSchema = (r: WireReader, end: number): Json => {
    const stop = r.delimited(end);
    const out: Json = {};
    props().decodeInto(r, stop, out);
    return out;
  };
  const writeSchema = (w: Writer, tag: number, schema: Json) => {
    w.uint32(tag).fork();
    props().encode(schema, w);
    w.ldelim();
  };

  const json: WellKnownCodec = {
    decode(r, end) {
      let raw: Uint8Array | undefined;
      eachField(r, end, (id, wt) => {
        if (id !== 1) return false;
        if (wt !== WIRE_LEN) throw wrongWireType(wt, 'Raw', 'JSON');
        raw = r.bytes(end);
        return true;
      });
      // MarshalJSON writes `null` for an empty Raw.
      if (!raw || raw.length === 0) return null;
      try {
        const text = utf8.decode(raw);
        const value: unknown = JSON.parse(text);
        return mayHaveEscapedSurrogate(text) ? replaceLoneSurrogatesDeep(value) : value;
      } catch (err) {
        throw new WireError(`JSON does not hold valid JSON: ${(err as Error).message}`);
      }
    },
    missing: null,
    write(w, tag, value) {
      // A JSON null leaves Raw empty, and Go writes no raw field then.
      if (value === null) w.uint32(tag).fork().ldelim();
      else w.uint32(tag).fork().uint32(0x0a).bytes(encoder.encode(stringifyJson(value))).ldelim();
    },
    writesNullItems: true,
  };

  /**
   * JSONSchemaPropsOrArray and JSONSchemaPropsOrStringArray share one shape: a schema in field 1, or a
   * list in field 2 (schemas, or property names); the list wins when both are present, as Go's
   * MarshalJSON writes it.
   */
  const schemaOrList = <T>(
    message: string,
    listField: string,
    readItem: (r: WireReader, end: number) => T,
    writeItems: (w: Writer, items: readonly unknown[]) => void,
  ): WellKnownCodec => ({
    decode(r, end) {
      let schema: Json | undefined;
      const list: T[] = [];
      eachField(r, end, (id, wt) => {
        if (id !== 1 && id !== 2) return false;
        if (wt !== WIRE_LEN) throw wrongWireType(wt, id === 1 ? 'Schema' : listField, message);
        if (id === 1) schema = readSchema(r, end);
        else list.push(readItem(r, end));
        return true;
      });
      return list.length > 0 ? list : (schema ?? null);
    },
    missing: null,
    write(w, tag, value) {
      if (isObject(value)) {
        w.uint32(tag).fork();
        writeSchema(w, 0x0a, value);
        w.ldelim();
      } else if (Array.isArray(value)) {
        w.uint32(tag).fork();
        writeItems(w, value);
        w.ldelim();
      }
    },
  });

  const orArray = schemaOrList('JSONSchemaPropsOrArray', 'JSONSchemas', readSchema, (w, items) => {
    for (const item of items) if (isObject(item)) writeSchema(w, 0x12, item);
  });

  const orStringArray = schemaOrList('JSONSchemaPropsOrStringArray', 'Property', (r, end) => r.string(end), (w, items) => {
    for (const item of items) if (typeof item === 'string') w.uint32(0x12).string(item);
  });

  const orBool: WellKnownCodec = {
    decode(r, end) {
      let allows = false;
      let schema: Json | undefined;
      eachField(r, end, (id, wt) => {
        if (id === 1) {
          if (wt !== WIRE_VARINT) throw wrongWireType(wt, 'Allows', 'JSONSchemaPropsOrBool');
          allows = r.bool(end);
          return true;
        }
        if (id === 2) {
          if (wt !== WIRE_LEN) throw wrongWireType(wt, 'Schema', 'JSONSchemaPropsOrBool');
          schema = readSchema(r, end);
          return true;
        }
        return false;
      });
      return schema ?? allows;
    },
    missing: false,
    write(w, tag, value) {
      if (typeof value === 'boolean') {
        w.uint32(tag).fork().uint32(0x08).bool(value).ldelim();
      } else if (isObject(value)) {
        // A schema allows (UnmarshalJSON sets Allows with it).
        w.uint32(tag).fork().uint32(0x08).bool(true);
        writeSchema(w, 0x12, value);
        w.ldelim();
      }
    },
  };

  return new Map([
    [`${APIEXTENSIONS_V1}.JSON`, json],
    [`${APIEXTENSIONS_V1}.JSONSchemaPropsOrArray`, orArray],
    [`${APIEXTENSIONS_V1}.JSONSchemaPropsOrBool`, orBool],
    [`${APIEXTENSIONS_V1}.JSONSchemaPropsOrStringArray`, orStringArray],
  ]);
}
