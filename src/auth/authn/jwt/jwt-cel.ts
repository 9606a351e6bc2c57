/**
 * The CEL of JWT authenticators (AuthenticationConfiguration), in Kubernetes 1.34's environment
 * (src/cel: its libraries, cost rules, RE2 regular expressions and cel-go's error texts), as
 * upstream's authentication/cel compiler builds it: claim validation rules and claim mappings see
 * `claims` (map(string, dyn): the token's payload), user validation rules see `user`
 * (kubernetes.UserInfo). Each evaluation is bounded by the per-call cost limit alone; upstream sets
 * no budget across an authenticator's expressions.
 */
import { CelEnvironment, toCel, USER_INFO_TYPE, type CelProgram, type CelValue, type EvalResult } from '../../../cel/index.ts';

export type CelVariable = 'claims' | 'user';

/** What the expression must evaluate to (upstream's ReturnTypes: bool for rules, any for mappings). */
export type CelResult = 'bool' | 'any';

const environments = new Map<CelVariable, CelEnvironment>();

function environment(variable: CelVariable): CelEnvironment {
  let env = environments.get(variable);
  if (!env) {
    env =
      variable === 'claims'
        ? new CelEnvironment({ variables: { claims: 'map<string, dyn>' } })
        : new CelEnvironment({ variables: { user: USER_INFO_TYPE.name }, objectTypes: [USER_INFO_TYPE] });
    environments.set(variable, env);
  }
  return env;
}

/**
 * The detail of the field error upstream gives for this expression (`compilation failed: …`,
 * `must evaluate to bool`), or undefined when it compiles.
 */
export function celCompileProblem(expression: string, variable: CelVariable, result: CelResult): string | undefined {
  const problem = environment(variable).problem(expression, result);
  // The authentication compiler names the type wanted, not the one found (unlike admission's).
  if (problem?.startsWith('must evaluate to ')) return `must evaluate to ${result}`;
  return problem;
}

/**
 * A token's claims or a user as a CEL value: converted once (lazily, member by member) and read by
 * every expression, as upstream converts the claims once per token.
 */
export function celInput(value: Readonly<Record<string, unknown>>): CelValue {
  return toCel(value);
}

/** A compiled expression; evaluate throws upstream's `expression '…' resulted in error: …`. */
export interface CompiledExpression {
  readonly expression: string;
  evaluate(input: CelValue): CelValue;
}

/** Compiles an expression that celCompileProblem accepted (with the same result type). */
export function compileCel(expression: string, variable: CelVariable, result: CelResult): CompiledExpression {
  const program: CelProgram = environment(variable).compile(expression, result);
  return {
    expression,
    evaluate(input) {
      // No authorizer is declared, so evaluation is synchronous.
      const out = program.evaluate({ [variable]: input }) as EvalResult;
      if (out.error !== undefined) throw new Error(`expression '${expression}' resulted in error: ${out.error}`);
      return out.value;
    },
  };
}

/**
 * Whether the expression selects `operand.field` anywhere (`claims.email`, `claims.?email`,
 * `has(claims.email)`), as upstream detects the use of the email and email_verified claims. An
 * index (`claims["email"]`) is not a selection, as upstream.
 */
export function selectsField(expression: string, operand: CelVariable, field: string): boolean {
  return environment(operand).selectsField(expression, operand, field);
}
