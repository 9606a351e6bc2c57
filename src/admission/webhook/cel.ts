/**
 * The one place the webhook plugins touch CEL (src/cel, Kubernetes 1.34's environment): compiling
 * a webhook's matchConditions in the admission environment (`object`, `oldObject`, `request`,
 * `authorizer`; no params) and evaluating them with upstream's cost rules: each call within the
 * per-call limit, all of a webhook's conditions within the match-conditions budget.
 */
import {
  admissionEnvironment,
  CelCompileError,
  compileExpression,
  OUT_OF_BUDGET,
  PER_CALL_LIMIT,
  RUNTIME_CEL_COST_BUDGET_MATCH_CONDITIONS,
  type AuthorizerBinding,
  type CelProgram,
  type EvalResult,
} from '../../cel/index.ts';

export type { AuthorizerBinding };

export interface ConditionSource {
  readonly name: string;
  readonly expression: string;
}

/** The values an evaluation sees: JSON as decoded, and who may be asked about authorization. */
export interface ConditionInput {
  readonly object: unknown;
  readonly oldObject: unknown;
  readonly request: unknown;
  readonly authorizer: AuthorizerBinding;
}

/** One condition's outcome: its value, or the error upstream's evaluator reports. */
export type ConditionResult = { readonly name: string; readonly value: unknown } | { readonly name: string; readonly error: string };

/** Every condition's outcome, or an error that ends the evaluation (the budget is spent). */
export type ConditionsOutcome = { readonly results: ConditionResult[] } | { readonly fatal: string };

export interface CompiledConditions {
  evaluate(input: ConditionInput): Promise<ConditionsOutcome>;
}

type Compiled = { readonly name: string; readonly expression: string; readonly program?: CelProgram; readonly error?: string };

/**
 * Compiles the conditions once (as stored expressions, which upstream compiles with the newest
 * environment); one that does not compile evaluates to its compile error (`compilation error: …`).
 */
export function compileConditions(conditions: readonly ConditionSource[]): CompiledConditions {
  const env = admissionEnvironment({ params: false, authorizer: true });
  const compiled: Compiled[] = conditions.map((c) => {
    try {
      return { ...c, program: compileExpression(env, c.expression, 'bool') };
    } catch (err) {
      if (!(err instanceof CelCompileError)) throw err;
      return { ...c, error: `compilation error: ${err.message}` };
    }
  });
  return {
    async evaluate(input) {
      const activation = { object: input.object ?? null, oldObject: input.oldObject ?? null, request: input.request, namespaceObject: null, authorizer: input.authorizer };
      let remaining = RUNTIME_CEL_COST_BUDGET_MATCH_CONDITIONS;
      const results: ConditionResult[] = [];
      for (const c of compiled) {
        if (!c.program) {
          results.push({ name: c.name, error: c.error! });
          continue;
        }
        const out: EvalResult = await c.program.evaluate(activation, { limit: PER_CALL_LIMIT });
        if (out.cost > remaining) return { fatal: OUT_OF_BUDGET };
        remaining -= out.cost;
        if (out.error !== undefined) results.push({ name: c.name, error: `expression '${c.expression}' resulted in error: ${out.error}` });
        else results.push({ name: c.name, value: out.value });
      }
      return { results };
    },
  };
}
