/**
 * `/openapi/v2` as protobuf (`application/com.github.proto-openapi.spec.v2@v1.0+protobuf`): the Swagger
 * document as a gnostic `openapi.v2.Document`. kubectl 1.27/1.28 ask for this form. Vendor extensions,
 * defaults and enums are `NamedAny`/`Any` values holding YAML text, as gnostic stores them; kubectl parses
 * the YAML of `x-kubernetes-group-version-kind` to match operations and definitions to kinds.
 */
import { readFileSync } from 'node:fs';
import { dump } from 'js-yaml';
import protobuf from 'protobufjs';
import type { OpenApiV2Document } from './v2.ts';

type Json = Record<string, unknown>;

export const OPENAPI_V2_PROTOBUF_MEDIA_TYPE = 'application/com.github.proto-openapi.spec.v2@v1.0+protobuf';

let documentType: protobuf.Type | undefined;

function gnosticDocument(): protobuf.Type {
  if (!documentType) {
    const descriptor = JSON.parse(readFileSync(new URL('../../../proto/openapiv2.json', import.meta.url), 'utf8'));
    documentType = protobuf.Root.fromJSON(descriptor).lookupType('openapi.v2.Document');
  }
  return documentType;
}

function yamlAny(value: unknown): Json {
  return { yaml: dump(value, { lineWidth: -1, noRefs: true }) };
}

function namedAnys(extensions: [string, unknown][]): Json[] {
  return extensions.map(([name, value]) => ({ name, value: yamlAny(value) }));
}

function vendorExtensions(obj: Json): [string, unknown][] {
  return Object.entries(obj).filter(([k]) => k.startsWith('x-'));
}

const SCHEMA_NUMBERS: Readonly<Record<string, string>> = {
  multipleOf: 'multiple_of', maximum: 'maximum', minimum: 'minimum', maxLength: 'max_length', minLength: 'min_length',
  maxItems: 'max_items', minItems: 'min_items', maxProperties: 'max_properties', minProperties: 'min_properties',
};
const SCHEMA_FLAGS: Readonly<Record<string, string>> = {
  exclusiveMaximum: 'exclusive_maximum', exclusiveMinimum: 'exclusive_minimum', uniqueItems: 'unique_items',
  readOnly: 'read_only',
};

function schema(s: Json): Json {
  const out: Json = {};
  const ext: [string, unknown][] = [];
  for (const [key, value] of Object.entries(s)) {
    if (key.startsWith('x-')) ext.push([key, value]);
    else if (key === '$ref') out._ref = value;
    else if (key === 'type') out.type = { value: Array.isArray(value) ? value : [value] };
    else if (key === 'items') out.items = { schema: (Array.isArray(value) ? value : [value]).map((v) => schema(v as Json)) };
    else if (key === 'properties') {
      out.properties = { additional_properties: Object.entries(value as Json).map(([name, v]) => ({ name, value: schema(v as Json) })) };
    } else if (key === 'additionalProperties') {
      out.additional_properties = typeof value === 'boolean' ? { boolean: value } : { schema: schema(value as Json) };
    } else if (key === 'allOf') out.all_of = (value as Json[]).map(schema);
    else if (key === 'default' || key === 'example') out[key] = yamlAny(value);
    else if (key === 'enum') out.enum = (value as unknown[]).map(yamlAny);
    else if (key === 'required') out.required = value;
    else if (SCHEMA_NUMBERS[key]) out[SCHEMA_NUMBERS[key]] = value;
    else if (SCHEMA_FLAGS[key]) out[SCHEMA_FLAGS[key]] = value;
    else if (key === 'format' || key === 'title' || key === 'description' || key === 'pattern' || key === 'discriminator') {
      out[key] = value;
    }
  }
  if (ext.length) out.vendor_extension = namedAnys(ext);
  return out;
}

function parameter(p: Json): Json {
  if (typeof p.$ref === 'string') return { json_reference: { _ref: p.$ref } };
  if (p.in === 'body') {
    return { parameter: { body_parameter: { description: p.description, name: p.name, in: p.in, required: p.required,
      schema: schema(p.schema as Json), vendor_extension: namedAnys(vendorExtensions(p)) } } };
  }
  const sub: Json = { required: p.required, in: p.in, description: p.description, name: p.name, type: p.type,
    format: p.format, unique_items: p.uniqueItems, vendor_extension: namedAnys(vendorExtensions(p)) };
  const key = p.in === 'path' ? 'path_parameter_sub_schema' : p.in === 'header' ? 'header_parameter_sub_schema'
    : p.in === 'formData' ? 'form_data_parameter_sub_schema' : 'query_parameter_sub_schema';
  return { parameter: { non_body_parameter: { [key]: sub } } };
}

function operation(op: Json): Json {
  const responses = Object.entries((op.responses ?? {}) as Json).map(([code, r]) => {
    const res = r as Json;
    return { name: code, value: { response: { description: res.description,
      ...(res.schema ? { schema: { schema: schema(res.schema as Json) } } : {}),
      vendor_extension: namedAnys(vendorExtensions(res)) } } };
  });
  return {
    tags: op.tags, summary: op.summary, description: op.description, operation_id: op.operationId,
    produces: op.produces, consumes: op.consumes,
    parameters: ((op.parameters ?? []) as Json[]).map(parameter),
    responses: { response_code: responses }, schemes: op.schemes, deprecated: op.deprecated,
    vendor_extension: namedAnys(vendorExtensions(op)),
  };
}

const METHODS = ['get', 'put', 'post', 'delete', 'options', 'head', 'patch'];

function pathItem(item: Json): Json {
  const out: Json = { vendor_extension: namedAnys(vendorExtensions(item)) };
  for (const m of METHODS) if (item[m]) out[m] = operation(item[m] as Json);
  if (item.parameters) out.parameters = (item.parameters as Json[]).map(parameter);
  return out;
}

/** The Swagger JSON document as a plain `openapi.v2.Document` message object (snake_case field names). */
export function toGnosticDocument(doc: OpenApiV2Document): Json {
  const securityDefinitions = Object.entries((doc.securityDefinitions ?? {}) as Json).map(([name, d]) => {
    const def = d as Json;
    const value = def.type === 'apiKey'
      ? { api_key_security: { type: def.type, name: def.name, in: def.in, description: def.description } }
      : { basic_authentication_security: { type: def.type, description: def.description } };
    return { name, value };
  });
  return {
    swagger: doc.swagger,
    info: doc.info,
    host: doc.host,
    base_path: doc.basePath,
    schemes: doc.schemes,
    consumes: doc.consumes,
    produces: doc.produces,
    paths: { path: Object.entries((doc.paths ?? {}) as Json).map(([name, item]) => ({ name, value: pathItem(item as Json) })) },
    definitions: { additional_properties: Object.entries((doc.definitions ?? {}) as Json).map(([name, s]) => ({ name, value: schema(s as Json) })) },
    security: ((doc.security ?? []) as Json[]).map((req) => ({
      additional_properties: Object.entries(req).map(([name, scopes]) => ({ name, value: { value: scopes } })),
    })),
    security_definitions: { additional_properties: securityDefinitions },
    vendor_extension: namedAnys(vendorExtensions(doc)),
  };
}

/** Encodes the document as a gnostic `openapi.v2.Document`. Build once at startup and keep the bytes. */
export function encodeOpenapiV2Protobuf(doc: OpenApiV2Document): Uint8Array {
  const type = gnosticDocument();
  return type.encode(type.fromObject(toGnosticDocument(doc))).finish();
}

/** Decodes a gnostic `openapi.v2.Document` into a plain object with snake_case field names (for tests and tools). */
export function decodeOpenapiV2Protobuf(bytes: Uint8Array): Json {
  const type = gnosticDocument();
  return type.toObject(type.decode(bytes), { defaults: false, arrays: true }) as Json;
}
