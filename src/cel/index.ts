/**
 * The Kubernetes 1.34 CEL environment: compile-time checks with upstream's error texts, the
 * libraries Kubernetes enables, evaluation with upstream's runtime cost accounting, and the static
 * cost estimate of a compiled expression (`estimateCost(program, sizes)`, cel-go's estimator with
 * Kubernetes' call costs).
 *
 *   const env = admissionEnvironment({ params: false, authorizer: true, variables: ['isProd'] });
 *   const program = compileExpression(env, 'object.spec.replicas <= 5', 'bool');
 *   const result = program.evaluate({ object, oldObject, request, namespaceObject, authorizer, variables });
 *   // { value: true, cost: 4 } or { error: 'no such key: spec', cost: 2 } (a Promise only when
 *   // the authorizer is asked)
 */
import type { CelEnvironment, ResultType } from './environment.ts';
import type { CelProgram } from './program.ts';

export { admissionEnvironment, CelEnvironment, type AdmissionEnvironmentOptions, type Compatibility, type EnvironmentOptions, type ResultType } from './environment.ts';
export { ADMISSION_REQUEST_TYPES, NAMESPACE_TYPES, USER_INFO_TYPE, type ObjectTypeDecl } from './checker/object-types.ts';
export { SUBJECT_ACCESS_REVIEW_TYPES } from './checker/subject-access-review-types.ts';
export { CelProgram, PER_CALL_LIMIT, type Activation, type AuthorizerBinding, type EvalOptions, type EvalResult } from './program.ts';
export { CelCompileError, CelEvalError, COST_LIMIT_EXCEEDED, evalError, formatIssues, type Issue } from './errors.ts';
export { fromCel, JsonMap, toCel, type Json } from './json.ts';
export { LazyVariables, type VariableResolver } from './runtime/variables.ts';
export type { AuthorizationDecision } from './runtime/state.ts';
export type { AuthorizationRequest, AuthzUser } from './lib/authz.ts';
export { equals as celEquals, unorderedList } from './runtime/ops.ts';
export { estimateCost, MAX_U64, type AstNode, type CostEstimate, type GoType, type SizeEstimate, type SizeEstimator } from './estimate/index.ts';
export { CelDuration, CelObject, CelOptional, CelTimestamp, CelType, CelUint, isMap, JsonMapBase, typeName, type CelMap, type CelValue, type MapKey } from './values.ts';

/** upstream's RuntimeCELCostBudget: what the expressions of one policy evaluation may cost together. */
export const RUNTIME_CEL_COST_BUDGET = 10_000_000;
/** upstream's RuntimeCELCostBudgetMatchConditions. */
export const RUNTIME_CEL_COST_BUDGET_MATCH_CONDITIONS = 2_500_000;
/** upstream's error once a policy's budget is spent. */
export const OUT_OF_BUDGET = 'validation failed due to running out of cost budget, no further validation rules will be run';

/** Compiles an expression (cached per environment); throws CelCompileError with upstream's message. */
export function compileExpression(env: CelEnvironment, expression: string, expected: ResultType = 'any'): CelProgram {
  return env.compile(expression, expected);
}
