/**
 * What a CRD write refuses in `x-kubernetes-validations` (apiextensions validation.go's
 * ValidateCustomResourceDefinitionOpenAPISchema and cel_validation.go's CELSchemaContext):
 *
 * - each rule's own fields: a rule, a message without line breaks (required when the rule has
 *   them), a non-blank messageExpression, a supported reason, a fieldPath naming a field of the
 *   node (these hold under allOf, anyOf, oneOf and not too);
 * - where none of those failed at a node or below, its rules must compile as new expressions
 *   (expressions the CRD held before compile with every 1.34 library), messageExpressions must be
 *   strings, `oldSelf` may not be used below a list that is not a map list, `optionalOldSelf` only
 *   with `oldSelf`;
 * - the estimated costs: a rule's, times how often it can run (the product of maxItems and
 *   maxProperties above it, else as many as fit into a request), and a messageExpression's, at most
 *   StaticEstimatedCostLimit each (not checked for a version whose schema an update left alone);
 *   all of a schema's at most StaticEstimatedCRDCostLimit.
 *
 * Errors come as upstream lists them: every rule-field error of the schema, then every compile and
 * cost error, then the total's; paths from the schema's own (`spec.validation.openAPIV3Schema`).
 */
import type { FieldError } from '../../api/errors.ts';
import { goQuote } from '../../api/go/quote.ts';
import * as field from '../../registry/validation/field.ts';
import type { FieldPath } from '../../registry/validation/field.ts';
import type { Structural } from '../schema/structural.ts';
import type { ValidationRule } from '../schema/types.ts';
import { listCorrelatesItems, mapIsCorrelatable } from './correlation.ts';
import { costErrorMessage, multiplyWithOverflowGuard, STATIC_ESTIMATED_COST_LIMIT, STATIC_ESTIMATED_CRD_COST_LIMIT, TotalCost } from './cost-limits.ts';
import { schemaDeclType, type DeclType } from './decl-type.ts';
import { escapeName } from './escaping.ts';
import { validFieldPath } from './field-path.ts';
import { nestedToStructural } from './nested.ts';
import { compileRules, type CompiledRule, type PreexistingExpressions } from './rule-compiler.ts';

export interface WriteCheckOptions {
  /** Expressions of the CRD before this update (they compile with every 1.34 library). */
  readonly preexisting: PreexistingExpressions;
  /** The update left this version's schema as it was: no per-expression cost limit. */
  readonly unchangedSchema?: boolean;
}

const SUPPORTED_REASONS = ['FieldValueDuplicate', 'FieldValueForbidden', 'FieldValueInvalid', 'FieldValueRequired'];
const hasNewlines = (s: string) => /[\n\r]/.test(s);

/**
 * `%#v` of an apiextensions.ValidationRule, as the value of an Invalid error about it. Go prints a
 * set pointer field (reason, optionalOldSelf) as its address; a fixed one stands in for it here.
 */
export function ruleGoString(r: ValidationRule): string {
  const ptr = (type: string, set: boolean) => `(*${type})(${set ? '0xc000000000' : 'nil'})`;
  return (
    `apiextensions.ValidationRule{Rule:${goQuote(r.rule ?? '')}, Message:${goQuote(r.message ?? '')}, MessageExpression:${goQuote(r.messageExpression ?? '')}, ` +
    `Reason:${ptr('apiextensions.FieldValueErrorReason', r.reason !== undefined && r.reason !== null)}, FieldPath:${goQuote(r.fieldPath ?? '')}, OptionalOldSelf:${ptr('bool', r.optionalOldSelf !== undefined && r.optionalOldSelf !== null)}}`
  );
}

interface TypeInfo {
  readonly schema: Structural;
  readonly decl: DeclType | undefined;
}

/** A node's CEL context (CELSchemaContext): its type information, found lazily, and its cardinality. */
class CelContext {
  #info: TypeInfo | Error | undefined | null = null;

  constructor(
    readonly schema: Structural,
    readonly withinScope: boolean,
    /** The product of maxItems/maxProperties above; undefined when something above is unbounded. */
    readonly maxCardinality: bigint | undefined,
    readonly total: TotalCost,
    private readonly parent?: CelContext,
    private readonly accessor?: (parent: TypeInfo) => TypeInfo | undefined,
  ) {}

  static root(schema: Structural): CelContext {
    return new CelContext(schema, (schema.xValidations?.length ?? 0) > 0, 1n, new TotalCost());
  }

  child(schema: Structural, accessor: (parent: TypeInfo) => TypeInfo | undefined): CelContext {
    const withinScope = this.withinScope || (schema.xValidations?.length ?? 0) > 0;
    let card: bigint | undefined;
    if (this.maxCardinality !== undefined) {
      const factor = maxElements(this.schema);
      if (factor !== undefined) card = multiplyWithOverflowGuard(this.maxCardinality, factor);
    }
    return new CelContext(schema, withinScope, card, this.total, this, accessor);
  }

  typeInfo(): TypeInfo | Error | undefined {
    if (!this.withinScope) return undefined;
    if (this.#info !== null) return this.#info;
    if (this.parent) {
      const p = this.parent.typeInfo();
      if (p instanceof Error) return (this.#info = p);
      if (p && this.accessor) {
        const t = this.accessor(p);
        if (t) return (this.#info = t);
      }
    }
    const decl = schemaDeclType(this.schema, !this.parent || this.schema.xEmbeddedResource);
    this.#info = decl ? { schema: this.schema, decl } : new Error('unable to convert structural schema to CEL declarations');
    return this.#info;
  }
}

const zeroIfNegative = (n: number) => (n < 0 ? 0n : BigInt(Math.trunc(n)));

/** How many times a node multiplies its children (extractMaxElements); undefined when unbounded. */
function maxElements(s: Structural): bigint | undefined {
  const vv = s.valueValidation;
  switch (s.type) {
    case 'object':
      if (s.additionalProperties !== undefined) return vv?.maxProperties !== undefined ? zeroIfNegative(vv.maxProperties) : undefined;
      return 1n;
    case 'array':
      return vv?.maxItems !== undefined ? zeroIfNegative(vv.maxItems) : undefined;
    default:
      return 1n;
  }
}

const propertyAccessor =
  (name: string) =>
  (parent: TypeInfo): TypeInfo | undefined => {
    const props = parent.schema.properties;
    if (!props || Object.keys(props).length === 0) return undefined;
    const escaped = escapeName(name);
    const f = escaped !== undefined ? parent.decl?.fields?.get(escaped) : undefined;
    if (!f || !Object.hasOwn(props, name)) return undefined;
    return { schema: props[name]!, decl: f.type };
  };
const itemsAccessor = (parent: TypeInfo): TypeInfo | undefined => (parent.schema.items ? { schema: parent.schema.items, decl: parent.decl?.elem } : undefined);
const additionalAccessor = (parent: TypeInfo): TypeInfo | undefined =>
  parent.schema.additionalProperties?.structural ? { schema: parent.schema.additionalProperties.structural, decl: parent.decl?.elem } : undefined;

interface Errors {
  schema: FieldError[];
  cel: FieldError[];
}

class Checker {
  constructor(private readonly options: WriteCheckOptions) {}

  node(s: Structural, path: FieldPath, ctx: CelContext | undefined, forbidOldSelf: FieldPath | undefined): Errors {
    const out: Errors = { schema: [], cel: [] };
    const add = (e: Errors) => {
      out.schema.push(...e.schema);
      out.cel.push(...e.cel);
    };
    const vv = s.valueValidation;
    if (s.additionalProperties?.structural) {
      const ap = s.additionalProperties.structural;
      add(this.node(ap, path.child('additionalProperties'), ctx?.child(ap, additionalAccessor), forbidOldSelf));
    }
    // Fields of a map type that does not correlate old and new (none of the valid ones) forbid oldSelf.
    const propsForbid = forbidOldSelf ?? (mapIsCorrelatable(s.xMapType) ? undefined : path);
    for (const [name, prop] of Object.entries(s.properties ?? {})) {
      add(this.node(prop, path.child('properties').key(name), ctx?.child(prop, propertyAccessor(name)), propsForbid));
    }
    if (vv?.not) add(this.node(nestedToStructural(vv.not), path.child('not'), undefined, forbidOldSelf));
    for (const [junctor, list] of [
      ['allOf', vv?.allOf],
      ['oneOf', vv?.oneOf],
      ['anyOf', vv?.anyOf],
    ] as const) {
      (list ?? []).forEach((n, i) => add(this.node(nestedToStructural(n), path.child(junctor).index(i), undefined, forbidOldSelf)));
    }
    if (s.items) {
      // Only map lists correlate old and new items (sets are not correlated by identity).
      const itemsForbid = forbidOldSelf ?? (listCorrelatesItems(s) ? undefined : path);
      add(this.node(s.items, path.child('items'), ctx?.child(s.items, itemsAccessor), itemsForbid));
    }
    const rules = s.xValidations ?? [];
    if (rules.length === 0) return out;
    out.schema.push(...this.ruleFields(s, rules, path));
    if (out.schema.length === 0 && ctx) out.cel.push(...this.compile(rules, path, ctx, forbidOldSelf));
    return out;
  }

  /** The checks of each rule's own fields. */
  ruleFields(s: Structural, rules: readonly ValidationRule[], path: FieldPath): FieldError[] {
    const errs: FieldError[] = [];
    rules.forEach((rule, i) => {
      const at = path.child('x-kubernetes-validations').index(i);
      const ruleText = (rule.rule ?? '').trim();
      const message = rule.message ?? '';
      const trimmedMessage = message.trim();
      if (ruleText === '') errs.push(field.required(at.child('rule'), 'rule is not specified'));
      else if (message.length > 0 && trimmedMessage === '') errs.push(field.invalid(at.child('message'), message, 'must be non-empty if specified'));
      else if (hasNewlines(trimmedMessage)) errs.push(field.invalid(at.child('message'), message, 'must not contain line breaks'));
      else if (hasNewlines(ruleText) && trimmedMessage === '') errs.push(field.required(at.child('message'), 'message must be specified if rule contains line breaks'));
      const messageExpression = rule.messageExpression ?? '';
      if (messageExpression.length > 0 && messageExpression.trim() === '') errs.push(field.required(at.child('messageExpression'), 'messageExpression must be non-empty if specified'));
      if (rule.reason !== undefined && rule.reason !== null && !SUPPORTED_REASONS.includes(rule.reason)) errs.push(field.notSupported(at.child('reason'), rule.reason, SUPPORTED_REASONS));
      const fieldPath = rule.fieldPath ?? '';
      if (fieldPath.length > 0 && fieldPath.trim() === '') errs.push(field.invalid(at.child('fieldPath'), fieldPath, 'must be non-empty if specified'));
      if (hasNewlines(fieldPath)) errs.push(field.invalid(at.child('fieldPath'), fieldPath, 'must not contain line breaks'));
      if (fieldPath.length > 0 && validFieldPath(fieldPath, s) instanceof Error) errs.push(field.invalid(at.child('fieldPath'), fieldPath, 'must be a valid path'));
    });
    return errs;
  }

  /** Compiles the rules, reporting compile errors, oldSelf misuse and the per-expression costs. */
  compile(rules: readonly ValidationRule[], path: FieldPath, ctx: CelContext, forbidOldSelf: FieldPath | undefined): FieldError[] {
    const errs: FieldError[] = [];
    const at = path.child('x-kubernetes-validations');
    const info = ctx.typeInfo();
    if (info instanceof Error) return [internal(at, `internal error: failed to construct type information for x-kubernetes-validations rules: ${info.message}`)];
    if (!info) return [internal(at, 'internal error: failed to retrieve type information for x-kubernetes-validations')];
    const compiled = compileRules(info.schema, info.schema.xValidations ?? rules, info.decl, this.options.preexisting);
    if (compiled instanceof Error) return [internal(at, compiled.message)];
    compiled.forEach((cr, i) => {
      const rulePath = at.index(i).child('rule');
      const rule = rules[i] ?? cr.rule;
      const cost = expressionCost(cr, ctx);
      if (!this.options.unchangedSchema && cost > STATIC_ESTIMATED_COST_LIMIT) errs.push(field.forbidden(rulePath, costErrorMessage('estimated rule cost', cost, STATIC_ESTIMATED_COST_LIMIT)));
      ctx.total.observe(rulePath.toString(), cost);
      if (cr.error) errs.push(ruleInvalid(rulePath, rule, cr.error.detail));
      if (cr.messageExpressionError) {
        errs.push(ruleInvalid(at.index(i).child('messageExpression'), rule, cr.messageExpressionError.detail));
      } else if (cr.messageExpression) {
        const messagePath = at.index(i).child('messageExpression');
        if (!this.options.unchangedSchema && cr.messageExpressionMaxCost > STATIC_ESTIMATED_COST_LIMIT) {
          errs.push(field.forbidden(messagePath, costErrorMessage('estimated messageExpression cost', cr.messageExpressionMaxCost, STATIC_ESTIMATED_COST_LIMIT)));
        }
        ctx.total.observe(messagePath.toString(), cr.messageExpressionMaxCost);
      }
      if (cr.usesOldSelf) {
        if (forbidOldSelf) errs.push(field.invalid(rulePath, rule.rule, `oldSelf cannot be used on the uncorrelatable portion of the schema within ${forbidOldSelf.toString()}`));
      } else if (rule.optionalOldSelf !== undefined && rule.optionalOldSelf !== null) {
        errs.push(field.invalid(at.index(i).child('optionalOldSelf'), rule.optionalOldSelf, 'may not be set if oldSelf is not used in rule'));
      }
    });
    return errs;
  }
}

function internal(p: FieldPath, detail: string): FieldError {
  return { type: 'InternalError', field: p.toString(), detail };
}

function ruleInvalid(p: FieldPath, rule: ValidationRule, detail: string): FieldError {
  return { type: 'FieldValueInvalid', field: p.toString(), value: rule, rawValue: ruleGoString(rule), detail };
}

/** getExpressionCost: the rule's cost times its cardinality (bounded by the schema, or by request size). */
function expressionCost(cr: CompiledRule, ctx: CelContext): bigint {
  return multiplyWithOverflowGuard(cr.maxCost, ctx.maxCardinality ?? cr.maxCardinality);
}

/**
 * The errors a CRD write gets for the `x-kubernetes-validations` of a version's schema (see the
 * module comment); `path` is where the schema is (`spec.versions[0].schema.openAPIV3Schema`). Call
 * it only for a schema that is structural and otherwise valid, as upstream does.
 */
export function checkSchemaRules(schema: Structural, path: FieldPath, options: WriteCheckOptions): FieldError[] {
  const ctx = CelContext.root(schema);
  const { schema: schemaErrors, cel } = new Checker(options).node(schema, path, ctx, undefined);
  const errs = [...schemaErrors, ...cel];
  if (ctx.total.total > STATIC_ESTIMATED_CRD_COST_LIMIT) {
    for (const dear of ctx.total.mostExpensive) errs.push({ type: 'FieldValueForbidden', field: dear.path, detail: 'contributed to estimated rule cost total exceeding cost limit for entire OpenAPIv3 schema' });
    errs.push(field.forbidden(path, costErrorMessage('x-kubernetes-validations estimated rule cost total for entire OpenAPIv3 schema', ctx.total.total, STATIC_ESTIMATED_CRD_COST_LIMIT)));
  }
  return errs;
}

/** One expression's estimated cost as the limits see it. */
export interface ExpressionCost {
  /** `…x-kubernetes-validations[0].rule` or `….messageExpression`. */
  readonly path: string;
  /** The rule's cost times its cardinality; a messageExpression's own cost. */
  readonly cost: bigint;
}

/**
 * The estimated costs of a schema's rules and message expressions as a CRD write weighs them, and
 * their total (what STATIC_ESTIMATED_CRD_COST_LIMIT bounds). Rules that do not compile cost 0.
 */
export function estimateSchemaCosts(schema: Structural, path: FieldPath, preexisting: PreexistingExpressions): { readonly expressions: ExpressionCost[]; readonly total: bigint } {
  const expressions: ExpressionCost[] = [];
  const walk = (s: Structural, p: FieldPath, ctx: CelContext) => {
    if (s.additionalProperties?.structural) walk(s.additionalProperties.structural, p.child('additionalProperties'), ctx.child(s.additionalProperties.structural, additionalAccessor));
    for (const [name, prop] of Object.entries(s.properties ?? {})) walk(prop, p.child('properties').key(name), ctx.child(prop, propertyAccessor(name)));
    if (s.items) walk(s.items, p.child('items'), ctx.child(s.items, itemsAccessor));
    const rules = s.xValidations ?? [];
    if (rules.length === 0) return;
    const info = ctx.typeInfo();
    if (!info || info instanceof Error) return;
    const compiled = compileRules(info.schema, info.schema.xValidations ?? rules, info.decl, preexisting);
    if (compiled instanceof Error) return;
    compiled.forEach((cr, i) => {
      const at = p.child('x-kubernetes-validations').index(i);
      const cost = expressionCost(cr, ctx);
      expressions.push({ path: at.child('rule').toString(), cost });
      ctx.total.observe(at.child('rule').toString(), cost);
      if (cr.messageExpression) {
        expressions.push({ path: at.child('messageExpression').toString(), cost: cr.messageExpressionMaxCost });
        ctx.total.observe(at.child('messageExpression').toString(), cr.messageExpressionMaxCost);
      }
    });
  };
  const root = CelContext.root(schema);
  walk(schema, path, root);
  return { expressions, total: root.total.total };
}
