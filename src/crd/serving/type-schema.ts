/**
 * The type-schema object (src/schema/type-schema.ts) of a custom resource version, compiled from its
 * structural schema: what server-side apply, patch, CBOR and the table code walk. Custom resources
 * are decoded as unstructured JSON, so the nodes carry shapes and merge markers, never the wire
 * formats the built-in decoder checks (formats are value validation here, done by src/crd/schema).
 */
import { messageSchema, type FieldNode, type ObjectSchema, type TypeSchema } from '../../schema/type-schema.ts';
import type { Structural } from '../schema/structural.ts';

const OBJECT_META = 'k8s.io.apimachinery.pkg.apis.meta.v1.ObjectMeta';
const ANY: TypeSchema = Object.freeze({ kind: 'any' });
const STRING: TypeSchema = Object.freeze({ kind: 'string' });

/** Go's name of an unstructured value of this schema (what a decode error would name). */
function goTypeOf(s: Structural | undefined): string {
  switch (s?.type) {
    case 'string':
      return 'string';
    case 'integer':
      return 'int64';
    case 'number':
      return 'float64';
    case 'boolean':
      return 'bool';
    case 'array':
      return '[]interface {}';
    default:
      return 'map[string]interface {}';
  }
}

function field(name: string, s: Structural | undefined, schema: TypeSchema, required: boolean): FieldNode {
  const collection = schema.kind === 'array' ? ('list' as const) : schema.kind === 'map' ? ('map' as const) : undefined;
  const listType = s?.xListType as FieldNode['listType'] | undefined;
  const mapType = s?.xMapType === 'atomic' || s?.xMapType === 'granular' ? s.xMapType : undefined;
  return {
    name,
    schema,
    ...(collection ? { collection } : {}),
    required,
    goType: goTypeOf(s),
    goElementType: schema.kind === 'array' ? goTypeOf(s?.items) : goTypeOf(s),
    patchStrategies: [],
    patchMergeKey: '',
    // An array without x-kubernetes-list-type is atomic for server-side apply, as upstream's converter makes it.
    ...(schema.kind === 'array' ? { listType: listType ?? 'atomic' } : {}),
    ...(listType === 'map' && s?.xListMapKeys ? { listMapKeys: s.xListMapKeys } : {}),
    ...(mapType ? { mapType } : {}),
  };
}

function objectNode(s: Structural, goName: string, typeMeta: boolean, extra: readonly FieldNode[]): ObjectSchema {
  const fields = new Map<string, FieldNode>();
  for (const f of extra) fields.set(f.name, f);
  const required = new Set(s.valueValidation?.required ?? []);
  for (const [name, prop] of Object.entries(s.properties ?? {})) {
    if (fields.has(name)) continue;
    fields.set(name, field(name, prop, compileNode(prop, false), required.has(name)));
  }
  // Fields beside the properties are kept (preserve-unknown-fields) or, with additionalProperties, of its schema.
  const other = s.xPreserveUnknownFields ? ANY : s.additionalProperties?.structural ? compileNode(s.additionalProperties.structural, false) : undefined;
  return { kind: 'object', goName, typeMeta, atomic: s.xMapType === 'atomic', fields, ...(other ? { otherFields: other } : {}) };
}

/** The fields an embedded resource (or the root) always has. */
function typeMetaFields(root: boolean, s: Structural): FieldNode[] {
  const meta = s.properties?.metadata;
  return [
    field('apiVersion', s.properties?.apiVersion, STRING, false),
    field('kind', s.properties?.kind, STRING, false),
    root ? field('metadata', meta, messageSchema(OBJECT_META), false) : field('metadata', meta, meta ? compileNode(meta, false) : ANY, false),
  ];
}

/** One node: objects with properties are structures, with additionalProperties maps, otherwise free JSON. */
export function compileNode(s: Structural, root: boolean): TypeSchema {
  if (s.xIntOrString) return { kind: 'int-or-string' };
  switch (s.type) {
    case 'string':
      return STRING;
    case 'integer':
      return { kind: 'integer', format: 'int64' };
    case 'number':
      return { kind: 'number', format: 'double' };
    case 'boolean':
      return { kind: 'boolean' };
    case 'array':
      return { kind: 'array', items: s.items ? compileNode(s.items, false) : ANY };
    case 'object': {
      const extra = root || s.xEmbeddedResource ? typeMetaFields(root, s) : [];
      const additional = s.additionalProperties;
      if (extra.length === 0 && additional?.structural && !s.properties) return { kind: 'map', values: compileNode(additional.structural, false) };
      if (s.properties || extra.length > 0) return objectNode(s, 'map[string]interface {}', extra.length > 0, extra);
      if (s.xPreserveUnknownFields) return { kind: 'map', values: ANY };
      // `type: object` and nothing else: an empty structure (pruning leaves it empty).
      return objectNode(s, 'map[string]interface {}', false, []);
    }
    default:
      return ANY;
  }
}

/** The type schema of a custom resource version (a missing schema is an object of anything). */
export function customResourceTypeSchema(s: Structural | undefined): ObjectSchema {
  const base: Structural = s ?? { type: 'object', nullable: false, xPreserveUnknownFields: true, xEmbeddedResource: false, xIntOrString: false };
  return compileNode({ ...base, type: 'object' }, true) as ObjectSchema;
}
