/**
 * JSONSchemaProps → Structural (upstream's NewStructural, pkg/apiserver/schema/convert.go).
 *
 * The conversion keeps everything a structural schema can say and refuses, with upstream's error
 * texts, what it cannot hold: `items` as a list, `id`, `$schema`, `$ref`, `patternProperties`,
 * `dependencies`, `additionalItems`, `definitions`, and `x-kubernetes-preserve-unknown-fields: false`.
 * A schema that passed validateCrdSchema never fails here. `example` and `externalDocs` are dropped.
 *
 * A JSON `null` default is no default (Go decodes it into a nil pointer); a `default` is kept as the
 * very value of the schema, so callers that mutate defaults (pruneDefaults) copy first.
 */
import type { JSONSchemaProps } from './types.ts';
import type { Extensions, Generic, NestedValueValidation, Structural, ValidationExtensions, ValueValidation } from './structural.ts';

/** Why a JSONSchemaProps has no structural form; the message is upstream's. */
export class StructuralConversionError extends Error {
  override readonly name = 'StructuralConversionError';
}

/**
 * The structural schema of `props`. Throws StructuralConversionError for the fields a structural
 * schema cannot hold (see the module comment); use validateStructural on the result to learn
 * whether it is structural in the CRD sense.
 *
 * @example
 * const s = toStructural({ type: 'object', properties: { spec: { type: 'object', 'x-kubernetes-preserve-unknown-fields': true } } });
 * s.properties!.spec.xPreserveUnknownFields // true
 */
export function toStructural(props: JSONSchemaProps): Structural {
  checkUnsupportedFields(props);
  const s: Structural = {
    ...generic(props),
    ...extensions(props),
    ...validationExtensions(props),
    valueValidation: valueValidation(props),
  };
  if (props.items !== undefined && props.items !== null) {
    s.items = toStructural(singleItems(props.items));
  }
  if (props.properties && Object.keys(props.properties).length > 0) {
    const properties: Record<string, Structural> = Object.create(null);
    for (const [k, v] of Object.entries(props.properties)) properties[k] = toStructural(v ?? {});
    s.properties = properties;
  }
  const ap = props.additionalProperties;
  if (ap !== undefined && ap !== null) {
    s.additionalProperties = typeof ap === 'boolean' ? { bool: ap } : { structural: toStructural(ap), bool: true };
  }
  return s;
}

/** The structural schema, or the conversion error's message (for callers that report rather than throw). */
export function tryToStructural(props: JSONSchemaProps): { structural: Structural } | { error: string } {
  try {
    return { structural: toStructural(props) };
  } catch (e) {
    if (e instanceof StructuralConversionError) return { error: e.message };
    throw e;
  }
}

function singleItems(items: JSONSchemaProps | JSONSchemaProps[]): JSONSchemaProps {
  if (Array.isArray(items)) {
    throw new StructuralConversionError("OpenAPIV3Schema 'items' must be a schema, but is an array");
  }
  return items;
}

function generic(props: JSONSchemaProps): Generic {
  const g: Generic = { type: props.type ?? '', nullable: props.nullable === true };
  if (props.description) g.description = props.description;
  if (props.title) g.title = props.title;
  if (props.default !== undefined && props.default !== null) g.default = props.default;
  return g;
}

function extensions(props: JSONSchemaProps): Extensions {
  const preserve = props['x-kubernetes-preserve-unknown-fields'];
  if (preserve === false) {
    throw new StructuralConversionError("internal error: 'x-kubernetes-preserve-unknown-fields' must be true or undefined");
  }
  const x: Extensions = {
    xPreserveUnknownFields: preserve === true,
    xEmbeddedResource: props['x-kubernetes-embedded-resource'] === true,
    xIntOrString: props['x-kubernetes-int-or-string'] === true,
  };
  const keys = props['x-kubernetes-list-map-keys'];
  if (keys && keys.length > 0) x.xListMapKeys = keys;
  const listType = props['x-kubernetes-list-type'];
  if (listType !== undefined && listType !== null) x.xListType = listType;
  const mapType = props['x-kubernetes-map-type'];
  if (mapType !== undefined && mapType !== null) x.xMapType = mapType;
  return x;
}

function validationExtensions(props: JSONSchemaProps): ValidationExtensions {
  const rules = props['x-kubernetes-validations'];
  return rules && rules.length > 0 ? { xValidations: rules } : {};
}

/** The keyword fields of a node, only those set (upstream's pointers: nil is unset). */
function valueValidation(props: JSONSchemaProps): ValueValidation {
  const v: ValueValidation = {};
  if (props.format) v.format = props.format;
  if (isNumber(props.maximum)) v.maximum = props.maximum;
  if (props.exclusiveMaximum) v.exclusiveMaximum = true;
  if (isNumber(props.minimum)) v.minimum = props.minimum;
  if (props.exclusiveMinimum) v.exclusiveMinimum = true;
  if (isNumber(props.maxLength)) v.maxLength = props.maxLength;
  if (isNumber(props.minLength)) v.minLength = props.minLength;
  if (props.pattern) v.pattern = props.pattern;
  if (isNumber(props.maxItems)) v.maxItems = props.maxItems;
  if (isNumber(props.minItems)) v.minItems = props.minItems;
  if (props.uniqueItems) v.uniqueItems = true;
  if (isNumber(props.multipleOf)) v.multipleOf = props.multipleOf;
  if (props.enum && props.enum.length > 0) v.enum = props.enum;
  if (isNumber(props.maxProperties)) v.maxProperties = props.maxProperties;
  if (isNumber(props.minProperties)) v.minProperties = props.minProperties;
  if (props.required && props.required.length > 0) v.required = props.required;
  if (props.allOf && props.allOf.length > 0) v.allOf = props.allOf.map(nested);
  if (props.oneOf && props.oneOf.length > 0) v.oneOf = props.oneOf.map(nested);
  if (props.anyOf && props.anyOf.length > 0) v.anyOf = props.anyOf.map(nested);
  if (props.not !== undefined && props.not !== null) v.not = nested(props.not);
  return v;
}

function isNumber(n: unknown): n is number {
  return typeof n === 'number';
}

/** A node under allOf/anyOf/oneOf/not: value validation, and what it may not carry kept aside. */
function nested(props: JSONSchemaProps): NestedValueValidation {
  checkUnsupportedFields(props ?? {});
  const p = props ?? {};
  const n: NestedValueValidation = {
    ...valueValidation(p),
    ...validationExtensions(p),
    forbiddenGenerics: generic(p),
    forbiddenExtensions: extensions(p),
  };
  if (p.items !== undefined && p.items !== null) n.items = nested(singleItems(p.items));
  if (p.properties) {
    const properties: Record<string, NestedValueValidation> = Object.create(null);
    for (const [k, v] of Object.entries(p.properties)) properties[k] = nested(v ?? {});
    n.properties = properties;
  }
  const ap = p.additionalProperties;
  if (ap !== undefined && ap !== null) {
    // `additionalProperties: false` under a junctor says nothing structural; upstream drops it.
    if (typeof ap !== 'boolean') n.additionalProperties = nested(ap);
    else if (ap) n.additionalProperties = emptyNested();
  }
  return n;
}

export function emptyNested(): NestedValueValidation {
  return { forbiddenGenerics: { type: '', nullable: false }, forbiddenExtensions: { xPreserveUnknownFields: false, xEmbeddedResource: false, xIntOrString: false } };
}

/** The fields validation refuses; NewStructural double-checks them. */
function checkUnsupportedFields(p: JSONSchemaProps): void {
  if (p.id) throw new StructuralConversionError("OpenAPIV3Schema 'id' is not supported");
  if (p.$schema) throw new StructuralConversionError("OpenAPIV3Schema 'schema' is not supported");
  if (p.$ref) throw new StructuralConversionError("OpenAPIV3Schema '$ref' is not supported");
  if (p.patternProperties && Object.keys(p.patternProperties).length > 0) throw new StructuralConversionError("OpenAPIV3Schema 'patternProperties' is not supported");
  if (p.dependencies && Object.keys(p.dependencies).length > 0) throw new StructuralConversionError("OpenAPIV3Schema 'dependencies' is not supported");
  if (p.additionalItems !== undefined && p.additionalItems !== null) throw new StructuralConversionError("OpenAPIV3Schema 'additionalItems' is not supported");
  if (p.definitions && Object.keys(p.definitions).length > 0) throw new StructuralConversionError("OpenAPIV3Schema 'definitions' is not supported");
}
