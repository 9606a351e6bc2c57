/**
 * A compiled expression and its evaluation: values of the activation converted (JSON wrapped
 * lazily), a fresh evaluation state per run, the cost limit enforced as cel-go enforces it, and
 * authorization checks answered by rerunning the evaluation once the caller's authorizer replied.
 * Evaluation is synchronous unless an authorizer has to be asked.
 */
import { CelEvalError, CelInterrupt, CostLimitExceeded } from './errors.ts';
import { toCel } from './json.ts';
import { CelAuthorizer, requestResourceCheck, type AuthorizationRequest, type AuthzUser } from './lib/authz.ts';
import type { Node } from './checker/ast.ts';
import { freeVariables } from './checker/free-variables.ts';
import type { Ev } from './runtime/compile.ts';
import { EvalState, NeedsAuthorization, type AuthorizationDecision } from './runtime/state.ts';
import { LazyVariables, type VariableResolver } from './runtime/variables.ts';
import type { CelValue } from './values.ts';

/** upstream's PerCallLimit: the most one evaluation may cost. */
export const PER_CALL_LIMIT = 1_000_000;

/** The `authorizer` of an activation: who asks, how to ask, and what the request addresses. */
export interface AuthorizerBinding {
  readonly user: AuthzUser;
  authorize(request: AuthorizationRequest): Promise<AuthorizationDecision>;
  /** What `authorizer.requestResource` checks: the request's resource. */
  readonly requestResource?: { readonly group: string; readonly resource: string; readonly subresource?: string; readonly namespace?: string; readonly name?: string };
}

/**
 * The values of the declared variables: JSON (as stored) or CEL values. `authorizer` is an
 * AuthorizerBinding; `variables` a resolver (name → value, throwing CelEvalError), a LazyVariables,
 * or a plain object of values. A declared variable left out is null.
 */
export type Activation = Readonly<Record<string, unknown>>;

export type EvalResult = { readonly value: CelValue; readonly cost: number; readonly error?: undefined } | { readonly error: string; readonly cost: number; readonly value?: undefined };

export interface EvalOptions {
  /** The most this evaluation may cost (PER_CALL_LIMIT unless less of the budget is left). */
  readonly limit?: number;
  /**
   * The activation holds CEL values already (built for a schema, say), to be used as they are
   * rather than read as JSON; a variable left out is null.
   */
  readonly celValues?: boolean;
}

export class CelProgram {
  constructor(
    readonly expression: string,
    /** The result's type as cel-go prints it (`bool`, `list(string)`, `dyn`). */
    readonly outputType: string,
    private readonly ev: Ev,
    private readonly slots: number,
    /** The variables the environment declares. */
    readonly declared: ReadonlySet<string>,
    /** The `variables.<name>` the expression reads. */
    readonly variableRefs: readonly string[],
    /** Whether it can ask the authorizer (and so may evaluate asynchronously). */
    readonly usesAuthorizer: boolean,
    /**
     * The type a policy variable with this expression has for the expressions after it, in the
     * notation admissionEnvironment's `variables` takes (`list<string>`; library types are dyn).
     */
    readonly variableType: string,
    /** The type-checked AST (what the cost estimator walks); undefined for programs built otherwise. */
    readonly ast?: Node,
  ) {}

  /** Whether the expression refers to a declared variable (not one a macro binds of that name). */
  refersTo(variable: string): boolean {
    if (!this.ast) return true;
    return (this.#free ??= freeVariables(this.ast)).has(variable);
  }

  #free: Set<string> | undefined;

  /** Evaluates; a Promise only when an authorizer must be asked. */
  evaluate(activation: Activation, options: EvalOptions = {}): EvalResult | Promise<EvalResult> {
    const vars = options.celValues ? this.bindCel(activation) : this.bind(activation);
    return this.run(vars, Math.min(options.limit ?? PER_CALL_LIMIT, Number.MAX_SAFE_INTEGER), new Map());
  }

  /** Evaluates, always as a Promise. */
  async evaluateAsync(activation: Activation, options: EvalOptions = {}): Promise<EvalResult> {
    return this.evaluate(activation, options);
  }

  private bindCel(activation: Activation): Record<string, CelValue> {
    const vars: Record<string, CelValue> = {};
    for (const name of this.declared) vars[name] = (activation[name] ?? null) as CelValue;
    return vars;
  }

  private bind(activation: Activation): Record<string, CelValue> {
    const vars: Record<string, CelValue> = {};
    for (const name of this.declared) {
      if (name === 'authorizer.requestResource') continue;
      const raw = activation[name];
      if (name === 'authorizer') {
        const b = raw as AuthorizerBinding | undefined;
        if (!b) continue;
        const a = new CelAuthorizer(b.user, (req) => b.authorize(req));
        vars.authorizer = a;
        if (b.requestResource) vars['authorizer.requestResource'] = requestResourceCheck(a, b.requestResource);
        continue;
      }
      if (name === 'variables' && typeof raw === 'function') {
        vars.variables = new LazyVariables(new Set(this.variableRefs), raw as VariableResolver);
        continue;
      }
      vars[name] = toCel(raw);
    }
    return vars;
  }

  private run(vars: Record<string, CelValue>, limit: number, decisions: Map<string, AuthorizationDecision>): EvalResult | Promise<EvalResult> {
    const s = new EvalState(limit, vars, this.slots === 0 ? [] : new Array<CelValue>(this.slots), decisions);
    try {
      return { value: this.ev(s), cost: s.cost };
    } catch (e) {
      if (e instanceof NeedsAuthorization) {
        return e.ask().then(
          (answer) => this.rerun(vars, limit, decisions, e.key, answer),
          (err: unknown) => this.rerun(vars, limit, decisions, e.key, { decision: 'noOpinion', reason: '', error: err instanceof Error ? err.message : String(err) }),
        );
      }
      if (e instanceof CostLimitExceeded || e instanceof CelEvalError) return { error: e.message, cost: s.cost };
      if (e instanceof CelInterrupt) return { error: e.message, cost: s.cost };
      throw e;
    }
  }

  private rerun(vars: Record<string, CelValue>, limit: number, decisions: Map<string, AuthorizationDecision>, key: string, answer: AuthorizationDecision): EvalResult | Promise<EvalResult> {
    decisions.set(key, answer);
    return this.run(vars, limit, decisions);
  }
}
