/**
 * What strategic merge patch needs to know about a field: its patch strategy, its merge key, and the
 * schema of its value. Only the patch markers count (`patchStrategy`, `patchMergeKey`, the Go struct tags
 * upstream reads); `listType`/`mapType` markers do not change how a strategic merge patch merges.
 */
import { fieldsOf, getMessage, isScalar, wellKnownShape, type FieldSchema } from '../../schema/generated/index.ts';

/**
 * A message by name, a map whose values have one schema, or `null` for anything without a schema
 * (unknown fields, scalars, embedded raw JSON): those merge like a JSON merge patch.
 */
export type PatchSchema = string | { readonly mapValues: PatchSchema } | null;

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

function typeSchema(type: string): PatchSchema {
  if (isScalar(type) || wellKnownShape(type) || !getMessage(type)) return null;
  return type;
}

function metaOf(field: FieldSchema): FieldPatchMeta {
  const strategies = (field.patchStrategy ?? '').split(',').filter(Boolean);
  const element = typeSchema(field.type);
  return {
    strategy: strategies.find((s) => s !== 'retainKeys') ?? '',
    retainKeys: strategies.includes('retainKeys'),
    mergeKey: field.patchMergeKey ?? '',
    schema: field.keyType ? { mapValues: element } : element,
  };
}

/** The patch metadata of `key` inside a value of `schema`; fields the schema does not know get none. */
export function lookupField(schema: PatchSchema, key: string): FieldPatchMeta {
  if (schema === null) return NO_META;
  if (typeof schema !== 'string') return { ...NO_META, schema: schema.mapValues };
  const fields = fieldsOf(schema);
  return Object.hasOwn(fields, key) ? metaOf(fields[key]) : NO_META;
}

/** A short name for messages (`k8s.io.api.core.v1.Toleration` → `v1.Toleration`). */
export function schemaName(schema: PatchSchema): string {
  if (schema === null) return 'unknown';
  if (typeof schema !== 'string') return 'map';
  const parts = schema.split('.');
  return parts.slice(-2).join('.');
}
