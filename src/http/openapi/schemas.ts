/**
 * JSON schemas of API messages for the OpenAPI documents: one definition per message reachable from the
 * served kinds, named like kube-apiserver names them (`io.k8s.api.core.v1.ConfigMap`), with the
 * `x-kubernetes-*` extensions clients read (GVK, patch strategy and merge key, list type and map keys).
 */
import {
  fieldsOf,
  getMessage,
  shapeOfType,
  type FieldSchema,
  type JsonShape,
} from '../../schema/generated/index.ts';
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
    default:
      return undefined;
  }
}

function scalarSchema(shape: JsonShape): JsonSchema {
  switch (shape.kind) {
    case 'string':
      return shape.format === 'byte' ? { type: 'string', format: 'byte' } : { type: 'string' };
    case 'integer':
    case 'number':
      return { type: shape.kind, format: shape.format };
    case 'boolean':
      return { type: 'boolean' };
    default:
      return { type: 'object' };
  }
}

/** The schema of one element of a field (the field itself unless repeated or a map). */
function elementSchema(flavor: SchemaFlavor, type: string, refs: Set<string>): JsonSchema {
  const shape = shapeOfType(type);
  if (shape.kind === 'array') return { type: 'array', items: scalarSchema(shape.items) };
  if (shape.kind === 'message' || wellKnownDefinition(flavor, type)) {
    refs.add(type);
    return refTo(flavor, type);
  }
  return scalarSchema(shape);
}

function fieldSchema(flavor: SchemaFlavor, field: FieldSchema, refs: Set<string>): JsonSchema {
  const element = elementSchema(flavor, field.type, refs);
  let out: JsonSchema;
  if (field.keyType) {
    out = { type: 'object', additionalProperties: element };
    if (field.mapType) out['x-kubernetes-map-type'] = field.mapType;
  } else if (field.repeated) {
    out = { type: 'array', items: element };
    if (field.listType) out['x-kubernetes-list-type'] = field.listType;
    if (field.listMapKey?.length) out['x-kubernetes-list-map-keys'] = [...field.listMapKey];
  } else {
    out = { ...element };
    if (field.structType) out['x-kubernetes-map-type'] = field.structType;
  }
  if (field.patchMergeKey) out['x-kubernetes-patch-merge-key'] = field.patchMergeKey;
  if (field.patchStrategy) out['x-kubernetes-patch-strategy'] = field.patchStrategy;
  return out;
}

function messageSchema(flavor: SchemaFlavor, name: string, gvks: readonly GroupVersionKind[], refs: Set<string>): JsonSchema {
  const msg = getMessage(name);
  const wk = wellKnownDefinition(flavor, name);
  if (wk) return { ...wk };
  if (!msg) return { ...opaqueObject(), ...gvkExtension(gvks) };
  const properties: Record<string, JsonSchema> = {};
  const required: string[] = [];
  if (msg.typeMeta) {
    properties.apiVersion = { type: 'string' };
    properties.kind = { type: 'string' };
  }
  for (const [fieldName, field] of Object.entries(fieldsOf(name))) {
    properties[fieldName] = fieldSchema(flavor, field, refs);
    if (field.required) required.push(fieldName);
  }
  const out: JsonSchema = { type: 'object', properties: sortedRecord(properties) };
  if (required.length) out.required = required;
  if (msg.structType === 'atomic') out['x-kubernetes-map-type'] = 'atomic';
  Object.assign(out, gvkExtension(gvks));
  return out;
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
    out[definitionName(name)] = messageSchema(flavor, name, gvks.get(name) ?? [], refs);
    for (const r of refs) if (!done.has(r)) pending.push(r);
  }
  return sortedRecord(out);
}

/** The list message of a kind message (`…ConfigMap` → `…ConfigMapList`), when the schema has one. */
export function listMessageOf(messageName: string): string | undefined {
  const list = `${messageName}List`;
  return getMessage(list) ? list : undefined;
}
