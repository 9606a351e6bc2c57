/**
 * A structural schema compiled once into what kube-openapi's SchemaValidator reads of a spec.Schema
 * (types, format, value constraints, sub-schemas), with its pattern compiled and its format check
 * resolved, so that validating an object allocates nothing per schema.
 *
 * Two flavours, as upstream builds two kinds of validators:
 * - `customResource` (the default): the validator of custom resources, built from the CRD's
 *   JSONSchemaProps (NewSchemaValidator): formats 1.34 does not support are stripped and
 *   x-kubernetes-int-or-string reads as `type: [integer, string]`;
 * - `structural`: the validator of default values (ToKubeOpenAPI of the structural schema):
 *   formats kept as written, an int-or-string node has no type.
 */
import type { GoRegexp } from '../../../cel/runtime/re2.ts';
import { compileRe2 } from '../../../cel/runtime/re2.ts';
import type { NestedValueValidation, Structural, ValueValidation } from '../structural.ts';
import { formatChecker, isSupportedFormat } from './formats.ts';

export type ValidatorFlavour = 'customResource' | 'structural';

export interface CompiledSchema {
  /** spec.Schema's Type (empty: unset). */
  readonly types: readonly string[];
  readonly nullable: boolean;
  /** spec.Schema's Format as the validator sees it ('' when unset or stripped). */
  readonly format: string;
  /** The registry's check of `format`, when the registry knows it. */
  readonly formatCheck: ((s: string) => boolean) | undefined;
  readonly enum: readonly unknown[] | undefined;
  readonly maximum: number | undefined;
  readonly exclusiveMaximum: boolean;
  readonly minimum: number | undefined;
  readonly exclusiveMinimum: boolean;
  readonly multipleOf: number | undefined;
  readonly maxLength: number | undefined;
  readonly minLength: number | undefined;
  readonly pattern: string;
  readonly patternRe: GoRegexp | undefined;
  readonly patternError: string | undefined;
  readonly maxItems: number | undefined;
  readonly minItems: number | undefined;
  readonly uniqueItems: boolean;
  readonly items: CompiledSchema | undefined;
  readonly maxProperties: number | undefined;
  readonly minProperties: number | undefined;
  readonly required: readonly string[] | undefined;
  /** Null-prototype: indexable by any key. */
  readonly properties: Readonly<Record<string, CompiledSchema>> | undefined;
  readonly propertyNames: readonly string[];
  /** additionalProperties: `allows` false forbids unknown keys; `schema` validates them. */
  readonly additionalProperties: { readonly allows: boolean; readonly schema: CompiledSchema | undefined } | undefined;
  readonly allOf: readonly CompiledSchema[] | undefined;
  readonly anyOf: readonly CompiledSchema[] | undefined;
  readonly oneOf: readonly CompiledSchema[] | undefined;
  readonly not: CompiledSchema | undefined;
}

interface Generic {
  type: string;
  nullable: boolean;
  intOrString: boolean;
}

/** Compiles a structural schema (and everything under it) for value validation. */
export function compileSchema(s: Structural, flavour: ValidatorFlavour): CompiledSchema {
  const props = s.properties;
  let properties: Record<string, CompiledSchema> | undefined;
  if (props) {
    properties = Object.create(null) as Record<string, CompiledSchema>;
    for (const k of Object.keys(props)) properties[k] = compileSchema(props[k]!, flavour);
  }
  let additionalProperties: CompiledSchema['additionalProperties'];
  if (s.additionalProperties) {
    const ap = s.additionalProperties;
    additionalProperties = ap.structural
      ? { allows: true, schema: compileSchema(ap.structural, flavour) }
      : { allows: ap.bool, schema: undefined };
  }
  return build(
    { type: s.type, nullable: s.nullable, intOrString: s.xIntOrString },
    s.valueValidation ?? {},
    s.items ? compileSchema(s.items, flavour) : undefined,
    properties,
    additionalProperties,
    flavour,
  );
}

function compileNested(n: NestedValueValidation, flavour: ValidatorFlavour): CompiledSchema {
  let properties: Record<string, CompiledSchema> | undefined;
  if (n.properties) {
    properties = Object.create(null) as Record<string, CompiledSchema>;
    for (const k of Object.keys(n.properties)) properties[k] = compileNested(n.properties[k]!, flavour);
  }
  return build(
    { type: n.forbiddenGenerics.type, nullable: n.forbiddenGenerics.nullable, intOrString: n.forbiddenExtensions.xIntOrString },
    n,
    n.items ? compileNested(n.items, flavour) : undefined,
    properties,
    n.additionalProperties ? { allows: true, schema: compileNested(n.additionalProperties, flavour) } : undefined,
    flavour,
  );
}

function build(
  g: Generic,
  v: ValueValidation,
  items: CompiledSchema | undefined,
  properties: Record<string, CompiledSchema> | undefined,
  additionalProperties: CompiledSchema['additionalProperties'],
  flavour: ValidatorFlavour,
): CompiledSchema {
  const types = flavour === 'customResource' && g.intOrString ? ['integer', 'string'] : g.type ? [g.type] : [];
  let format = v.format ?? '';
  if (flavour === 'customResource' && format !== '' && !isSupportedFormat(format)) format = '';
  let patternRe: GoRegexp | undefined;
  let patternError: string | undefined;
  if (v.pattern) {
    try {
      patternRe = compileRe2(v.pattern);
    } catch (e) {
      patternError = (e as Error).message;
    }
  }
  return {
    types,
    nullable: g.nullable,
    format,
    formatCheck: format ? formatChecker(format) : undefined,
    enum: v.enum && v.enum.length > 0 ? v.enum : undefined,
    maximum: v.maximum,
    exclusiveMaximum: v.exclusiveMaximum === true,
    minimum: v.minimum,
    exclusiveMinimum: v.exclusiveMinimum === true,
    multipleOf: v.multipleOf,
    maxLength: v.maxLength,
    minLength: v.minLength,
    pattern: v.pattern ?? '',
    patternRe,
    patternError,
    maxItems: v.maxItems,
    minItems: v.minItems,
    uniqueItems: v.uniqueItems === true,
    items,
    maxProperties: v.maxProperties,
    minProperties: v.minProperties,
    required: v.required && v.required.length > 0 ? v.required : undefined,
    properties,
    propertyNames: properties ? Object.keys(properties) : [],
    additionalProperties,
    allOf: v.allOf?.map((n) => compileNested(n, flavour)),
    anyOf: v.anyOf?.map((n) => compileNested(n, flavour)),
    oneOf: v.oneOf?.map((n) => compileNested(n, flavour)),
    not: v.not ? compileNested(v.not, flavour) : undefined,
  };
}
