/**
 * Kubernetes 1.34's structural-schema machinery for CustomResourceDefinitions, self-contained: the
 * registry builds one Structural per served version (toStructural, then pruneDefaults) and runs, on
 * every custom resource it reads or writes:
 *
 *   decode:   prune → pruneNonNullableNullsWithoutDefaults → coerceEmbeddedObjectMeta → applyDefaults
 *   validate: validateValue (old object given on updates: ratcheting) → validateEmbeddedObjectMeta
 *             → validateListSetsAndMaps (skipped on updates when the old object already failed it)
 *             → x-kubernetes-validations (src/crd/cel)
 *
 * and, when a CRD is written, validateCrdSchema per version (with optionsForUpdate on updates) and
 * unrecognizedFormats for warnings.
 */
export type { JSONSchemaProps, ValidationRule } from './types.ts';
export type { Structural, StructuralOrBool, Generic, Extensions, ValidationExtensions, ValueValidation, NestedValueValidation } from './structural.ts';
export { toStructural, tryToStructural, StructuralConversionError } from './convert.ts';
export { validateStructural, type StructuralValidationOptions } from './validate-structural.ts';
export { unfold, stripValueValidations, stripNullable, deepCopyStructural } from './transform.ts';
export { prune } from './pruning.ts';
export { applyDefaults, pruneNonNullableNullsWithoutDefaults, pruneDefaults, DefaultPruningError } from './defaulting.ts';
export { validateDefaults, type CelDefaultValidator, type ValidateDefaultsOptions } from './validate-defaults.ts';
export { validateValue, validatorFor, ValueValidator, type ValidateOptions, type ValueValidatorOptions } from './value-validation/validator.ts';
export { isSupportedFormat, formatChecker } from './value-validation/formats.ts';
export { CorrelatedObject } from './correlation.ts';
export { validateListSetsAndMaps } from './listtype.ts';
export { coerceEmbeddedObjectMeta, type CoerceOptions, type CoerceResult } from './objectmeta/coerce.ts';
export { validateEmbeddedObjectMeta, validateEmbeddedResource } from './objectmeta/validate.ts';
export { getObjectMeta, setObjectMeta, roundTripObjectMeta, type GetObjectMetaOptions, type ObjectMetaResult } from './objectmeta/object-meta-json.ts';
export { validateCrdSchema, validateSelectableFields, type CrdSchemaOptions, type CrdCelHooks, type CelRuleSite, type CelStep } from './crd-validation.ts';
export { optionsForUpdate, unrecognizedFormats, schemaIsNonStructural, schemaHasUnprunedDefaults, hasNonAtomicSetType, hasInvalidMapListKeysMapSet, schemaHasInvalidTypes, schemaHas } from './crd-ratchets.ts';
export { aggregateText } from './field-errors.ts';
export { nonStructuralSchemaCondition, type NonStructuralCondition, type CrdSchemasView } from './non-structural-condition.ts';
