/**
 * JSON schemas for the OpenAPI documents, walked from the kinds' type-schema objects: one definition per
 * named type (message) reachable from the served kinds, named like kube-apiserver names them (`io.k8s.api.core.v1.ConfigMap`), with the
 * `x-kubernetes-*` extensions clients read (GVK, patch strategy and merge key, list type and map keys).
 */
import { API_VERSION_DESCRIPTION, fieldDescription, KIND_FIELD_DESCRIPTION, typeDescription } from '../../schema/descriptions/describe.ts';
import { getMessage } from '../../schema/generated/index.ts';
import { messageSchema as compiledSchema, type FieldNode, type ObjectSchema, type TypeSchema } from '../../schema/type-schema.ts';
import { definitionName, sortedRecord, type GroupVersionKind } from './names.ts';

export type JsonSchema = Record<string, unknown>;

export interface SchemaFlavor {
  /** `#/definitions/` (v2) or `#/components/schemas/` (v3). */
  readonly refPrefix: string;
  readonly v3: boolean;
}

export const META = 'k8s.io.apimachinery.pkg.apis.meta.v1';
export const STATUS = `${META}.Status`;
export const DELETE_OPTIONS = `${META}.DeleteOptions`;
export const PATCH = `${META}.Patch`;
export const WATCH_EVENT = `${META}.WatchEvent`;
export const API_RESOURCE_LIST = `${META}.APIResourceList`;
export const API_GROUP = `${META}.APIGroup`;
export const API_GROUP_LIST = `${META}.APIGroupList`;
export const API_VERSIONS = `${META}.APIVersions`;

const QUANTITY = 'k8s.io.apimachinery.pkg.api.resource.Quantity';
const INT_OR_STRING = 'k8s.io.apimachinery.pkg.util.intstr.IntOrString';
const RAW_EXTENSION = 'k8s.io.apimachinery.pkg.runtime.RawExtension';
const FIELDS_V1 = `${META}.FieldsV1`;

/** Definitions of messages not in the schema (kinds defined without a generated message): anything goes. */
function opaqueObject(): JsonSchema {
  return { type: 'object', 'x-kubernetes-preserve-unknown-fields': true };
}

export function refTo(flavor: SchemaFlavor, messageName: string): JsonSchema {
  return { $ref: flavor.refPrefix + definitionName(messageName) };
}

/** True when the message is a well-known type published as its own (non-object) definition. */
const APIEXTENSIONS = 'k8s.io.apiextensions_apiserver.pkg.apis.apiextensions.v1';

function wellKnownDefinition(flavor: SchemaFlavor, name: string): JsonSchema | undefined {
  switch (name) {
    case `${META}.Time`:
    case `${META}.MicroTime`:
      return { type: 'string', format: 'date-time' };
    case `${META}.Duration`:
    case 'k8s.io.apimachinery.pkg.api.resource.QuantityValue':
      return { type: 'string' };
    case QUANTITY:
      return flavor.v3 ? { oneOf: [{ type: 'string' }, { type: 'number' }] } : { type: 'string' };
    case INT_OR_STRING:
      return flavor.v3
        ? { format: 'int-or-string', oneOf: [{ type: 'integer' }, { type: 'string' }], 'x-kubernetes-int-or-string': true }
        : { type: 'string', format: 'int-or-string' };
    case RAW_EXTENSION:
    case FIELDS_V1:
      return { type: 'object', 'x-kubernetes-preserve-unknown-fields': true };
    case PATCH:
      return { type: 'object' };
    // Any JSON value, or a schema-or-something union: published without a type, as upstream's
    // OpenAPISchemaType for them is empty (their JSON is not their protobuf form).
    case `${APIEXTENSIONS}.JSON`:
    case `${APIEXTENSIONS}.JSONSchemaPropsOrArray`:
    case `${APIEXTENSIONS}.JSONSchemaPropsOrBool`:
    case `${APIEXTENSIONS}.JSONSchemaPropsOrStringArray`:
      return {};
    default:
      return undefined;
  }
}

/**
 * The JSON schema of a type-schema node: named types (messages, Time, Quantity …) by reference
 * (collected in `refs`), the rest inline.
 */
function nodeSchema(flavor: SchemaFlavor, node: TypeSchema, refs: Set<string>): JsonSchema {
  if (node.kind === 'object' ? node.message : 'message' in node && node.message) {
    const name = (node as { message: string }).message;
    refs.add(name);
    return refTo(flavor, name);
  }
  switch (node.kind) {
    case 'string':
      return node.format === 'byte' ? { type: 'string', format: 'byte' } : { type: 'string' };
    case 'integer':
      // Unsigned widths are published as their signed ones, as upstream's OpenAPI does.
      return { type: 'integer', format: node.format.replace(/^u/, '') };
    case 'number':
      return { type: 'number', format: node.format };
    case 'boolean':
      return { type: 'boolean' };
    case 'array':
      return { type: 'array', items: nodeSchema(flavor, node.items, refs) };
    case 'map':
      return { type: 'object', additionalProperties: nodeSchema(flavor, node.values, refs) };
    case 'object':
      return objectSchema(flavor, node, [], refs);
    default:
      return opaqueObject();
  }
}

/**
 * A field's schema: its value's, with its description and the list, map and patch markers clients
 * read. A reference carries its description beside it in v2 and inside `allOf` in v3, as upstream.
 */
function fieldSchema(flavor: SchemaFlavor, owner: ObjectSchema, field: FieldNode, refs: Set<string>): JsonSchema {
  const value = nodeSchema(flavor, field.schema, refs);
  const description = fieldDescription(owner.message ?? owner.goName, field);
  const out: JsonSchema = flavor.v3 && '$ref' in value ? { allOf: [value], description } : { description, ...value };
  if (field.collection === 'list') {
    if (field.listType) out['x-kubernetes-list-type'] = field.listType;
    if (field.listMapKeys?.length) out['x-kubernetes-list-map-keys'] = [...field.listMapKeys];
  }
  if (field.mapType) out['x-kubernetes-map-type'] = field.mapType;
  if (field.patchMergeKey) out['x-kubernetes-patch-merge-key'] = field.patchMergeKey;
  if (field.patchStrategies.length) out['x-kubernetes-patch-strategy'] = field.patchStrategies.join(',');
  return out;
}

/** The definition of an object: its fields as properties, sorted, with the GVK extension of kinds. */
function objectSchema(flavor: SchemaFlavor, obj: ObjectSchema, gvks: readonly GroupVersionKind[], refs: Set<string>): JsonSchema {
  const properties: Record<string, JsonSchema> = {};
  const required: string[] = [];
  if (obj.typeMeta) {
    properties.apiVersion = { description: API_VERSION_DESCRIPTION, type: 'string' };
    properties.kind = { description: KIND_FIELD_DESCRIPTION, type: 'string' };
  }
  for (const [fieldName, field] of obj.fields) {
    properties[fieldName] = fieldSchema(flavor, obj, field, refs);
    if (field.required) required.push(fieldName);
  }
  const out: JsonSchema = { description: typeDescription(obj.message ?? obj.goName), type: 'object', properties: sortedRecord(properties) };
  if (required.length) out.required = required;
  if (obj.atomic) out['x-kubernetes-map-type'] = 'atomic';
  Object.assign(out, gvkExtension(gvks));
  return out;
}

/** The definition published under a message name: a well-known type's own, or the message's object schema. */
function definitionOf(flavor: SchemaFlavor, name: string, gvks: readonly GroupVersionKind[], refs: Set<string>): JsonSchema {
  const wk = wellKnownDefinition(flavor, name);
  if (wk) return { ...wk };
  if (!getMessage(name)) return { ...opaqueObject(), ...gvkExtension(gvks) };
  return objectSchema(flavor, compiledSchema(name), gvks, refs);
}

function gvkExtension(gvks: readonly GroupVersionKind[]): JsonSchema {
  if (!gvks.length) return {};
  return { 'x-kubernetes-group-version-kind': gvks.map((g) => ({ group: g.group, kind: g.kind, version: g.version })) };
}

/**
 * Definitions for the root messages and everything they reference, keyed by definition name and sorted.
 * `gvks` gives the `x-kubernetes-group-version-kind` list of messages that are kinds.
 */
export function buildDefinitions(
  flavor: SchemaFlavor,
  roots: Iterable<string>,
  gvks: ReadonlyMap<string, readonly GroupVersionKind[]>,
): Record<string, JsonSchema> {
  const out: Record<string, JsonSchema> = {};
  const pending = [...roots];
  const done = new Set<string>();
  while (pending.length) {
    const name = pending.pop()!;
    if (done.has(name)) continue;
    done.add(name);
    const refs = new Set<string>();
    out[definitionName(name)] = definitionOf(flavor, name, gvks.get(name) ?? [], refs);
    for (const r of refs) if (!done.has(r)) pending.push(r);
  }
  return sortedRecord(out);
}

/** The list message of a kind message (`…ConfigMap` → `…ConfigMapList`), when the schema has one. */
export function listMessageOf(messageName: string): string | undefined {
  const list = `${messageName}List`;
  return getMessage(list) ? list : undefined;
}
