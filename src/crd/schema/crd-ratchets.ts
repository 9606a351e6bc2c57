/**
 * What a CRD update may keep that a new CRD may not (upstream's require* functions of
 * validation.go): a rule introduced after a CRD was stored is only enforced on updates when the
 * stored CRD already satisfied it, so that existing CRDs stay updatable. Also the warnings for
 * formats 1.34 does not validate (`unrecognized format "foo"`).
 */
import type { JSONSchemaProps } from './types.ts';
import type { CrdSchemaOptions } from './crd-validation.ts';
import { mapListKeysMapSetErrors } from './crd-validation.ts';
import { tryToStructural } from './convert.ts';
import { validateStructural } from './validate-structural.ts';
import { pruneDefaults } from './defaulting.ts';
import { isSupportedFormat } from './value-validation/formats.ts';
import { path } from '../../registry/validation/field.ts';
import { deepEqualJson } from './json.ts';
import { propertyOf, type Structural } from './structural.ts';

const OPENAPI_V3_TYPES = new Set(['string', 'number', 'integer', 'boolean', 'array', 'object']);

/** Whether `pred` holds at any node of the schema (upstream's SchemaHas). */
export function schemaHas(s: JSONSchemaProps | undefined | null, pred: (s: JSONSchemaProps) => boolean): boolean {
  if (!s) return false;
  if (pred(s)) return true;
  const items = s.items;
  if (Array.isArray(items)) {
    if (items.some((x) => schemaHas(x, pred))) return true;
  } else if (schemaHas(items, pred)) {
    return true;
  }
  for (const list of [s.allOf, s.anyOf, s.oneOf]) if (list?.some((x) => schemaHas(x, pred))) return true;
  if (schemaHas(s.not, pred)) return true;
  for (const m of [s.properties, s.patternProperties, s.definitions]) {
    if (m && Object.values(m).some((x) => schemaHas(x, pred))) return true;
  }
  for (const x of [s.additionalProperties, s.additionalItems]) if (typeof x === 'object' && schemaHas(x, pred)) return true;
  if (s.dependencies && Object.values(s.dependencies).some((d) => !Array.isArray(d) && schemaHas(d, pred))) return true;
  return false;
}

export function schemaHasDefaults(s: JSONSchemaProps): boolean {
  return schemaHas(s, (x) => x.default !== undefined && x.default !== null);
}

/** The schema cannot be converted, or is not structural (upstream's schemaIsNonStructural). */
export function schemaIsNonStructural(s: JSONSchemaProps): boolean {
  const converted = tryToStructural(s);
  if ('error' in converted) return true;
  return validateStructural(undefined, converted.structural).length > 0;
}

/** A structural schema whose defaults pruning would change (upstream's schemaHasUnprunedDefaults). */
export function schemaHasUnprunedDefaults(s: JSONSchemaProps): boolean {
  if (!schemaHasDefaults(s)) return false;
  const converted = tryToStructural(s);
  if ('error' in converted || validateStructural(undefined, converted.structural).length > 0) return false;
  try {
    return !sameDefaults(converted.structural, pruneDefaults(converted.structural));
  } catch {
    return false;
  }
}

function sameDefaults(a: Structural | undefined, b: Structural | undefined): boolean {
  if (!a || !b) return a === b;
  if (!deepEqualJson(a.default ?? null, b.default ?? null)) return false;
  if (!sameDefaults(a.items, b.items)) return false;
  if (!sameDefaults(a.additionalProperties?.structural, b.additionalProperties?.structural)) return false;
  for (const k of Object.keys(a.properties ?? {})) if (!sameDefaults(a.properties![k], propertyOf(b, k))) return false;
  return true;
}

/** A set list whose items are not atomic (upstream's hasNonAtomicSetType). */
export function hasNonAtomicSetType(s: JSONSchemaProps): boolean {
  return schemaHas(s, (x) => {
    const items = x.items;
    if (x['x-kubernetes-list-type'] !== 'set' || !items || Array.isArray(items)) return false;
    if (items.type === 'array') return items['x-kubernetes-list-type'] !== undefined && items['x-kubernetes-list-type'] !== 'atomic';
    if (items.type === 'object') return items['x-kubernetes-map-type'] !== 'atomic';
    return false;
  });
}

export function hasInvalidMapListKeysMapSet(s: JSONSchemaProps): boolean {
  return schemaHas(s, (x) => mapListKeysMapSetErrors(x, path('')).length > 0);
}

export function schemaHasInvalidTypes(s: JSONSchemaProps): boolean {
  return schemaHas(s, (x) => x.type !== undefined && x.type !== '' && !OPENAPI_V3_TYPES.has(x.type));
}

/**
 * The validateCrdSchema ratchets for an update, from the schemas of every version of the stored
 * CRD (upstream computes them per CRD, not per version).
 */
export function optionsForUpdate(oldSchemas: readonly (JSONSchemaProps | undefined)[]): Pick<
  CrdSchemaOptions,
  'requireValidPropertyType' | 'requireStructuralSchema' | 'requirePrunedDefaults' | 'requireAtomicSetType' | 'requireMapListKeysMapSetValidation'
> {
  const schemas = oldSchemas.filter((s): s is JSONSchemaProps => !!s);
  return {
    requireValidPropertyType: !schemas.some(schemaHasInvalidTypes),
    requireStructuralSchema: !schemas.some(schemaIsNonStructural),
    requirePrunedDefaults: !schemas.some(schemaHasUnprunedDefaults),
    requireAtomicSetType: !schemas.some(hasNonAtomicSetType),
    requireMapListKeysMapSetValidation: !schemas.some(hasInvalidMapListKeysMapSet),
  };
}

/** The formats of string fields 1.34 does not validate, for `unrecognized format "…"` warnings. */
export function unrecognizedFormats(s: JSONSchemaProps): string[] {
  const out: string[] = [];
  schemaHas(s, (x) => {
    if (x.format && x.type === 'string' && !isSupportedFormat(x.format)) out.push(x.format);
    return false;
  });
  return out;
}
