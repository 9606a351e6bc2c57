/**
 * CustomResourceDefinition validation rules (`x-kubernetes-validations`) as Kubernetes 1.34 has
 * them: checked and compiled when a CRD is written, evaluated on every write of its objects.
 *
 *   // CRD create/update: refuse what upstream refuses (paths from the schema's place)
 *   const rules = compileSchemaRules(structural, { path: 'spec.versions[0].schema.openAPIV3Schema', preexisting });
 *   if ('errors' in rules) throw invalid('apiextensions.k8s.io', 'CustomResourceDefinition', name, rules.errors);
 *
 *   // serving a stored CRD: no checks, every expression compiled as stored
 *   const served = compileSchemaRules(structural, { check: false }) as CompiledRules;
 *
 *   // custom resource create (old undefined) or update (ratcheting on)
 *   const errors = validateWithRules(served, object, oldObject, RUNTIME_CEL_COST_BUDGET, { warnings });
 *
 * Custom resources are typed by the schema (see values.ts); run the rules only on objects that
 * passed schema validation, as upstream does (blockingError tells when not to).
 */
import type { FieldError } from '../../api/errors.ts';
import { RUNTIME_CEL_COST_BUDGET } from '../../cel/index.ts';
import type { FieldPath } from '../../registry/validation/field.ts';
import { rootPath } from '../schema/field-errors.ts';
import type { Structural } from '../schema/structural.ts';
import type { JSONSchemaProps } from '../schema/types.ts';
import { NONE_STORED, type PreexistingExpressions, type StoredExpressions } from './rule-compiler.ts';
import { buildValidator, runValidator, type NodeValidator, type ValidationResult } from './validator.ts';
import { checkSchemaRules, estimateSchemaCosts, type ExpressionCost } from './write-checks.ts';

export { STATIC_ESTIMATED_COST_LIMIT, STATIC_ESTIMATED_CRD_COST_LIMIT } from './cost-limits.ts';
export { validFieldPath, type ValidPath } from './field-path.ts';
export { escapeName, unescapeName } from './escaping.ts';
export { ALL_STORED, NONE_STORED, type CompiledRule, type PreexistingExpressions, type StoredExpressions } from './rule-compiler.ts';
export type { ExpressionCost } from './write-checks.ts';
export type { ValidationResult } from './validator.ts';

/** RuntimeCELCostBudget: what the rules may cost together on one write of an object. */
export const RUNTIME_COST_BUDGET = RUNTIME_CEL_COST_BUDGET;

/** The compiled rules of a CRD version's schema, ready to validate its objects. */
export interface CompiledRules {
  /** The root's validator; undefined when the schema has no rules. */
  readonly validator: NodeValidator | undefined;
}

/** Why a CRD write is refused for its rules. */
export interface SchemaRuleErrors {
  readonly errors: FieldError[];
}

export interface CompileSchemaRulesOptions {
  /** Where the schema is in the CRD, for error paths (default `spec.validation.openAPIV3Schema`). */
  readonly path?: FieldPath | string;
  /** Check what a CRD write checks (default), or only compile the rules of a CRD already stored. */
  readonly check?: boolean;
  /** The expressions the CRD held before this update (see preexistingExpressions); none on create. */
  readonly preexisting?: PreexistingExpressions;
  /** The update did not change this version's schema: the per-expression cost limit is not applied. */
  readonly unchangedSchema?: boolean;
}

/**
 * Compiles the rules of a version's (structural, otherwise valid) schema. When checking, returns
 * the errors a CRD write gets for them instead if there are any: each rule's fields, compile
 * errors (`spec.validation.openAPIV3Schema.properties[spec].x-kubernetes-validations[0].rule:
 * Invalid value: …: compilation failed: ERROR: <input>:1:6: …`), oldSelf where nothing
 * correlates, and the estimated-cost limits.
 */
export function compileSchemaRules(schema: Structural, options: CompileSchemaRulesOptions = {}): CompiledRules | SchemaRuleErrors {
  if (options.check !== false) {
    const path = rootPath(options.path ?? 'spec.validation.openAPIV3Schema');
    const errors = checkSchemaRules(schema, path, { preexisting: options.preexisting ?? NONE_STORED, unchangedSchema: options.unchangedSchema === true });
    if (errors.length > 0) return { errors };
  }
  return { validator: buildValidator(schema, true) };
}

/**
 * The estimated cost of each rule (times how often it can run) and messageExpression of a
 * schema, and their total, as the CRD write limits weigh them (STATIC_ESTIMATED_COST_LIMIT for
 * each, STATIC_ESTIMATED_CRD_COST_LIMIT for the total).
 */
export function estimateCosts(schema: Structural, options: Pick<CompileSchemaRulesOptions, 'path' | 'preexisting'> = {}): { readonly expressions: ExpressionCost[]; readonly total: bigint } {
  return estimateSchemaCosts(schema, rootPath(options.path ?? 'spec.validation.openAPIV3Schema'), options.preexisting ?? NONE_STORED);
}

export interface ValidateOptions {
  /** Receives the ratcheted errors of an update, as upstream's warnings (`<field>: <message>`). */
  readonly warnings?: string[];
  /** Where the object is (default: its root, ''). */
  readonly path?: FieldPath | string;
}

/**
 * Evaluates the rules on an object being created (`oldObj` undefined) or updated, within `budget`
 * (RUNTIME_COST_BUDGET per request). Returns the field errors, with upstream's texts.
 */
export function validateWithRules(compiled: CompiledRules, obj: unknown, oldObj: unknown, budget: number = RUNTIME_COST_BUDGET, options: ValidateOptions = {}): FieldError[] {
  const result = validateRules(compiled, obj, oldObj, budget, options.path);
  options.warnings?.push(...result.warnings);
  return result.errors;
}

/** validateWithRules with its warnings and the budget left (negative once validation stopped). */
export function validateRules(compiled: CompiledRules, obj: unknown, oldObj: unknown, budget: number = RUNTIME_COST_BUDGET, path?: FieldPath | string): ValidationResult {
  return runValidator(compiled.validator, obj, oldObj, budget, rootPath(path));
}

/**
 * hasBlockingErr: schema validation errors that keep the rules from running (a wrong type, a
 * required field missing, too long or too many, an unsupported value), as the error upstream then
 * reports instead of the rules' results; undefined when the rules may run.
 */
export function blockingError(schemaErrors: readonly FieldError[]): FieldError | undefined {
  const blocking = schemaErrors.some((e) => ['FieldValueNotSupported', 'FieldValueRequired', 'FieldValueTooLong', 'FieldValueTooMany', 'FieldValueTypeInvalid'].includes(e.type));
  // field.Invalid(nil, …): a nil path prints as `<nil>`.
  return blocking ? { type: 'FieldValueInvalid', field: '<nil>', value: null, detail: 'some validation rules were not checked because the object was invalid; correct the existing errors to complete validation' } : undefined;
}

/**
 * The rules and message expressions anywhere in a CRD's schemas before an update
 * (findPreexistingExpressions): they keep compiling with every 1.34 library.
 */
export function preexistingExpressions(schemas: readonly (JSONSchemaProps | undefined)[]): StoredExpressions {
  const rules = new Set<string>();
  const messageExpressions = new Set<string>();
  const visit = (s: JSONSchemaProps | undefined | null): void => {
    if (!s || typeof s !== 'object') return;
    for (const v of s['x-kubernetes-validations'] ?? []) {
      rules.add(v.rule);
      if (v.messageExpression) messageExpressions.add(v.messageExpression);
    }
    const items = s.items;
    if (Array.isArray(items)) items.forEach(visit);
    else visit(items);
    for (const sub of [s.not, typeof s.additionalProperties === 'object' ? s.additionalProperties : undefined, typeof s.additionalItems === 'object' ? s.additionalItems : undefined]) visit(sub);
    for (const list of [s.allOf, s.oneOf, s.anyOf]) (list ?? []).forEach(visit);
    for (const map of [s.properties, s.patternProperties, s.definitions]) for (const sub of Object.values(map ?? {})) visit(sub);
    for (const dep of Object.values(s.dependencies ?? {})) if (!Array.isArray(dep)) visit(dep);
  };
  schemas.forEach(visit);
  return { rules, messageExpressions };
}
