/**
 * What strategic merge patch needs to know about a field: its patch strategy, its merge key, and the
 * schema of its value. Only the patch markers count (`patchStrategy`, `patchMergeKey`, the Go struct tags
 * upstream reads); `listType`/`mapType` markers do not change how a strategic merge patch merges.
 */
import type { FieldNode, ObjectSchema, TypeSchema } from '../../schema/type-schema.ts';

/**
 * An object schema, a map whose values have one schema, or `null` for anything without a schema
 * (unknown fields, scalars, embedded raw JSON): those merge like a JSON merge patch.
 */
export type PatchSchema = ObjectSchema | { readonly mapValues: PatchSchema } | null;

export interface FieldPatchMeta {
  /** `merge`, `replace`, or `''` for the default (maps merge, lists are replaced). */
  readonly strategy: string;
  /** The field declares the retainKeys strategy (informational: `$retainKeys` is honoured anywhere). */
  readonly retainKeys: boolean;
  /** The key list elements are matched by; `''` for lists of primitives. */
  readonly mergeKey: string;
  /** The schema of the field's value; for a list, of one element. */
  readonly schema: PatchSchema;
}

const NO_META: FieldPatchMeta = { strategy: '', retainKeys: false, mergeKey: '', schema: null };

function patchSchemaOf(schema: TypeSchema): PatchSchema {
  if (schema.kind === 'object') return schema;
  if (schema.kind === 'map') return { mapValues: patchSchemaOf(schema.values) };
  return null;
}

function metaOf(field: FieldNode): FieldPatchMeta {
  const s = field.schema;
  return {
    strategy: field.patchStrategies.find((x) => x !== 'retainKeys') ?? '',
    retainKeys: field.patchStrategies.includes('retainKeys'),
    mergeKey: field.patchMergeKey,
    schema: s.kind === 'array' ? patchSchemaOf(s.items) : patchSchemaOf(s),
  };
}

/** The patch metadata of `key` inside a value of `schema`; fields the schema does not know get none. */
export function lookupField(schema: PatchSchema, key: string): FieldPatchMeta {
  if (schema === null) return NO_META;
  if (!('kind' in schema)) return { ...NO_META, schema: schema.mapValues };
  const field = schema.fields.get(key);
  return field ? metaOf(field) : NO_META;
}

/** A short name for object schemas (`v1.Toleration`). */
export function schemaName(schema: PatchSchema): string {
  if (schema === null) return 'unknown';
  if (!('kind' in schema)) return 'map';
  return schema.goName;
}
