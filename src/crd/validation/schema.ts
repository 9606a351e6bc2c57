/**
 * One schema of a CRD (top-level `spec.validation` or a version's `schema`), validated as
 * upstream's validateCustomResourceDefinitionValidation does: the structural-schema rules of
 * src/crd/schema, with the x-kubernetes-validations rules compiled and their costs checked by
 * src/crd/cel, and the defaults evaluated against those rules.
 */
import type { FieldError } from '../../api/errors.ts';
import { fieldErrorText } from '../../api/errors.ts';
import { RUNTIME_CEL_COST_BUDGET } from '../../cel/index.ts';
import type { FieldPath } from '../../registry/validation/field.ts';
import { compileSchemaRules, type PreexistingExpressions } from '../cel/index.ts';
import { buildValidator, runValidator } from '../cel/validator.ts';
import { tryToStructural, validateCrdSchema, type CrdSchemaOptions } from '../schema/index.ts';
import type { CelDefaultValidator } from '../schema/validate-defaults.ts';
import type { JSONSchemaProps } from '../schema/types.ts';

export interface SchemaCheckOptions {
  statusSubresourceEnabled: boolean;
  /** The ratchets of an update (optionsForUpdate), all required on create. */
  ratchets: Pick<CrdSchemaOptions, 'requireValidPropertyType' | 'requireStructuralSchema' | 'requirePrunedDefaults' | 'requireAtomicSetType' | 'requireMapListKeysMapSetValidation'>;
  preexisting: PreexistingExpressions;
  /** The update left this schema as it was: no per-expression cost limit. */
  unchangedSchema: boolean;
}

/**
 * Defaults must pass their node's rules (evaluated with the default as self and oldSelf, then,
 * when that passes, as on a create), within one runtime budget per schema.
 */
function defaultRuleValidator(): CelDefaultValidator {
  let budget = RUNTIME_CEL_COST_BUDGET;
  return (path, schema, value, isResourceRoot) => {
    if (budget < 0) return [];
    const validator = buildValidator(schema, isResourceRoot);
    if (!validator) return [];
    // The path given is the default's; upstream reports the rules under it.
    const asUpdate = runValidator(validator, value, value, budget, path);
    budget = asUpdate.remainingBudget ?? budget;
    if (asUpdate.errors.length > 0) return asUpdate.errors;
    const asCreate = runValidator(validator, value, undefined, budget, path);
    budget = asCreate.remainingBudget ?? budget;
    return asCreate.errors;
  };
}

const key = (e: FieldError) => `${e.type}\u0000${e.field}\u0000${fieldErrorText(e)}`;

/** The errors of `schemaPath`'s openAPIV3Schema (`schemaPath` is `spec.validation` or `spec.versions[i].schema`). */
export function schemaErrors(schema: JSONSchemaProps, schemaPath: FieldPath, opts: SchemaCheckOptions): FieldError[] {
  // src/crd/schema calls finish only for a schema that is structural with valid defaults, which
  // is when upstream compiles the rules; src/crd/cel then compiles and costs them all at once.
  const finish = (): FieldError[] => {
    const converted = tryToStructural(schema);
    if ('error' in converted) return [];
    const rules = compileSchemaRules(converted.structural, { path: schemaPath.child('openAPIV3Schema'), preexisting: opts.preexisting, unchangedSchema: opts.unchangedSchema });
    return 'errors' in rules ? rules.errors : [];
  };
  const errs = validateCrdSchema(schema, {
    path: schemaPath,
    statusSubresourceEnabled: opts.statusSubresourceEnabled,
    allowDefaults: true,
    ...opts.ratchets,
    cel: { validateRules: () => [], finish, validateDefault: defaultRuleValidator() },
  });
  // compileSchemaRules repeats the rule-field errors the schema walk already reported.
  const seen = new Set<string>();
  return errs.filter((e) => {
    const k = key(e);
    if (seen.has(k)) return false;
    seen.add(k);
    return true;
  });
}
