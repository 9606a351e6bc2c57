/**
 * What serving one version of a CRD needs from its schema, built once per kind: the structural schema
 * (defaults pruned, as upstream serves them), the type schema the generic machinery walks, the
 * compiled x-kubernetes-validations, and whether unknown fields are kept (no pruning).
 */
import { compileSchemaRules, type CompiledRules } from '../cel/index.ts';
import { pruneDefaults, toStructural } from '../schema/index.ts';
import type { Structural } from '../schema/structural.ts';
import type { ObjectSchema } from '../../schema/type-schema.ts';
import type { CrdVersion, CustomResourceDefinition } from '../validation/types.ts';
import { customResourceTypeSchema } from './type-schema.ts';

export interface VersionSchema {
  readonly group: string;
  readonly kind: string;
  readonly apiVersion: string;
  /** Undefined when the version has no schema (only possible for CRDs stored before v1). */
  readonly structural: Structural | undefined;
  readonly typeSchema: ObjectSchema;
  readonly rules: CompiledRules;
  /** spec.preserveUnknownFields (v1beta1 CRDs): nothing is pruned. */
  readonly preserveUnknownFields: boolean;
}

function structuralOf(version: CrdVersion): Structural | undefined {
  const props = version.schema?.openAPIV3Schema;
  if (!props) return undefined;
  try {
    return pruneDefaults(toStructural(props));
  } catch {
    // A stored CRD's schema was validated on write; one that still does not convert is served untyped.
    return undefined;
  }
}

/**
 * The type schema alone of one version (what server-side apply types that version's objects by),
 * without compiling its validation rules.
 */
export function customResourceVersionTypeSchema(version: CrdVersion): ObjectSchema {
  return customResourceTypeSchema(structuralOf(version));
}

export function customResourceVersionSchema(crd: CustomResourceDefinition, version: CrdVersion, kind: string): VersionSchema {
  const structural = structuralOf(version);
  let rules: CompiledRules = { validator: undefined };
  if (structural) {
    try {
      rules = compileSchemaRules(structural, { check: false }) as CompiledRules;
    } catch {
      rules = { validator: undefined };
    }
  }
  const group = crd.spec?.group ?? '';
  return {
    group,
    kind,
    apiVersion: `${group}/${version.name ?? ''}`,
    structural,
    typeSchema: customResourceTypeSchema(structural),
    rules,
    preserveUnknownFields: crd.spec?.preserveUnknownFields === true,
  };
}
