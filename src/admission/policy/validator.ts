/**
 * A policy compiled once per version, and its evaluation for one binding and param, as upstream's
 * validator: match conditions (any false skips, all true evaluates, errors follow the failure
 * policy), variables composed lazily, each validation with its message (messageExpression, then
 * message, then the expression), and audit annotations. Every evaluation phase has its own cost
 * budget as upstream's: match conditions 2.5M, validations 10M with message expressions spending
 * what the validations left, audit annotations 10M.
 */
import {
  compile,
  MATCH_CONDITIONS_COST_BUDGET,
  RUNTIME_COST_BUDGET,
  celTypeOf,
  type Activation,
  type AuthorizerBinding,
  type CompiledExpression,
  type Evaluation,
} from './cel.ts';

export type FailurePolicy = 'Fail' | 'Ignore';

interface PolicySpec {
  paramKind?: unknown;
  failurePolicy?: string;
  validations?: { expression?: string; message?: string; reason?: string; messageExpression?: string }[] | null;
  auditAnnotations?: { key?: string; valueExpression?: string }[] | null;
  matchConditions?: { name?: string; expression?: string }[] | null;
  variables?: { name?: string; expression?: string }[] | null;
}

/** What a failed validation, or an error under failurePolicy Fail, decides. */
export interface Decision {
  readonly action: 'admit' | 'deny';
  readonly evaluation: 'admit' | 'deny' | 'error';
  readonly message: string;
  /** Forbidden, Invalid, … (deny decisions of failed validations); empty for errors. */
  readonly reason: string;
}

export interface AuditAnnotationResult {
  readonly key: string;
  readonly action: 'publish' | 'exclude' | 'error';
  readonly value: string;
  readonly error: string;
}

export interface ValidateResult {
  readonly decisions: readonly Decision[];
  readonly auditAnnotations: readonly AuditAnnotationResult[];
}

/** The values one evaluation sees (object values already in CEL form). */
export interface ValidationInput {
  readonly object: unknown;
  readonly oldObject: unknown;
  readonly params: unknown;
  readonly request: unknown;
  /** The request as match conditions see it (their resource is the request's own). */
  readonly matchConditionRequest: unknown;
  /** namespaceObject as validations see it; null for cluster-scoped requests and namespaces. */
  readonly namespaceObject: unknown;
  /** The namespace as audit annotations see it (upstream passes them the whole object); made only if needed. */
  readonly namespaceForAudit: () => unknown;
  readonly authorizer: AuthorizerBinding;
}

const OUT_OF_BUDGET = 'validation failed due to running out of cost budget, no further validation rules will be run';
/** upstream's MaxEvaluatedMessageExpressionSizeBytes. */
const MAX_MESSAGE_BYTES = 5 * 1024;

class OutOfBudget extends Error {
  constructor() {
    super(OUT_OF_BUDGET);
  }
}

/** One expression's outcome inside a phase (upstream's EvaluationResult). */
interface Outcome {
  readonly value?: unknown;
  readonly error?: string;
}

/** The variables of one phase, each evaluated the first time an expression reads it (upstream's composition context). */
class Composition {
  readonly #policy: CompiledPolicy;
  readonly #values = new Map<string, { value?: unknown; error?: string }>();
  #cost = 0;
  activation!: Activation;
  /** Resolves a variable for the evaluator: its value, or an Error with the text the expression reports. */
  readonly resolve = (name: string): unknown => {
    const known = this.#values.get(name) ?? this.#evaluate(name);
    if (known.error !== undefined) throw new Error(known.error);
    return known.value;
  };

  constructor(policy: CompiledPolicy) {
    this.#policy = policy;
  }

  /** Cost of the variables evaluated since the last call. */
  takeCost(): number {
    const c = this.#cost;
    this.#cost = 0;
    return c;
  }

  /** Evaluates, ahead of time, the variables an expression may reach that wait (authorizer checks). */
  async prepare(expr: CompiledExpression): Promise<void> {
    for (const name of this.#policy.reachableVariables(expr)) {
      const v = this.#policy.variable(name);
      if (!v || !v.compiled.async || this.#values.has(name)) continue;
      if (v.compiled.error !== undefined) continue;
      this.#record(name, await v.compiled.evaluate(this.activation));
    }
  }

  #record(name: string, out: Evaluation): { value?: unknown; error?: string } {
    this.#cost += out.cost;
    const known = out.error !== undefined ? { error: `composited variable "${name}" fails to evaluate: ${out.error}` } : { value: out.value };
    this.#values.set(name, known);
    return known;
  }

  #evaluate(name: string): { value?: unknown; error?: string } {
    const v = this.#policy.variable(name)!;
    if (v.compiled.error !== undefined) {
      const known = { error: `composited variable "${name}" fails to compile: ${v.compiled.error}` };
      this.#values.set(name, known);
      return known;
    }
    const out = v.compiled.evaluate(this.activation);
    if (out instanceof Promise) return { error: `composited variable "${name}" fails to evaluate: its authorization checks were not ready` };
    return this.#record(name, out);
  }
}

/** A policy's expressions compiled for its environment, as upstream's compilePolicy. */
export class CompiledPolicy {
  readonly failurePolicy: FailurePolicy;
  readonly variables: readonly { readonly name: string; readonly compiled: CompiledExpression }[];
  readonly matchConditions: readonly { readonly name: string; readonly compiled: CompiledExpression }[];
  readonly validations: readonly { readonly compiled: CompiledExpression; readonly message: string; readonly reason: string; readonly expression: string; readonly messageExpression?: CompiledExpression }[];
  readonly auditAnnotations: readonly { readonly key: string; readonly valueExpression: string; readonly compiled: CompiledExpression }[];
  readonly #byName = new Map<string, { readonly name: string; readonly compiled: CompiledExpression }>();

  constructor(spec: PolicySpec) {
    this.failurePolicy = spec.failurePolicy === 'Ignore' ? 'Ignore' : 'Fail';
    const params = spec.paramKind != null;
    // Each variable is declared to those after it with the type of its expression.
    const names: Record<string, string> = {};
    const variables: { name: string; compiled: CompiledExpression }[] = [];
    for (const v of spec.variables ?? []) {
      const name = v.name ?? '';
      const compiled = compile(v.expression ?? '', { params, authorizer: true, variables: { ...names } }, 'any');
      variables.push({ name, compiled });
      names[name] = compiled.outputType;
    }
    this.variables = variables;
    for (const v of variables) this.#byName.set(v.name, v);
    const decls = { params, authorizer: true, variables: names };
    this.matchConditions = (spec.matchConditions ?? []).map((c) => ({ name: c.name ?? '', compiled: compile(c.expression ?? '', decls, 'bool') }));
    this.validations = (spec.validations ?? []).map((v) => ({
      compiled: compile(v.expression ?? '', decls, 'bool'),
      expression: v.expression ?? '',
      message: v.message ?? '',
      reason: v.reason ?? '',
      ...(v.messageExpression ? { messageExpression: compile(v.messageExpression, { params, authorizer: false, variables: names }, 'string') } : {}),
    }));
    this.auditAnnotations = (spec.auditAnnotations ?? []).map((a) => ({
      key: a.key ?? '',
      valueExpression: a.valueExpression ?? '',
      compiled: compile(a.valueExpression ?? '', decls, 'string-or-null'),
    }));
  }

  variable(name: string): { readonly name: string; readonly compiled: CompiledExpression } | undefined {
    return this.#byName.get(name);
  }

  /** The variables an expression may reach, directly or through other variables, in declaration order. */
  reachableVariables(expr: CompiledExpression): string[] {
    const seen = new Set<string>();
    const visit = (refs: readonly string[]) => {
      for (const r of refs) {
        if (seen.has(r)) continue;
        const v = this.#byName.get(r);
        if (!v) continue;
        seen.add(r);
        visit(v.compiled.variableRefs);
      }
    };
    visit(expr.variableRefs);
    return this.variables.map((v) => v.name).filter((n) => seen.has(n));
  }

  /** Evaluates the policy for one binding and param (upstream's validator.Validate). */
  async validate(input: ValidationInput): Promise<ValidateResult> {
    const onError = this.failurePolicy === 'Ignore' ? 'admit' : 'deny';
    const errorDecision = (message: string): ValidateResult => ({ decisions: [{ action: onError, evaluation: 'error', message, reason: '' }], auditAnnotations: [] });

    if (this.matchConditions.length > 0) {
      const matched = await this.#matchConditions(input);
      if (matched === false) return { decisions: [], auditAnnotations: [] };
      if (typeof matched === 'string') {
        if (this.failurePolicy === 'Ignore') return { decisions: [], auditAnnotations: [] };
        return errorDecision(matched);
      }
    }

    const base = { object: input.object, oldObject: input.oldObject, request: input.request, namespaceObject: input.namespaceObject, params: input.params };
    let validations: { outcomes: Outcome[]; remaining: number };
    try {
      validations = await this.#phase(this.validations.map((v) => v.compiled), { ...base, authorizer: input.authorizer }, RUNTIME_COST_BUDGET);
    } catch (err) {
      if (err instanceof OutOfBudget) return errorDecision(err.message);
      throw err;
    }
    let messages: Outcome[] = [];
    let messageError: string | undefined;
    try {
      messages = (await this.#phase(this.validations.map((v) => v.messageExpression), base, validations.remaining)).outcomes;
    } catch (err) {
      if (!(err instanceof OutOfBudget)) throw err;
      messageError = err.message;
    }
    const decisions: Decision[] = this.validations.map((v, i) => {
      const outcome = validations.outcomes[i]!;
      if (outcome.error !== undefined) return { action: onError, evaluation: 'error', message: outcome.error, reason: '' };
      if (messageError !== undefined) return { action: onError, evaluation: 'error', message: `failed messageExpression: ${messageError}`, reason: '' };
      if (outcome.value === true) return { action: 'admit', evaluation: 'admit', message: '', reason: '' };
      return { action: 'deny', evaluation: 'deny', message: failureMessage(v, messages[i]), reason: v.reason || 'Invalid' };
    });

    let annotations: { outcomes: Outcome[] } = { outcomes: [] };
    if (this.auditAnnotations.length > 0) {
      try {
        annotations = await this.#phase(
          this.auditAnnotations.map((a) => a.compiled),
          { ...base, namespaceObject: input.namespaceForAudit() },
          RUNTIME_COST_BUDGET,
        );
      } catch (err) {
        if (err instanceof OutOfBudget) return errorDecision(err.message);
        throw err;
      }
    }
    const auditAnnotations = this.auditAnnotations.map((a, i): AuditAnnotationResult => {
      const outcome = annotations.outcomes[i]!;
      if (outcome.error !== undefined) return { key: a.key, action: this.failurePolicy === 'Ignore' ? 'exclude' : 'error', value: '', error: outcome.error };
      if (typeof outcome.value === 'string') {
        const value = outcome.value.trim();
        return value ? { key: a.key, action: 'publish', value, error: '' } : { key: a.key, action: 'exclude', value: '', error: '' };
      }
      if (outcome.value === null || outcome.value === undefined) return { key: a.key, action: 'exclude', value: '', error: '' };
      return {
        key: a.key,
        action: 'error',
        value: '',
        error: `valueExpression '${a.valueExpression}' resulted in unsupported return type: ${celTypeOf(outcome.value)}. Return type must be either string or null.`,
      };
    });
    return { decisions, auditAnnotations };
  }

  /**
   * Match conditions: true when all hold, false when one does not (whatever errors others had), or
   * the error text (errors joined as upstream's aggregate prints them).
   */
  async #matchConditions(input: ValidationInput): Promise<boolean | string> {
    let outcomes: Outcome[];
    try {
      outcomes = (
        await this.#phase(
          this.matchConditions.map((c) => c.compiled),
          { object: input.object, oldObject: input.oldObject, request: input.matchConditionRequest, namespaceObject: null, params: input.params, authorizer: input.authorizer },
          MATCH_CONDITIONS_COST_BUDGET,
        )
      ).outcomes;
    } catch (err) {
      if (err instanceof OutOfBudget) return err.message;
      throw err;
    }
    const errors: string[] = [];
    for (const o of outcomes) {
      if (o.error !== undefined) errors.push(o.error);
      if (o.value === false) return false;
    }
    if (errors.length === 0) return true;
    return errors.length === 1 ? errors[0]! : `[${errors.join(', ')}]`;
  }

  /**
   * Evaluates expressions in order with one budget and one set of lazily composed variables
   * (upstream's ForInput); throws OutOfBudget when they cost more than the budget.
   */
  async #phase(exprs: readonly (CompiledExpression | undefined)[], activation: Omit<Activation, 'variables'>, budget: number): Promise<{ outcomes: Outcome[]; remaining: number }> {
    const composition = new Composition(this);
    composition.activation = { ...activation, variables: composition.resolve };
    let remaining = budget;
    const outcomes: Outcome[] = [];
    for (const expr of exprs) {
      if (!expr) {
        outcomes.push({});
        continue;
      }
      if (expr.error !== undefined) {
        outcomes.push({ error: `compilation error: ${expr.error}` });
        continue;
      }
      if (this.variables.length > 0 && expr.variableRefs.length > 0) await composition.prepare(expr);
      const pending = expr.evaluate(composition.activation);
      const out = pending instanceof Promise ? await pending : pending;
      const compositionCost = composition.takeCost();
      if (compositionCost > remaining) throw new OutOfBudget();
      remaining -= compositionCost;
      if (out.cost > remaining) throw new OutOfBudget();
      remaining -= out.cost;
      outcomes.push(out.error !== undefined ? { error: `expression '${expr.expression}' resulted in error: ${out.error}` } : { value: out.value });
    }
    return { outcomes, remaining };
  }
}

/** The message of a failed validation: its messageExpression's, else its message, else the expression. */
function failureMessage(v: { message: string; expression: string }, outcome: Outcome | undefined): string {
  let message = '';
  if (outcome && outcome.error === undefined && typeof outcome.value === 'string') {
    message = outcome.value.trim();
    if (Buffer.byteLength(message) > MAX_MESSAGE_BYTES || message.includes('\n')) message = '';
  }
  if (message === '' && v.message.length > 0) message = v.message.trim();
  if (message === '') message = `failed expression: ${v.expression.trim()}`;
  return message;
}
