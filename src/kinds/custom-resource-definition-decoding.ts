/**
 * What Go's decoding and encoding do to a CRD (apiextensions v1 types.go, types_jsonschema.go and
 * marshal.go), which the type schema cannot say:
 *
 * - the schemas inside `items`, `additionalProperties`, `additionalItems` and `dependencies` are
 *   decoded by their own UnmarshalJSON, leniently, so strict field validation never sees them and
 *   unknown keys in them (and everything nested in them) are silently dropped; a value of neither
 *   union shape becomes nothing. The type schema holds these unions as free JSON;
 * - every JSONSchemaProps field is `omitempty`, and the non-pointer ones (strings, most bools, lists
 *   and maps) leave the JSON when they hold their zero value: `nullable: false` or `description: ""`
 *   are not kept. Pointer fields keep their zero (`x-kubernetes-preserve-unknown-fields: false`,
 *   `minimum: 0`, `$ref: ""`);
 * - so do the spec's own: a version's `deprecated: false`, a column's `priority: 0`, empty
 *   `format`, `description`, short names, categories, columns and selectable fields.
 *   (`preserveUnknownFields: false` stays: the validation library's defaults write it.)
 *
 * The kind's `default` hook applies this to the body, as the decoder runs before anything else.
 */
import { messageSchema } from '../schema/type-schema.ts';

type Json = Record<string, unknown>;

const JSON_SCHEMA_PROPS = 'k8s.io.apiextensions_apiserver.pkg.apis.apiextensions.v1.JSONSchemaProps';

let knownKeys: ReadonlySet<string> | undefined;
/** JSONSchemaProps' JSON keys (`$ref`, `x-kubernetes-…`), from the generated schema. */
const known = () => (knownKeys ??= new Set(messageSchema(JSON_SCHEMA_PROPS).fields.keys()));

const isObject = (v: unknown): v is Json => v !== null && typeof v === 'object' && !Array.isArray(v);

/** Non-pointer `omitempty` fields of JSONSchemaProps: dropped at their zero value. */
const ZERO_STRINGS = ['id', '$schema', 'description', 'type', 'format', 'title', 'pattern'] as const;
const ZERO_BOOLS = ['exclusiveMaximum', 'exclusiveMinimum', 'uniqueItems', 'nullable', 'x-kubernetes-embedded-resource', 'x-kubernetes-int-or-string'] as const;
const ZERO_COLLECTIONS = ['enum', 'required', 'allOf', 'oneOf', 'anyOf', 'properties', 'patternProperties', 'dependencies', 'definitions', 'x-kubernetes-list-map-keys', 'x-kubernetes-validations'] as const;

function dropZeroValues(schema: Json): void {
  for (const key of ZERO_STRINGS) if (schema[key] === '') delete schema[key];
  for (const key of ZERO_BOOLS) if (schema[key] === false) delete schema[key];
  for (const key of ZERO_COLLECTIONS) {
    const value = schema[key];
    if ((Array.isArray(value) && value.length === 0) || (isObject(value) && Object.keys(value).length === 0)) delete schema[key];
  }
}

/** Keys whose value is one schema, a list of schemas, a map of schemas. */
const ONE = ['not'] as const;
const LIST = ['allOf', 'anyOf', 'oneOf'] as const;
const MAP = ['properties', 'patternProperties', 'definitions'] as const;

/**
 * Walks a schema: under a union, `lenient` is set and unknown keys go. Values of the wrong JSON
 * type are left for validation (Go would refuse them; the type checker has already judged the
 * typed part).
 */
function walk(schema: Json, lenient: boolean): void {
  if (lenient) for (const key of Object.keys(schema)) if (!known().has(key)) delete schema[key];
  dropZeroValues(schema);
  for (const key of ONE) if (isObject(schema[key])) walk(schema[key] as Json, lenient);
  for (const key of LIST) if (Array.isArray(schema[key])) for (const s of schema[key] as unknown[]) if (isObject(s)) walk(s, lenient);
  for (const key of MAP) if (isObject(schema[key])) for (const s of Object.values(schema[key] as Json)) if (isObject(s)) walk(s, lenient);

  // items: a schema or a list of schemas; anything else decodes to nothing.
  const items = schema.items;
  if (isObject(items)) {
    walk(items, true);
  } else if (Array.isArray(items)) {
    for (const s of items) if (isObject(s)) walk(s, true);
  } else if (items !== undefined) {
    delete schema.items;
  }

  // additionalProperties / additionalItems: a bool or a schema (null is no value).
  for (const key of ['additionalProperties', 'additionalItems']) {
    const value = schema[key];
    if (isObject(value)) walk(value, true);
    else if (value === null) delete schema[key];
  }

  // dependencies: each a schema or a list of property names; anything else decodes to an empty union (`null`).
  const deps = schema.dependencies;
  if (isObject(deps)) {
    for (const [name, value] of Object.entries(deps)) {
      if (isObject(value)) walk(value, true);
      else if (!Array.isArray(value)) deps[name] = null;
    }
  }
}

const isEmpty = (v: unknown) => v === '' || v === false || v === 0 || (Array.isArray(v) && v.length === 0);

function dropEmpty(obj: unknown, keys: readonly string[]): void {
  if (!isObject(obj)) return;
  for (const key of keys) if (isEmpty(obj[key])) delete obj[key];
}

/** Applies Go's decoding and encoding to a CRD body: its names, versions, columns and every schema. */
export function decodeAsGo(crd: Json): void {
  const spec = crd.spec;
  if (!isObject(spec)) return;
  dropEmpty(spec.names, ['singular', 'shortNames', 'listKind', 'categories']);
  const versions = spec.versions;
  if (!Array.isArray(versions)) return;
  for (const v of versions) {
    if (!isObject(v)) continue;
    dropEmpty(v, ['deprecated', 'additionalPrinterColumns', 'selectableFields']);
    if (Array.isArray(v.additionalPrinterColumns)) for (const c of v.additionalPrinterColumns) dropEmpty(c, ['format', 'description', 'priority']);
    const schema = isObject(v.schema) ? (v.schema as Json).openAPIV3Schema : undefined;
    if (isObject(schema)) walk(schema, false);
  }
}
