/**
 * json.Marshal of apiextensions' internal JSONSchemaProps, which has no JSON tags: Go field names,
 * every field present (zero values included), map keys sorted. Upstream prints a whole schema this
 * way in one error (`only [...] fields are allowed at the root of the schema if the status
 * subresource is enabled`).
 */
import { goJson, goStruct } from '../../api/go/values.ts';
import type { JSONSchemaProps, ValidationRule } from './types.ts';

type Internal = Record<string, unknown>;

const orNull = (v: unknown) => (v === undefined ? null : v);
const list = <T>(v: T[] | undefined, f: (x: T) => unknown) => (v === undefined ? null : v.map(f));

function map<T>(v: Record<string, T> | undefined, f: (x: T) => unknown): Internal | null {
  if (v === undefined || v === null) return null;
  const out: Internal = {};
  for (const k of Object.keys(v)) out[k] = f(v[k]!);
  return out;
}

function rule(r: ValidationRule): Internal {
  return goStruct({
    Rule: r.rule ?? '',
    Message: r.message ?? '',
    MessageExpression: r.messageExpression ?? '',
    Reason: orNull(r.reason),
    FieldPath: r.fieldPath ?? '',
    OptionalOldSelf: orNull(r.optionalOldSelf),
  });
}

function schemaOrBool(v: JSONSchemaProps | boolean | undefined): Internal | null {
  if (v === undefined || v === null) return null;
  return typeof v === 'boolean' ? goStruct({ Allows: v, Schema: null }) : goStruct({ Allows: true, Schema: internal(v) });
}

function internal(s: JSONSchemaProps): Internal {
  const items = s.items;
  return goStruct({
    ID: s.id ?? '',
    Schema: s.$schema ?? '',
    Ref: orNull(s.$ref),
    Description: s.description ?? '',
    Type: s.type ?? '',
    Nullable: s.nullable === true,
    Format: s.format ?? '',
    Title: s.title ?? '',
    Default: orNull(s.default),
    Maximum: orNull(s.maximum),
    ExclusiveMaximum: s.exclusiveMaximum === true,
    Minimum: orNull(s.minimum),
    ExclusiveMinimum: s.exclusiveMinimum === true,
    MaxLength: orNull(s.maxLength),
    MinLength: orNull(s.minLength),
    Pattern: s.pattern ?? '',
    MaxItems: orNull(s.maxItems),
    MinItems: orNull(s.minItems),
    UniqueItems: s.uniqueItems === true,
    MultipleOf: orNull(s.multipleOf),
    Enum: orNull(s.enum),
    MaxProperties: orNull(s.maxProperties),
    MinProperties: orNull(s.minProperties),
    Required: orNull(s.required),
    Items:
      items === undefined || items === null
        ? null
        : Array.isArray(items)
          ? goStruct({ Schema: null, JSONSchemas: items.map(internal) })
          : goStruct({ Schema: internal(items), JSONSchemas: null }),
    AllOf: list(s.allOf, internal),
    OneOf: list(s.oneOf, internal),
    AnyOf: list(s.anyOf, internal),
    Not: s.not ? internal(s.not) : null,
    Properties: map(s.properties, internal),
    AdditionalProperties: schemaOrBool(s.additionalProperties),
    PatternProperties: map(s.patternProperties, internal),
    Dependencies: map(s.dependencies, (d) => (Array.isArray(d) ? goStruct({ Schema: null, Property: d }) : goStruct({ Schema: internal(d), Property: null }))),
    AdditionalItems: schemaOrBool(s.additionalItems),
    Definitions: map(s.definitions, internal),
    ExternalDocs: s.externalDocs ? goStruct({ Description: s.externalDocs.description ?? '', URL: s.externalDocs.url ?? '' }) : null,
    Example: orNull(s.example),
    XPreserveUnknownFields: orNull(s['x-kubernetes-preserve-unknown-fields']),
    XEmbeddedResource: s['x-kubernetes-embedded-resource'] === true,
    XIntOrString: s['x-kubernetes-int-or-string'] === true,
    XListMapKeys: orNull(s['x-kubernetes-list-map-keys']),
    XListType: orNull(s['x-kubernetes-list-type']),
    XMapType: orNull(s['x-kubernetes-map-type']),
    XValidations: list(s['x-kubernetes-validations'], rule),
  });
}

/** The Go JSON of an internal JSONSchemaProps. */
export function internalSchemaJson(s: JSONSchemaProps): string {
  return goJson(internal(s));
}

/** The internal JSONSchemaProps as a value for goJson (to embed a schema in a larger Go value). */
export function internalSchemaStruct(s: JSONSchemaProps): Record<string, unknown> {
  return internal(s);
}
