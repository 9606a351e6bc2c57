/**
 * The structural schema of a CustomResourceDefinition version, as apiextensions-apiserver 1.34 keeps
 * it (pkg/apiserver/schema/structural.go): the one shape the pruning, defaulting, value validation,
 * server-side apply and CEL code walk. A structural schema names a `type` at every level and keeps the
 * logical junctors (allOf/anyOf/oneOf/not) only as value validation that adds no fields of its own.
 *
 * Upstream embeds Generic, Extensions and ValidationExtensions in Structural; here `Structural` extends
 * those interfaces, so `s.type`, `s.xPreserveUnknownFields` and `s.xValidations` read as they do there.
 * Built by `toStructural` (convert.ts) from a JSONSchemaProps; never mutate one once built (they are
 * shared by every request of a CRD version).
 */
import type { ValidationRule } from './types.ts';

/** The fields every schema node may carry whatever its place (upstream's Generic). */
export interface Generic {
  description?: string;
  /** One of array, boolean, integer, number, object, string; '' only where x-kubernetes-int-or-string or preserve-unknown-fields allow it. */
  type: string;
  title?: string;
  /** The default value; `undefined` is "no default" (a JSON `null` default is upstream's nil Object too). */
  default?: unknown;
  nullable: boolean;
}

/** The `x-kubernetes-*` extensions that shape a node (upstream's Extensions). */
export interface Extensions {
  xPreserveUnknownFields: boolean;
  xEmbeddedResource: boolean;
  xIntOrString: boolean;
  xListMapKeys?: string[];
  /** atomic, set or map (undefined: not set). */
  xListType?: string;
  /** granular or atomic (undefined: not set). */
  xMapType?: string;
}

/** `x-kubernetes-validations` of a node (upstream's ValidationExtensions); src/crd/cel evaluates them. */
export interface ValidationExtensions {
  xValidations?: ValidationRule[];
}

/** The value constraints of a node (upstream's ValueValidation). Undefined fields are unset. */
export interface ValueValidation {
  format?: string;
  maximum?: number;
  exclusiveMaximum?: boolean;
  minimum?: number;
  exclusiveMinimum?: boolean;
  maxLength?: number;
  minLength?: number;
  pattern?: string;
  maxItems?: number;
  minItems?: number;
  uniqueItems?: boolean;
  multipleOf?: number;
  enum?: unknown[];
  maxProperties?: number;
  minProperties?: number;
  required?: string[];
  allOf?: NestedValueValidation[];
  oneOf?: NestedValueValidation[];
  anyOf?: NestedValueValidation[];
  not?: NestedValueValidation;
}

/**
 * A node inside a logical junctor: value validation only (upstream embeds ValueValidation and
 * ValidationExtensions; here it extends them). The generics and extensions a junctor may not carry are kept in `forbiddenGenerics`/`forbiddenExtensions` so validateStructural can name them.
 */
export interface NestedValueValidation extends ValueValidation, ValidationExtensions {
  items?: NestedValueValidation;
  properties?: Record<string, NestedValueValidation>;
  additionalProperties?: NestedValueValidation;
  forbiddenGenerics: Generic;
  forbiddenExtensions: Extensions;
}

/** `additionalProperties`: a schema, or a boolean (upstream's StructuralOrBool). */
export interface StructuralOrBool {
  structural?: Structural;
  bool: boolean;
}

/** One node of a structural schema. */
export interface Structural extends Generic, Extensions, ValidationExtensions {
  items?: Structural;
  /** Null-prototype record: safe to index with any object key. */
  properties?: Record<string, Structural>;
  additionalProperties?: StructuralOrBool;
  valueValidation?: ValueValidation;
}

/**
 * The schema of property `k` of `s`, or undefined. Safe for any key, also on hand-built schemas
 * whose `properties` is a plain object (where `constructor` would otherwise resolve).
 */
export function propertyOf(s: Structural, k: string): Structural | undefined {
  const props = s.properties;
  return props !== undefined && Object.hasOwn(props, k) ? props[k] : undefined;
}
