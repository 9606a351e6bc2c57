/**
 * CEL environments as Kubernetes builds them, and compiling expressions in them: parse, undeclared
 * references, type check, AST validators, result type, then closures. Compile errors carry
 * upstream's text (`compilation failed: ERROR: <input>:1:3: …`). Environments and compiled programs
 * are cached, so compiling the same expression twice costs a map lookup.
 */
import { children, type Node } from './checker/ast.ts';
import { checkerEnvironment, type Compatibility, type Declarations } from './checker/environment.ts';
import { ADMISSION_REQUEST_TYPES, NAMESPACE_TYPES, VARIABLES_TYPE, type ObjectTypeDecl } from './checker/object-types.ts';
import { installOptionalEntryChecks } from './checker/optional-entries.ts';
import { patchChecks } from './checker/checker-patches.ts';
import { dynReceiverIssues } from './checker/dyn-receivers.ts';
import { referenceIssues, type MacroShape, type Scope } from './checker/references.ts';
import { parse } from './checker/syntax.ts';
import { typeIssue } from './checker/type-errors.ts';
import { resultTypeName, variableTypeOf } from './checker/type-names.ts';
import { validate } from './checker/validators.ts';
import { CelCompileError, type Issue } from './errors.ts';
import { ALL_OVERLOADS, NAMESPACES } from './lib/index.ts';
import { CelProgram } from './program.ts';
import { compile } from './runtime/compile.ts';
import { re2Error } from './runtime/re2.ts';

export type { Compatibility };

/**
 * What an expression must evaluate to: upstream's ReturnTypes, by Type.String() names (`bool`,
 * `string`, `null_type`), or anything.
 */
export type ResultType = 'any' | 'bool' | 'string' | 'string-or-null' | readonly string[];

const MACROS: [string, MacroShape][] = [
  ...(['all/2', 'exists/2', 'exists_one/2', 'existsOne/2'] as const).map((k): [string, MacroShape] => [k, { vars: 1, notIdent: 'argument must be a simple name' }]),
  ...(['map/2', 'map/3', 'filter/2'] as const).map((k): [string, MacroShape] => [k, { vars: 1, notIdent: 'argument is not an identifier' }]),
  ...(['all/3', 'exists/3', 'exists_one/3', 'existsOne/3', 'transformList/3', 'transformList/4', 'transformMap/3', 'transformMap/4', 'transformMapEntry/3', 'transformMapEntry/4'] as const).map(
    (k): [string, MacroShape] => [k, { vars: 2, notIdent: 'argument must be a simple name' }],
  ),
  ['optMap/2', { vars: 1, notIdent: 'optMap() variable name must be a simple identifier' }],
  ['optFlatMap/2', { vars: 1, notIdent: 'optFlatMap() variable name must be a simple identifier' }],
];
const SORT_BY: [string, MacroShape] = ['sortBy/2', { vars: 1, notIdent: 'argument is not an identifier' }];

/** Options of a generic environment (admissionEnvironment builds these for admission expressions). */
export interface EnvironmentOptions {
  /** Declared variables and their types in cel-js notation (`dyn`, `string`, `list<string>`). */
  readonly variables: Readonly<Record<string, string>>;
  /** Object types the variables use, nested ones first. */
  readonly objectTypes?: readonly ObjectTypeDecl[];
  /** 'stored' (default): 1.34's libraries; 'new': those 1.34 allows in newly written expressions. */
  readonly compatibility?: Compatibility;
  /** Variables whose declared `dyn` is what upstream declares too (results of these are surely dyn). */
  readonly certainlyDyn?: readonly string[];
  /** Whether the fields of `variables` carry their real types (else they are dyn for want of them). */
  readonly typedVariables?: boolean;
  /**
   * Fold constants as cel-go's OptOptimize does (default true: Kubernetes builds every program with
   * it). Only runtime costs differ; off, they are those of cel-go's unoptimized tables.
   */
  readonly optimize?: boolean;
}

export class CelEnvironment {
  readonly #decls: Declarations;
  readonly #scope: Scope;
  readonly #certainlyDyn: ReadonlySet<string>;
  readonly #typedVariables: boolean;
  readonly #optimize: boolean;
  readonly #programs = new Map<string, CelProgram | CelCompileError>();
  #checker: ReturnType<typeof checkerEnvironment> | undefined;

  constructor(options: EnvironmentOptions) {
    const compatibility = options.compatibility ?? 'stored';
    this.#decls = { variables: options.variables, objectTypes: options.objectTypes, compatibility };
    const overloads = ALL_OVERLOADS.filter((o) => compatibility === 'stored' || !o.storedOnly);
    this.#scope = {
      variables: new Set(Object.keys(options.variables)),
      functions: new Set([...overloads.map((o) => o.name), 'or', 'orValue']),
      namespaces: NAMESPACES,
      macros: new Map(compatibility === 'stored' ? [...MACROS, SORT_BY] : MACROS),
    };
    this.#certainlyDyn = new Set(options.certainlyDyn ?? Object.keys(options.variables));
    this.#typedVariables = options.typedVariables ?? true;
    this.#optimize = options.optimize ?? true;
  }

  get compatibility(): Compatibility {
    return this.#decls.compatibility;
  }

  /** Compiles an expression (cached); throws CelCompileError with upstream's message. */
  compile(expression: string, expected: ResultType = 'any'): CelProgram {
    const key = `${JSON.stringify(expected)}\u0000${expression}`;
    let p = this.#programs.get(key);
    if (p === undefined) {
      try {
        p = this.#compile(expression, expected);
      } catch (e) {
        // An expression must never take the server down: what cel-js or this package did not
        // foresee is refused as upstream refuses an internal failure of its compiler.
        p = e instanceof CelCompileError ? e : new CelCompileError(`unexpected compilation error: ${e instanceof Error ? e.message : String(e)}`, []);
      }
      if (this.#programs.size >= 1000) this.#programs.clear();
      this.#programs.set(key, p);
    }
    if (p instanceof CelCompileError) throw p;
    return p;
  }

  /** Why an expression does not compile (upstream's detail), or undefined when it does. */
  problem(expression: string, expected: ResultType = 'any'): string | undefined {
    try {
      this.compile(expression, expected);
      return undefined;
    } catch (e) {
      if (e instanceof CelCompileError) return e.message;
      throw e;
    }
  }

  #compile(expression: string, expected: ResultType): CelProgram {
    const env = (this.#checker ??= checkerEnvironment(this.#decls));
    const parsed = parse(env, expression);
    const fail = (issues: Issue[]) => CelCompileError.of(expression, issues);
    if (Array.isArray(parsed)) throw fail(parsed);
    const { ast, optionalEntries } = parsed;
    const refs = referenceIssues(ast, this.#scope);
    if (refs.length > 0) throw fail(refs);
    installOptionalEntryChecks(ast, optionalEntries);
    patchChecks(ast);
    const checked = parsed.check();
    if (!checked.valid) throw fail([typeIssue(checked.error as never, ast, NAMESPACES)]);
    const dynCalls = dynReceiverIssues(ast, this.#scope, this.#decls.compatibility === 'stored');
    if (dynCalls.length > 0) throw fail(dynCalls);
    const invalid = validate(ast, optionalEntries);
    if (invalid.length > 0) throw fail(invalid);
    const regex = findRegexError(ast);
    if (regex) throw new CelCompileError(`program instantiation failed: ${regex}`, []);
    const outputType = resultTypeName(ast.checkedType?.name ?? 'dyn');
    const mismatch = this.#resultMismatch(ast, outputType, expected);
    if (mismatch) throw new CelCompileError(mismatch, []);
    const compiled = compile(ast, { variables: this.#scope.variables, optionalEntries, storedOnly: this.#decls.compatibility === 'stored', optimize: this.#optimize });
    const variableType = variableTypeOf(ast.checkedType?.name ?? 'dyn');
    return new CelProgram(expression, outputType, compiled.ev, compiled.slots, this.#scope.variables, variableRefs(ast), usesVariable(ast, 'authorizer'), variableType, ast);
  }

  /**
   * "must evaluate to bool but got int". cel-js infers dyn for some expressions cel-go types exactly
   * (a function's result on a dyn receiver); a dyn result is only held against an expression when
   * it is a field path of a variable that is dyn upstream too.
   */
  #resultMismatch(ast: Node, got: string, expected: ResultType): string | undefined {
    if (expected === 'any') return undefined;
    const want = expected === 'string-or-null' ? ['string', 'null_type'] : typeof expected === 'string' ? [expected] : expected;
    if (want.includes(got)) return undefined;
    if (got === 'dyn' && !this.#isCertainlyDyn(ast)) return undefined;
    if (/\b[A-Z]\b/.test(ast.checkedType?.name ?? '')) return undefined;
    return want.length === 1 ? `must evaluate to ${want[0]} but got ${got}` : `must evaluate to one of [${want.join(' ')}] but got ${got}`;
  }

  #isCertainlyDyn(node: Node): boolean {
    if (node.op === 'id') return this.#certainlyDyn.has(node.args as string);
    // optional_type(dyn).orValue(x) is dyn whatever x is (cel-go binds its T to the receiver's dyn).
    if (node.op === 'rcall' && node.args[0] === 'orValue') {
      const receiver = node.args[1] as Node;
      return (receiver.op === '.?' || receiver.op === '[?]') && this.#selectsCertainlyDyn(receiver);
    }
    if (node.op !== '.' && node.op !== '[]') return false;
    return this.#selectsCertainlyDyn(node);
  }

  /** Whether a selection or index (`a.b`, `a[k]`, `a.?b`) yields a value cel-go types dyn too. */
  #selectsCertainlyDyn(node: Node): boolean {
    const operand = node.args[0] as Node;
    const t = operand.checkedType;
    if (!t) return false;
    if (t.kind === 'dyn') return this.#isCertainlyDyn(operand);
    // A variable declared map(string, dyn) as upstream declares it (authentication's `claims`).
    if (t.kind === 'map' && t.valueType?.kind === 'dyn') return operand.op === 'id' && this.#certainlyDyn.has(operand.args as string);
    // A field declared dyn in an object type (request.options); `variables` only when typed.
    return t.kind === 'message' && !(operand.op === 'id' && operand.args === 'variables' && !this.#typedVariables);
  }

  /**
   * Whether the expression selects `operand.field` anywhere (`claims.email`, `claims.?email`,
   * `has(claims.email)`), as upstream's hasSelectExp looks for a claim's use; an index
   * (`claims["email"]`) is no selection. False for an expression that does not parse.
   */
  selectsField(expression: string, operand: string, field: string): boolean {
    const parsed = parse((this.#checker ??= checkerEnvironment(this.#decls)), expression);
    return !Array.isArray(parsed) && selects(parsed.ast, operand, field);
  }
}

function selects(node: Node, operand: string, field: string): boolean {
  if (node.op === '.' || node.op === '.?') {
    const target = node.args[0] as Node;
    if (target.op === 'id' && target.args === operand && node.args[1] === field) return true;
  }
  return children(node).some((c) => selects(c, operand, field));
}

/** The `variables.<name>` an expression reads. */
function variableRefs(ast: Node): string[] {
  const refs = new Set<string>();
  const visit = (n: Node) => {
    if ((n.op === '.' || n.op === '.?') && (n.args[0] as Node).op === 'id' && (n.args[0] as Node).args === 'variables') refs.add(n.args[1] as string);
    if ((n.op === '[]' || n.op === '[?]') && (n.args[0] as Node).op === 'id' && (n.args[0] as Node).args === 'variables' && (n.args[1] as Node).op === 'value') refs.add(String((n.args[1] as Node).args));
    for (const c of children(n)) visit(c);
  };
  visit(ast);
  return [...refs];
}

function usesVariable(ast: Node, name: string): boolean {
  return (ast.op === 'id' && ast.args === name) || children(ast).some((c) => usesVariable(c, name));
}

/** find/findAll with a literal pattern compile it when the program is built (RegexOptimization). */
function findRegexError(ast: Node): string | undefined {
  if (ast.op === 'rcall' && (ast.args[0] === 'find' || ast.args[0] === 'findAll')) {
    const re = (ast.args[2] as Node[])[0];
    const err = re && re.op === 'value' && typeof re.args === 'string' ? re2Error(re.args) : undefined;
    if (err) return err;
  }
  for (const c of children(ast)) {
    const err = findRegexError(c);
    if (err) return err;
  }
  return undefined;
}

// ---- the admission environment ----

export interface AdmissionEnvironmentOptions {
  /** `params` is declared (the policy names a paramKind). */
  readonly params: boolean;
  /** `authorizer` and `authorizer.requestResource` are declared (not for messageExpression). */
  readonly authorizer: boolean;
  /**
   * The variables composed so far: their names (types unknown, taken as dyn) or names with their
   * types in cel-js notation; undefined where `variables` is not declared at all.
   */
  readonly variables?: readonly string[] | Readonly<Record<string, string>>;
  readonly compatibility?: Compatibility;
  /** Fold constants as cel-go's OptOptimize does (default true, as Kubernetes does). */
  readonly optimize?: boolean;
}

const admissionEnvironments = new Map<string, CelEnvironment>();

/**
 * The environment of ValidatingAdmissionPolicy expressions (and of webhook matchConditions, which
 * declare no variables): object, oldObject, params (dyn), request (kubernetes.AdmissionRequest),
 * namespaceObject (kubernetes.Namespace), authorizer, variables, and every library 1.34 enables.
 */
export function admissionEnvironment(options: AdmissionEnvironmentOptions): CelEnvironment {
  const key = JSON.stringify([options.params, options.authorizer, options.variables ?? null, options.compatibility ?? 'stored', options.optimize ?? true]);
  let env = admissionEnvironments.get(key);
  if (env) return env;
  const variables: Record<string, string> = { object: 'dyn', oldObject: 'dyn', request: 'kubernetes.AdmissionRequest', namespaceObject: 'kubernetes.Namespace' };
  const certainlyDyn = ['object', 'oldObject'];
  if (options.params) {
    variables.params = 'dyn';
    certainlyDyn.push('params');
  }
  if (options.authorizer) {
    variables.authorizer = 'kubernetes.authorization.Authorizer';
    variables['authorizer.requestResource'] = 'kubernetes.authorization.ResourceCheck';
  }
  const objectTypes: ObjectTypeDecl[] = [...ADMISSION_REQUEST_TYPES, ...NAMESPACE_TYPES];
  if (options.variables !== undefined) {
    const typed = Array.isArray(options.variables) ? undefined : (options.variables as Readonly<Record<string, string>>);
    const fields = typed ?? Object.fromEntries((options.variables as readonly string[]).map((n) => [n, 'dyn']));
    objectTypes.push({ name: VARIABLES_TYPE, fields });
    variables.variables = VARIABLES_TYPE;
  }
  const typedVariables = options.variables !== undefined && !Array.isArray(options.variables);
  env = new CelEnvironment({ variables, objectTypes, compatibility: options.compatibility, certainlyDyn, typedVariables, optimize: options.optimize });
  if (admissionEnvironments.size >= 500) admissionEnvironments.clear();
  admissionEnvironments.set(key, env);
  return env;
}
