/**
 * OpenAPI documents as pure functions of the served kinds and the generated schema.
 *
 * Building a document walks the schema and allocates a lot; serving must not. Build everything once at
 * startup (or whenever the set of kinds changes) and keep the serialized bytes:
 *
 * @example
 * const v3 = buildOpenapiV3(kinds, { version: 'v1.34.0' });        // index + per-path { json, hash }
 * const v2 = openapiV2Document(kinds, { version: 'v1.34.0' });
 * const v2Json = Buffer.from(JSON.stringify(v2));
 * const v2Proto = encodeOpenapiV2Protobuf(v2);                      // for OPENAPI_V2_PROTOBUF_MEDIA_TYPE
 * // GET /openapi/v3            → JSON.stringify(v3.index)
 * // GET /openapi/v3/api/v1     → v3.documents.get('api/v1').json (ETag: the hash)
 */
export { openapiV2Document, type OpenApiV2Document } from './v2.ts';
export {
  buildOpenapiV3,
  openapiV3Document,
  openapiV3Hash,
  openapiV3Index,
  openapiV3Paths,
  type OpenApiOptions,
  type OpenApiV3Document,
  type OpenApiV3Entry,
  type OpenApiV3Index,
} from './v3.ts';
export {
  decodeOpenapiV2Protobuf,
  encodeOpenapiV2Protobuf,
  OPENAPI_V2_PROTOBUF_MEDIA_TYPE,
  toGnosticDocument,
} from './v2-protobuf.ts';
export { definitionName } from './names.ts';
