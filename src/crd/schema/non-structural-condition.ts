/**
 * The `NonStructuralSchema` condition of a stored CRD (upstream's nonstructuralschema controller):
 * set to True with reason `Violations` and the aggregated structural-schema errors of every version
 * (and `spec.preserveUnknownFields: Invalid value: true: must be false`), or with reason
 * `StructuralError` when a version's schema cannot even be converted; absent when all is well.
 */
import type { FieldError } from '../../api/errors.ts';
import * as field from '../../registry/validation/field.ts';
import type { JSONSchemaProps } from './types.ts';
import { tryToStructural } from './convert.ts';
import { validateStructural } from './validate-structural.ts';
import { aggregateText } from './field-errors.ts';

export interface NonStructuralCondition {
  type: 'NonStructuralSchema';
  status: 'True';
  reason: 'Violations' | 'StructuralError';
  message: string;
}

export interface CrdSchemasView {
  preserveUnknownFields?: boolean;
  versions: readonly { name: string; schema?: { openAPIV3Schema?: JSONSchemaProps } }[];
}

/** The condition a CRD should carry, or undefined when its schemas are all structural. */
export function nonStructuralSchemaCondition(spec: CrdSchemasView): NonStructuralCondition | undefined {
  const errs: FieldError[] = [];
  if (spec.preserveUnknownFields) errs.push(field.invalid(field.path('spec', 'preserveUnknownFields'), true, 'must be false'));
  for (let i = 0; i < spec.versions.length; i++) {
    const v = spec.versions[i]!;
    const schema = v.schema?.openAPIV3Schema;
    if (!schema) continue;
    const converted = tryToStructural(schema);
    if ('error' in converted) {
      return { type: 'NonStructuralSchema', status: 'True', reason: 'StructuralError', message: `failed to check validation schema for version ${v.name}: ${converted.error}` };
    }
    errs.push(...validateStructural(`spec.versions[${i}].schema.openAPIV3Schema`, converted.structural));
  }
  if (errs.length === 0) return undefined;
  return { type: 'NonStructuralSchema', status: 'True', reason: 'Violations', message: aggregateText(errs) };
}
