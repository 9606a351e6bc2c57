/**
 * A structural schema as the JSON schema OpenAPI publishes (upstream's Structural.ToKubeOpenAPI,
 * pkg/apiserver/schema/kubeopenapi.go): faithful to the structural form, so junctors, nullable and
 * int-or-string come out as the structural schema holds them; the v2 rewrite happens before
 * (v2-conversion.ts). Keys come in the order kube-openapi's spec.Schema writes them (its struct
 * order, then the extensions sorted by name), so the served bytes are stable.
 */
import type { Extensions, Generic, NestedValueValidation, Structural, ValidationExtensions, ValueValidation } from '../schema/structural.ts';

export type JsonSchema = Record<string, unknown>;

/** The `x-kubernetes-*` extensions of a node, sorted by name as a Go map marshals them. */
function extensionEntries(x: Partial<Extensions> | undefined, v: ValidationExtensions | undefined): [string, unknown][] {
  const out: [string, unknown][] = [];
  if (x?.xEmbeddedResource) out.push(['x-kubernetes-embedded-resource', true]);
  if (x?.xIntOrString) out.push(['x-kubernetes-int-or-string', true]);
  if (x?.xListMapKeys && x.xListMapKeys.length > 0) out.push(['x-kubernetes-list-map-keys', [...x.xListMapKeys]]);
  if (x?.xListType !== undefined) out.push(['x-kubernetes-list-type', x.xListType]);
  if (x?.xMapType !== undefined) out.push(['x-kubernetes-map-type', x.xMapType]);
  if (x?.xPreserveUnknownFields) out.push(['x-kubernetes-preserve-unknown-fields', true]);
  if (v?.xValidations && v.xValidations.length > 0) {
    // ValidationRule's own field order, empty fields omitted.
    out.push(['x-kubernetes-validations', v.xValidations.map((r) => ({
      rule: r.rule,
      ...(r.message ? { message: r.message } : {}),
      ...(r.messageExpression ? { messageExpression: r.messageExpression } : {}),
      ...(r.reason ? { reason: r.reason } : {}),
      ...(r.fieldPath ? { fieldPath: r.fieldPath } : {}),
      ...(r.optionalOldSelf !== undefined ? { optionalOldSelf: r.optionalOldSelf } : {}),
    }))]);
  }
  return out;
}

/** The parts of a schema node, gathered before they are written in kube-openapi's key order. */
interface Parts {
  generic?: Partial<Generic>;
  value?: ValueValidation;
  items?: JsonSchema;
  properties?: Record<string, JsonSchema>;
  additionalProperties?: JsonSchema | boolean;
  extensions: [string, unknown][];
}

function write(p: Parts): JsonSchema {
  const out: JsonSchema = {};
  const g = p.generic;
  const v = p.value;
  if (g?.description) out.description = g.description;
  if (g?.type) out.type = g.type;
  if (g?.nullable) out.nullable = true;
  if (v?.format) out.format = v.format;
  if (g?.title) out.title = g.title;
  if (g?.default !== undefined && g.default !== null) out.default = g.default;
  if (v) {
    if (v.maximum !== undefined) out.maximum = v.maximum;
    if (v.exclusiveMaximum) out.exclusiveMaximum = true;
    if (v.minimum !== undefined) out.minimum = v.minimum;
    if (v.exclusiveMinimum) out.exclusiveMinimum = true;
    if (v.maxLength !== undefined) out.maxLength = v.maxLength;
    if (v.minLength !== undefined) out.minLength = v.minLength;
    if (v.pattern) out.pattern = v.pattern;
    if (v.maxItems !== undefined) out.maxItems = v.maxItems;
    if (v.minItems !== undefined) out.minItems = v.minItems;
    if (v.uniqueItems) out.uniqueItems = true;
    if (v.multipleOf !== undefined) out.multipleOf = v.multipleOf;
    if (v.enum && v.enum.length > 0) out.enum = [...v.enum];
    if (v.maxProperties !== undefined) out.maxProperties = v.maxProperties;
    if (v.minProperties !== undefined) out.minProperties = v.minProperties;
    if (v.required && v.required.length > 0) out.required = [...v.required];
  }
  if (p.items) out.items = p.items;
  if (v?.allOf && v.allOf.length > 0) out.allOf = v.allOf.map(nestedToJson);
  if (v?.oneOf && v.oneOf.length > 0) out.oneOf = v.oneOf.map(nestedToJson);
  if (v?.anyOf && v.anyOf.length > 0) out.anyOf = v.anyOf.map(nestedToJson);
  if (v?.not) out.not = nestedToJson(v.not);
  if (p.properties && Object.keys(p.properties).length > 0) out.properties = p.properties;
  if (p.additionalProperties !== undefined) out.additionalProperties = p.additionalProperties;
  for (const [k, x] of p.extensions) out[k] = x;
  return out;
}

function sortedProperties<T>(props: Record<string, T>, f: (v: T) => JsonSchema): Record<string, JsonSchema> {
  const out: Record<string, JsonSchema> = {};
  for (const k of Object.keys(props).sort()) out[k] = f(props[k]!);
  return out;
}

/** The JSON schema of a structural schema node (ToKubeOpenAPI). */
export function structuralToJson(s: Structural): JsonSchema {
  const ap = s.additionalProperties;
  return write({
    generic: s,
    value: s.valueValidation,
    ...(s.items ? { items: structuralToJson(s.items) } : {}),
    ...(s.properties ? { properties: sortedProperties(s.properties, structuralToJson) } : {}),
    ...(ap ? { additionalProperties: ap.structural ? structuralToJson(ap.structural) : ap.bool } : {}),
    extensions: extensionEntries(s, s),
  });
}

/** A junctor's content: value validation, plus the generics and extensions only int-or-string puts there. */
function nestedToJson(n: NestedValueValidation): JsonSchema {
  return write({
    generic: n.forbiddenGenerics,
    value: n,
    ...(n.items ? { items: nestedToJson(n.items) } : {}),
    ...(n.properties ? { properties: sortedProperties(n.properties, nestedToJson) } : {}),
    ...(n.additionalProperties ? { additionalProperties: nestedToJson(n.additionalProperties) } : {}),
    extensions: extensionEntries(n.forbiddenExtensions, n),
  });
}

/** kube-openapi's spec.Schema field order (SchemaProps, then SwaggerSchemaProps); extensions follow, sorted. */
const KEY_ORDER = [
  '$ref', 'description', 'type', 'nullable', 'format', 'title', 'default', 'maximum', 'exclusiveMaximum', 'minimum',
  'exclusiveMinimum', 'maxLength', 'minLength', 'pattern', 'maxItems', 'minItems', 'uniqueItems', 'multipleOf', 'enum',
  'maxProperties', 'minProperties', 'required', 'items', 'allOf', 'oneOf', 'anyOf', 'not', 'properties',
  'additionalProperties',
];
const RANK = new Map(KEY_ORDER.map((k, i) => [k, i]));

/** Reorders a schema's own keys (in place) as kube-openapi writes them, after keys were added. */
export function inSchemaKeyOrder(s: JsonSchema): void {
  const rank = (k: string) => RANK.get(k) ?? (k.startsWith('x-') ? KEY_ORDER.length + 1 : KEY_ORDER.length);
  const entries = Object.entries(s).sort(([a], [b]) => rank(a) - rank(b) || (rank(a) > KEY_ORDER.length ? (a < b ? -1 : a > b ? 1 : 0) : 0));
  for (const k of Object.keys(s)) delete s[k];
  for (const [k, v] of entries) s[k] = v;
}
