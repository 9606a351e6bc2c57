/** OpenAPI v2 and v3 definitions of custom resources (apiextensions-apiserver's openapi builder). */
export {
  customResourceSchemas,
  publishableSchema,
  LIST_META_DEFINITION,
  OBJECT_META_DEFINITION,
  type CustomResourceOpenApiOptions,
  type CustomResourceSchemas,
  type JsonSchema,
} from './builder.ts';
export { customResourceDefinitionName } from './names.ts';
export { structuralToJson } from './schema-json.ts';
export { toStructuralOpenAPIV2 } from './v2-conversion.ts';
