/**
 * The CEL expressions of admission policies, judged as upstream's validation compiles them: in the
 * Kubernetes 1.34 CEL environment of src/cel (syntax, declarations, library functions and their
 * overloads, the AST validators, and a result of a type the field takes), with upstream's message.
 *
 * Upstream compiles an expression it stores for the first time against the libraries of the
 * previous minor version (so the lists extension added in 1.34 is refused there) and an expression
 * the object already held against its own; `stored` asks for the latter.
 */
import type { FieldError } from '../api/errors.ts';
import { admissionEnvironment } from '../cel/index.ts';
import * as field from '../registry/validation/field.ts';

/** What the field's expression must evaluate to (upstream's ReturnTypes of its expression kind). */
export type CelResult = 'bool' | 'string' | 'string-or-null' | 'any';

/** The optional declarations of the expression's environment. */
export interface CelDeclarations {
  /** `params`: the policy names a paramKind. */
  readonly params: boolean;
  /** `authorizer` and `authorizer.requestResource` (every kind of expression but messageExpression). */
  readonly authorizer: boolean;
  /** The variables composed so far; undefined where `variables` is not declared at all. */
  readonly variables?: readonly string[];
  /** The expression was already stored unchanged (upstream then compiles it with its own libraries). */
  readonly stored?: boolean;
}

/**
 * The error of one expression, at most one as upstream gives (its compile errors joined in one
 * `compilation failed: …` detail); `shown` is the value the error prints (the field's own text where
 * upstream compiles a trimmed copy).
 */
export function celErrors(expression: string, at: field.FieldPath, decls: CelDeclarations, result: CelResult, shown = expression): FieldError[] {
  const env = admissionEnvironment({ params: decls.params, authorizer: decls.authorizer, variables: decls.variables, compatibility: decls.stored ? 'stored' : 'new' });
  const detail = env.problem(expression, result);
  return detail === undefined ? [] : [field.invalid(at, shown, detail)];
}
