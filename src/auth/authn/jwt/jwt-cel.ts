/**
 * The CEL of JWT authenticators (AuthenticationConfiguration): claim validation rules and claim
 * mappings see `claims` (the token's payload, a map of string to any), user validation rules see
 * `user` (username, uid, groups, extra). Compile problems are judged as far as @marcbachmann/cel-js
 * can tell them apart from gaps of its own: syntax, undeclared variables, unknown `user` fields, and
 * a result that is certainly not the bool a rule needs. An expression using a function cel-js lacks
 * is accepted here and fails when evaluated, so a valid file is never refused for cel-js's sake.
 */
import { Environment, type ASTNode } from '@marcbachmann/cel-js';

export type CelVariable = 'claims' | 'user';

/** What the expression must evaluate to (upstream's ReturnTypes: bool for rules, any for mappings). */
export type CelResult = 'bool' | 'any';

/** A compiled expression: its value for one input (throws when evaluation fails). */
export type CelProgram = (input: unknown) => unknown;

/** kubernetes.UserInfo as the user validation rules see it. */
const USER_SCHEMA = { username: 'string', uid: 'string', groups: 'list<string>', extra: 'map<string, list<string>>' };

const environments = new Map<CelVariable, Environment>();

function environment(variable: CelVariable): Environment {
  let env = environments.get(variable);
  if (!env) {
    // No structural limits of cel-js's own: upstream's parser has none on list, map or argument counts.
    env = new Environment({ enableOptionalTypes: true, limits: { maxAstNodes: 1e7, maxListElements: 1e7, maxMapEntries: 1e7, maxCallArguments: 1e7 } });
    if (variable === 'claims') env.registerVariable('claims', 'map<string, dyn>');
    else env.registerVariable('user', { schema: USER_SCHEMA });
    environments.set(variable, env);
  }
  return env;
}

interface CelIssue {
  readonly summary?: string;
  readonly code?: string;
  readonly range?: { readonly start: number };
}

/**
 * The detail of the field error upstream gives for this expression (`compilation failed: …`,
 * `must evaluate to bool`), or undefined when it compiles.
 */
export function celCompileProblem(expression: string, variable: CelVariable, result: CelResult): string | undefined {
  const env = environment(variable);
  let checked: { valid: boolean; type?: string; error?: CelIssue };
  try {
    env.parse(expression);
    checked = env.check(expression) as typeof checked;
  } catch (err) {
    const e = err as CelIssue & { message?: string };
    return compilationFailed(expression, e.range?.start ?? 0, `Syntax error: ${e.summary ?? String(e.message).split('\n')[0]}`);
  }
  if (!checked.valid) {
    const issue = checked.error ?? {};
    const at = issue.range?.start ?? 0;
    const unknownVariable = /^Unknown variable: (.*)$/.exec(issue.summary ?? '');
    if (unknownVariable) return compilationFailed(expression, at, `undeclared reference to '${unknownVariable[1]}' (in container '')`);
    const unknownField = /^No such key: (.*)$/.exec(issue.summary ?? '');
    if (unknownField && variable === 'user') return compilationFailed(expression, Math.max(expression.lastIndexOf('.', at), 0), `undefined field '${unknownField[1]}'`);
    // Anything else may be a function or overload of Kubernetes' CEL libraries that cel-js lacks.
    return undefined;
  }
  if (result === 'bool' && checked.type && checked.type !== 'bool' && checked.type !== 'dyn') return 'must evaluate to bool';
  return undefined;
}

/** Compiles an expression that celCompileProblem accepted. */
export function compileCel(expression: string, variable: CelVariable): CelProgram {
  const program = environment(variable).parse(expression);
  return (input) => program({ [variable]: input });
}

/**
 * Whether the expression selects `operand.field` anywhere (`claims.email`, `claims.?email`,
 * `has(claims.email)`), as upstream detects the use of the email and email_verified claims. An
 * index (`claims["email"]`) is not a selection, as upstream.
 */
export function selectsField(expression: string, operand: string, field: string): boolean {
  let ast: ASTNode;
  try {
    ast = environment('claims').parse(expression).ast;
  } catch {
    return false;
  }
  const visit = (node: unknown): boolean => {
    if (Array.isArray(node)) return node.some(visit);
    if (typeof node !== 'object' || node === null || !('op' in node)) return false;
    const n = node as ASTNode;
    if (n.op === '.' || n.op === '.?') {
      const [target, name] = n.args;
      if (target.op === 'id' && target.args === operand && name === field) return true;
      return visit(target);
    }
    return visit(n.args);
  };
  return visit(ast);
}

/** cel-go's display of one error: `ERROR: <input>:line:column: message`, the source line and a caret. */
function compilationFailed(src: string, at: number, message: string): string {
  const lineStart = src.lastIndexOf('\n', at - 1) + 1;
  const lineEnd = src.indexOf('\n', lineStart);
  const lineText = src.slice(lineStart, lineEnd < 0 ? src.length : lineEnd);
  const line = src.slice(0, lineStart).split('\n').length;
  const column = [...src.slice(lineStart, at)].length;
  return `compilation failed: ERROR: <input>:${line}:${column + 1}: ${message}\n | ${lineText}\n | ${'.'.repeat(column)}^`;
}
