/**
 * Evaluating a CRD's `x-kubernetes-validations` on an object (apiextensions validation.go's
 * Validator): a tree parallel to the schema holding each node's compiled rules, walked with the
 * object (and, on update, the old object).
 *
 * - A node's rules see the node's value as `self`; null values are not validated (the enclosing
 *   node's rules can check for them). A rule using `oldSelf` runs only where an old value
 *   correlates: the same field of the old object, or in a map list the old item with the same
 *   keys; other lists and sets correlate nothing. With `optionalOldSelf`, it runs without one too,
 *   `oldSelf` then being an optional.
 * - Each evaluation may cost PER_CALL_LIMIT; all of them together the budget given
 *   (RuntimeCELCostBudget for a request). Running out stops validation with upstream's error.
 * - A failing rule reports its message, its messageExpression's result, or `failed rule: <rule>`,
 *   as its reason's error type at the node or at its fieldPath.
 * - Ratcheting (on update): a failing rule without `oldSelf` whose value (or nearest correlatable
 *   ancestor) the update left unchanged yields a warning instead of an error.
 * - Rules under allOf run at their node; anyOf, oneOf and not are not evaluated.
 */
import type { FieldError } from '../../api/errors.ts';
import { goQuote } from '../../api/go/quote.ts';
import { CelEvalError, CelOptional, COST_LIMIT_EXCEEDED, PER_CALL_LIMIT, type CelProgram, type CelValue, type EvalResult } from '../../cel/index.ts';
import * as field from '../../registry/validation/field.ts';
import { FieldPath } from '../../registry/validation/field.ts';
import { fieldErrorString } from '../schema/field-errors.ts';
import { CorrelatedObject } from '../schema/correlation.ts';
import { isJsonObject } from '../schema/json.ts';
import type { Structural } from '../schema/structural.ts';
import type { ValidationRule } from '../schema/types.ts';
import { listCorrelatesItems, mapIsCorrelatable } from './correlation.ts';
import { schemaDeclType, withTypeAndObjectMeta, type DeclType } from './decl-type.ts';
import { escapeName } from './escaping.ts';
import { nestedToStructural } from './nested.ts';
import { ALL_STORED, compileRules, type CompiledRule } from './rule-compiler.ts';
import { toCelValue } from './values.ts';

/** apiserver's MaxEvaluatedMessageExpressionSizeBytes. */
const MAX_MESSAGE_EXPRESSION_BYTES = 5 * 1024;
const OUT_OF_BUDGET = 'validation failed due to running out of cost budget, no further validation rules will be run';

/** The validator of one schema node and of the nodes below it that have rules. */
export interface NodeValidator {
  readonly schema: Structural;
  readonly rules: readonly ValidationRule[];
  readonly compiled: readonly CompiledRule[];
  /** Why the node's rules could not be compiled at all. */
  readonly compilationError?: Error;
  /** The root of the custom resource or of an embedded resource (kind, apiVersion, metadata declared). */
  readonly isResourceRoot: boolean;
  readonly items?: NodeValidator;
  readonly properties?: ReadonlyMap<string, NodeValidator>;
  readonly additionalProperties?: NodeValidator;
  readonly allOf?: readonly NodeValidator[];
  /** The most one evaluation may cost (PER_CALL_LIMIT; tests lower it). */
  readonly perCallLimit: number;
}

function hasRules(s: Structural | undefined): boolean {
  if (!s) return false;
  if ((s.xValidations?.length ?? 0) > 0) return true;
  if (hasRules(s.items) || hasRules(s.additionalProperties?.structural)) return true;
  return Object.values(s.properties ?? {}).some(hasRules);
}

/**
 * NewValidator: the validator of a schema (compiled with every 1.34 library, as a served CRD's
 * stored expressions are), or undefined when the schema has no rules.
 */
export function buildValidator(schema: Structural, isResourceRoot: boolean, perCallLimit: number = PER_CALL_LIMIT): NodeValidator | undefined {
  if (!hasRules(schema)) return undefined;
  return build(schema, schema, isResourceRoot, schemaDeclType(schema, isResourceRoot), perCallLimit);
}

/** `validation` supplies the rules (it differs from `node` under allOf); `node` the types. */
function build(validation: Structural, node: Structural, isResourceRoot: boolean, decl: DeclType | undefined, perCallLimit: number): NodeValidator | undefined {
  const rules = validation.xValidations ?? [];
  const compiled = compileRules(node, rules, decl, ALL_STORED);
  const compilationError = compiled instanceof Error ? compiled : undefined;
  const elem = decl?.elem;
  let items: NodeValidator | undefined;
  if (validation.items && node.items) items = build(validation.items, node.items, node.items.xEmbeddedResource, elem, perCallLimit);
  let properties: Map<string, NodeValidator> | undefined;
  for (const [name, vp] of Object.entries(validation.properties ?? {})) {
    if (!node.properties || !Object.hasOwn(node.properties, name)) continue;
    const np = node.properties[name]!;
    let fieldDecl: DeclType | undefined;
    const escaped = escapeName(name);
    if (escaped !== undefined) {
      // Fields of types CEL cannot see are left out of validation altogether.
      fieldDecl = decl?.fields?.get(escaped)?.type;
      if (!fieldDecl) continue;
    } else {
      fieldDecl = schemaDeclType(np, np.xEmbeddedResource);
      if (!fieldDecl) continue;
    }
    const v = build(vp, np, np.xEmbeddedResource, fieldDecl, perCallLimit);
    if (v) (properties ??= new Map()).set(name, v);
  }
  let additionalProperties: NodeValidator | undefined;
  const va = validation.additionalProperties?.structural;
  const na = node.additionalProperties?.structural;
  if (va && na) additionalProperties = build(va, na, na.xEmbeddedResource, elem, perCallLimit);
  let allOf: NodeValidator[] | undefined;
  for (const nested of validation.valueValidation?.allOf ?? []) {
    const v = build(nestedToStructural(nested), node, isResourceRoot, decl, perCallLimit);
    if (v) (allOf ??= []).push(v);
  }
  const compiledRules = compiled instanceof Error ? [] : compiled;
  if (compiledRules.length === 0 && !compilationError && !items && !additionalProperties && !properties && !allOf) return undefined;
  return {
    schema: node,
    rules,
    compiled: compiledRules,
    ...(compilationError ? { compilationError } : {}),
    isResourceRoot,
    perCallLimit,
    ...(items ? { items } : {}),
    ...(properties ? { properties } : {}),
    ...(additionalProperties ? { additionalProperties } : {}),
    ...(allOf ? { allOf } : {}),
  };
}

// ---- ratcheting ----

/**
 * The correlation of the node being validated with its old value, and the nearest correlatable
 * ancestor when it has none (upstream's ratchetingOptions).
 */
interface Ratcheting {
  readonly current?: CorrelatedObject;
  readonly nearestParent?: CorrelatedObject;
}

function shouldRatchet(r: Ratcheting): boolean {
  if (r.current) return r.current.unchanged();
  return r.nearestParent?.unchanged() ?? false;
}

function ratchetKey(r: Ratcheting, name: string): Ratcheting {
  if (!r.current) return r;
  // kind and apiVersion at the root are the same in old and new (both converted): never ratcheted.
  if (!r.nearestParent && (name === 'apiVersion' || name === 'kind')) return {};
  return { current: r.current.key(name), nearestParent: r.current };
}

function ratchetIndex(r: Ratcheting, i: number): Ratcheting {
  if (!r.current) return r;
  return { current: r.current.index(i), nearestParent: r.current };
}

// ---- evaluation ----

export interface ValidationResult {
  readonly errors: FieldError[];
  /** Ratcheted errors, as the warnings upstream adds (`<field>: <message>`). */
  readonly warnings: string[];
  /** The budget left; negative once validation stopped for want of it. */
  readonly remainingBudget: number;
}

const ruleErrorString = (rule: ValidationRule) => (rule.message ? rule.message.trim() : (rule.rule ?? '').trim());
const ruleMessageOrDefault = (rule: ValidationRule) => (rule.message ? rule.message.trim() : `failed rule: ${ruleErrorString(rule)}`);

/** The error a failing rule reports, by its reason (Invalid unless said otherwise). */
function errorForReason(p: FieldPath, type: string, detail: string, reason: string | undefined): FieldError {
  switch (reason) {
    case 'FieldValueForbidden':
      return field.forbidden(p, detail);
    case 'FieldValueRequired':
      return field.required(p, detail);
    case 'FieldValueDuplicate':
      return field.duplicate(p, type);
    default:
      return field.invalid(p, type, detail);
  }
}

const internal = (p: FieldPath, detail: string): FieldError => ({ type: 'InternalError', field: p.toString(), detail });

/** The variables of the node's rules: self, and oldSelf as a value or an optional. */
interface Activations {
  readonly plain: Record<string, CelValue>;
  readonly optional: Record<string, CelValue>;
}

/** A value that cannot be converted (data the schema refuses) fails every rule reading it. */
class ConversionFailure {
  constructor(readonly error: CelEvalError) {}
}

function convert(value: unknown, schema: Structural): CelValue | ConversionFailure {
  try {
    return toCelValue(value, schema);
  } catch (e) {
    if (e instanceof CelEvalError) return new ConversionFailure(e);
    throw e;
  }
}

class Evaluation {
  readonly errors: FieldError[] = [];
  readonly warnings: string[] = [];

  validate(v: NodeValidator | undefined, p: FieldPath, obj: unknown, oldObj: unknown, r: Ratcheting, budget: number): number {
    if (!v || obj === null || obj === undefined) return budget;
    budget = this.expressions(v, p, obj, oldObj, r, budget);
    if (budget < 0) return budget;
    // allOf rules are not ratcheted by their own correlation, as schema validation does not.
    for (const a of v.allOf ?? []) {
      budget = this.validate(a, p, obj, oldObj, { nearestParent: r.nearestParent }, budget);
      if (budget < 0) return budget;
    }
    if (Array.isArray(obj)) return this.array(v, p, obj, Array.isArray(oldObj) ? oldObj : undefined, r, budget);
    if (isJsonObject(obj)) return this.map(v, p, obj, isJsonObject(oldObj) ? oldObj : undefined, r, budget);
    return budget;
  }

  private map(v: NodeValidator, p: FieldPath, obj: Record<string, unknown>, oldObj: Record<string, unknown> | undefined, r: Ratcheting, budget: number): number {
    if (budget < 0) return budget;
    const correlatable = mapIsCorrelatable(v.schema.xMapType);
    const old = (k: string) => (correlatable && oldObj && Object.hasOwn(oldObj, k) ? oldObj[k] : undefined);
    if (v.additionalProperties) {
      for (const [k, value] of Object.entries(obj)) {
        budget = this.validate(v.additionalProperties, p.key(k), value, old(k), ratchetKey(r, k), budget);
        if (budget < 0) return budget;
      }
    }
    if (v.properties) {
      for (const [k, value] of Object.entries(obj)) {
        const sub = v.properties.get(k);
        if (!sub) continue;
        budget = this.validate(sub, p.child(k), value, old(k), ratchetKey(r, k), budget);
        if (budget < 0) return budget;
      }
    }
    return budget;
  }

  private array(v: NodeValidator, p: FieldPath, obj: unknown[], oldObj: unknown[] | undefined, r: Ratcheting, budget: number): number {
    if (budget < 0 || !v.items) return budget;
    // Only map lists correlate their items with the old ones (by key); others correlate none.
    const correlation = oldObj && listCorrelatesItems(v.schema) ? new CorrelatedObject(obj, oldObj, v.schema) : undefined;
    for (let i = 0; i < obj.length; i++) {
      const old = correlation?.index(i)?.oldValue;
      budget = this.validate(v.items, p.index(i), obj[i], old, ratchetIndex(r, i), budget);
      if (budget < 0) return budget;
    }
    return budget;
  }

  private expressions(v: NodeValidator, p: FieldPath, obj: unknown, oldObj: unknown, r: Ratcheting, budget: number): number {
    if (oldObj === null) oldObj = undefined;
    let sts = v.schema;
    if (v.compilationError) {
      this.errors.push(field.invalid(p, sts.type, `rule compiler initialization error: ${v.compilationError.message}`));
      return budget;
    }
    if (v.compiled.length === 0) return budget;
    if (budget <= 0) {
      this.errors.push(field.invalid(p, sts.type, OUT_OF_BUDGET));
      return -1;
    }
    if (v.isResourceRoot) sts = withTypeAndObjectMeta(sts);
    let activations: Activations | undefined;
    const activation = (): Activations => {
      if (activations) return activations;
      const self = convert(obj, sts);
      const old = oldObj === undefined ? undefined : convert(oldObj, sts);
      return (activations = {
        plain: { self: self as CelValue, ...(old !== undefined ? { oldSelf: old as CelValue } : {}) },
        // A failed conversion stays as it is, so that evaluate() reports it.
        optional: { self: self as CelValue, oldSelf: old === undefined ? CelOptional.NONE : old instanceof ConversionFailure ? (old as unknown as CelValue) : CelOptional.of(old) },
      });
    };
    for (let i = 0; i < v.compiled.length; i++) {
      const compiled = v.compiled[i]!;
      const rule = v.rules[i] ?? compiled.rule;
      if (compiled.error) {
        this.errors.push(field.invalid(p, sts.type, `rule compile error: ${compiled.error.detail}`));
        continue;
      }
      const program = compiled.program;
      if (!program) continue;
      const optionalOldSelf = rule.optionalOldSelf === true;
      // Transition rules run only where there is an old value, unless oldSelf is optional.
      if (compiled.usesOldSelf && oldObj === undefined && !optionalOldSelf) continue;
      const vars = optionalOldSelf ? activation().optional : activation().plain;
      const result = evaluate(program, vars, v.perCallLimit);
      if (result.cost > budget) {
        this.errors.push(field.invalid(p, sts.type, OUT_OF_BUDGET));
        return -1;
      }
      budget -= result.cost;
      if (result.error !== undefined) {
        const err = result.error;
        if (err.startsWith('no such overload')) {
          // Type checking was bypassed (int-or-string is dyn), so the error says no more than this.
          this.errors.push(field.invalid(p, sts.type, `'${err}': call arguments did not match a supported operator, function or macro signature for rule: ${ruleErrorString(rule)}`));
        } else if (err.startsWith(COST_LIMIT_EXCEEDED)) {
          this.errors.push(field.invalid(p, sts.type, `'${err}': no further validation rules will be run due to call cost exceeds limit for rule: ${ruleErrorString(rule)}`));
          return -1;
        } else {
          this.errors.push(field.invalid(p, sts.type, `${err} evaluating rule: ${ruleErrorString(rule)}`));
        }
        continue;
      }
      if (result.value === true) continue;
      const at = compiled.normalizedFieldPath ? p.child(compiled.normalizedFieldPath) : p;
      const add = (e: FieldError) => {
        if (!compiled.usesOldSelf && shouldRatchet(r)) this.warnings.push(fieldErrorString(e));
        else this.errors.push(e);
      };
      if (compiled.messageExpression) {
        const m = messageExpression(compiled.messageExpression, rule.messageExpression ?? '', vars, budget, v.perCallLimit);
        if (m.kind === 'internal' || m.kind === 'invalid') {
          add(m.kind === 'internal' ? internal(at, m.detail) : field.invalid(at, sts.type, m.detail));
          return -1;
        }
        add(errorForReason(at, sts.type, m.kind === 'message' ? m.message : ruleMessageOrDefault(rule), rule.reason ?? undefined));
        budget = m.remainingBudget;
      } else {
        add(errorForReason(at, sts.type, ruleMessageOrDefault(rule), rule.reason ?? undefined));
      }
    }
    return budget;
  }
}

/** Evaluates with the variables, a conversion failure of one of them being the evaluation's error. */
function evaluate(program: CelProgram, vars: Record<string, CelValue>, limit: number): EvalResult {
  for (const name of ['self', 'oldSelf']) {
    const v = vars[name] as unknown;
    if (v instanceof ConversionFailure && program.refersTo(name)) return { error: v.error.message, cost: 0 };
  }
  const out = program.evaluate(vars, { limit, celValues: true });
  if (out instanceof Promise) throw new Error('CRD validation rules cannot ask an authorizer');
  return out;
}

type MessageOutcome =
  | { readonly kind: 'message'; readonly message: string; readonly remainingBudget: number }
  | { readonly kind: 'fallback'; readonly remainingBudget: number }
  | { readonly kind: 'invalid'; readonly detail: string }
  | { readonly kind: 'internal'; readonly detail: string };

/** evalMessageExpression: the message, a fall back to the rule's message, or a stop. */
function messageExpression(program: CelProgram, source: string, vars: Record<string, CelValue>, budget: number, limit: number): MessageOutcome {
  const result = evaluate(program, vars, limit);
  if (result.cost > budget) return { kind: 'invalid', detail: 'messageExpression evaluation failed due to running out of cost budget, no further validation rules will be run' };
  const remainingBudget = budget - result.cost;
  if (result.error !== undefined) {
    if (result.error.startsWith(COST_LIMIT_EXCEEDED)) return { kind: 'invalid', detail: `no further validation rules will be run due to call cost exceeds limit for messageExpression: ${goQuote(source)}` };
    return { kind: 'fallback', remainingBudget };
  }
  if (typeof result.value !== 'string') return { kind: 'fallback', remainingBudget };
  const message = result.value.trim();
  if (Buffer.byteLength(message) > MAX_MESSAGE_EXPRESSION_BYTES || message.includes('\n') || message === '') return { kind: 'fallback', remainingBudget };
  return { kind: 'message', message, remainingBudget };
}

/**
 * Validates `obj` (and on update `oldObj`, which turns on ratcheting) against the validator's rules
 * within `budget`, from `path` (the object's root: '').
 */
export function runValidator(v: NodeValidator | undefined, obj: unknown, oldObj: unknown, budget: number, path: FieldPath = FieldPath.of()): ValidationResult {
  const e = new Evaluation();
  const ratcheting: Ratcheting = oldObj !== undefined && oldObj !== null && v ? { current: new CorrelatedObject(obj, oldObj, v.schema) } : {};
  const remainingBudget = e.validate(v, path, obj, oldObj ?? undefined, ratcheting, budget);
  return { errors: e.errors, warnings: e.warnings, remainingBudget };
}
