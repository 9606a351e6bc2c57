/**
 * The one file between the ValidatingAdmissionPolicy plugin and the CEL implementation
 * (`src/cel`, Kubernetes 1.34's environment, libraries and cost accounting): compiling an
 * expression for the policy environment (`object`, `oldObject`, `request`, `namespaceObject`,
 * optional `params`, `authorizer` and `variables`), evaluating it with the per-call cost limit, and
 * type-checking expressions against kinds' schemas for the status controller. The rest of the
 * plugin sees only what this file exports.
 */
import {
  ADMISSION_REQUEST_TYPES,
  admissionEnvironment,
  CelCompileError,
  CelEnvironment,
  CelEvalError,
  compileExpression,
  COST_LIMIT_EXCEEDED as CEL_COST_LIMIT_EXCEEDED,
  evalError,
  formatIssues,
  NAMESPACE_TYPES,
  PER_CALL_LIMIT as CEL_PER_CALL_LIMIT,
  RUNTIME_CEL_COST_BUDGET,
  RUNTIME_CEL_COST_BUDGET_MATCH_CONDITIONS,
  typeName,
  type AuthorizationDecision as CelAuthorizationDecision,
  type AuthorizationRequest,
  type CelProgram,
  type CelValue,
  type EvalResult,
  type ObjectTypeDecl,
} from '../../cel/index.ts';
import type { TypeSchema } from '../../schema/type-schema.ts';

/** upstream's PerCallLimit: the most one expression may cost. */
export const PER_CALL_LIMIT = CEL_PER_CALL_LIMIT;
/** upstream's RuntimeCELCostBudget: what the expressions of one binding (and param) may cost together. */
export const RUNTIME_COST_BUDGET = RUNTIME_CEL_COST_BUDGET;
/** upstream's RuntimeCELCostBudgetMatchConditions. */
export const MATCH_CONDITIONS_COST_BUDGET = RUNTIME_CEL_COST_BUDGET_MATCH_CONDITIONS;
/** cel-go's error when one expression goes over PER_CALL_LIMIT. */
export const COST_LIMIT_EXCEEDED = CEL_COST_LIMIT_EXCEEDED;

/** What an expression must evaluate to (upstream's ReturnTypes of its kind of expression). */
export type ResultType = 'bool' | 'string' | 'string-or-null' | 'any';

/** The optional declarations of a policy expression's environment. */
export interface Declarations {
  readonly params: boolean;
  readonly authorizer: boolean;
  /**
   * The variables declared before this expression, with their types (from `outputType`); undefined
   * where `variables` is not declared.
   */
  readonly variables?: Readonly<Record<string, string>>;
}

/** One authorization question, as the `authorizer` library asks it. */
export type AuthorizationCheck = AuthorizationRequest;
/** An authorizer's answer, as `Decision` shows it. */
export type AuthorizationDecision = CelAuthorizationDecision;

/** The `authorizer` variable: the requester, how to ask, and what the request itself addresses. */
export interface AuthorizerBinding {
  readonly user: AuthorizationRequest['user'];
  authorize(check: AuthorizationCheck): Promise<AuthorizationDecision>;
  readonly requestResource: { readonly group: string; readonly resource: string; readonly subresource: string; readonly namespace: string; readonly name: string };
}

/**
 * The values an expression is evaluated with: JSON as stored (converted when read), or values an
 * earlier evaluation produced. `variables` resolves a variable by name, throwing an Error whose
 * message is what the expression reports.
 */
export interface Activation {
  readonly object: unknown;
  readonly oldObject: unknown;
  readonly request: unknown;
  readonly namespaceObject: unknown;
  readonly params?: unknown;
  readonly authorizer?: AuthorizerBinding;
  readonly variables?: (name: string) => unknown;
}

/** The outcome of one evaluation: a value, or upstream's text of what went wrong; and what it cost. */
export type Evaluation = { readonly value: unknown; readonly cost: number; readonly error?: undefined } | { readonly error: string; readonly cost: number; readonly value?: undefined };

export interface CompiledExpression {
  readonly expression: string;
  /** Why the expression does not compile, in upstream's words; the rest is then unusable. */
  readonly error?: string;
  /** The names of the variables it refers to (`variables.x`). */
  readonly variableRefs: readonly string[];
  /** Its type, as a variable of that type is declared to later expressions (dyn when it does not compile). */
  readonly outputType: string;
  /** Whether its evaluation can wait (authorizer checks). */
  readonly async: boolean;
  /** Evaluates it within the per-call cost limit. */
  evaluate(activation: Activation): Evaluation | Promise<Evaluation>;
}

/** A JSON value as the evaluator takes it (objects are read lazily, as they are). */
export function toCel(value: unknown): unknown {
  return value;
}

/** The CEL type of an evaluation's value, as cel-go names it. */
export function celTypeOf(value: unknown): string {
  return value === undefined ? 'null_type' : typeName(value as CelValue);
}

function resolver(resolve: (name: string) => unknown): (name: string) => CelValue {
  return (name) => {
    try {
      return resolve(name) as CelValue;
    } catch (err) {
      if (err instanceof CelEvalError) throw err;
      throw evalError(err instanceof Error ? err.message : String(err));
    }
  };
}

function evaluation(r: EvalResult): Evaluation {
  return r.error !== undefined ? { error: r.error, cost: r.cost } : { value: r.value, cost: r.cost };
}

/**
 * Compiles an expression for the policy environment; `result` is what it must evaluate to. A
 * compile error is kept as upstream words it (the expression is then reported, not thrown).
 */
export function compile(expression: string, decls: Declarations, result: ResultType): CompiledExpression {
  let program: CelProgram;
  try {
    program = compileExpression(admissionEnvironment({ params: decls.params, authorizer: decls.authorizer, variables: decls.variables }), expression, result);
  } catch (err) {
    if (!(err instanceof CelCompileError)) throw err;
    const error = err.message;
    return { expression, error, variableRefs: [], outputType: 'dyn', async: false, evaluate: () => ({ error, cost: 0 }) };
  }
  return {
    expression,
    variableRefs: program.variableRefs,
    outputType: celJsType(program.outputType),
    async: program.usesAuthorizer,
    evaluate(activation: Activation): Evaluation | Promise<Evaluation> {
      const values: Record<string, unknown> = {
        object: activation.object,
        oldObject: activation.oldObject,
        request: activation.request,
        namespaceObject: activation.namespaceObject,
        params: activation.params ?? null,
      };
      if (activation.authorizer) values.authorizer = activation.authorizer;
      if (activation.variables) values.variables = resolver(activation.variables);
      const out = program.evaluate(values);
      return out instanceof Promise ? out.then(evaluation) : evaluation(out);
    },
  };
}

// ---- type checking against schemas (the status controller) ----

const VARIABLES_TYPE = 'kubernetes.variables';

/** Object types of schemas, named once per schema object (`<prefix>.<goName>`, numbered when names repeat). */
class SchemaTypes {
  readonly decls: ObjectTypeDecl[] = [];
  readonly #names = new Map<TypeSchema, string>();
  readonly #used = new Set<string>();

  constructor(readonly prefix: string) {}

  /** The cel-js notation of a schema's type, declaring the object types it needs. */
  typeOf(schema: TypeSchema): string {
    switch (schema.kind) {
      case 'string':
        if (schema.format === 'date-time' || schema.format === 'micro-time') return 'google.protobuf.Timestamp';
        if (schema.format === 'byte') return 'bytes';
        if (schema.format === 'duration') return 'google.protobuf.Duration';
        // Quantities are int-or-string in OpenAPI.
        return schema.format === 'quantity' ? 'dyn' : 'string';
      case 'integer':
        return 'int';
      case 'number':
        return 'double';
      case 'boolean':
        return 'bool';
      case 'array':
        return `list<${this.typeOf(schema.items)}>`;
      case 'map':
        return `map<string, ${this.typeOf(schema.values)}>`;
      case 'object': {
        const known = this.#names.get(schema);
        if (known) return known;
        let name = `${this.prefix}.${schema.goName || 'Object'}`;
        for (let n = 2; this.#used.has(name); n++) name = `${this.prefix}.${schema.goName || 'Object'}${n}`;
        this.#used.add(name);
        this.#names.set(schema, name);
        const fields: Record<string, string> = {};
        for (const [fieldName, node] of schema.fields) fields[fieldName] = this.typeOf(node.schema);
        // Nested types first, as the environment wants them.
        this.decls.push({ name, fields });
        return name;
      }
      default:
        return 'dyn';
    }
  }
}

/** cel-go's Type.String() spelling (what compiled programs report) in cel-js notation. */
function celJsType(t: string): string {
  return t
    .replace(/\boptional_type\(/g, 'optional<')
    .replace(/\b(list|map)\(/g, '$1<')
    .replace(/\)/g, '>')
    .replace(/\bnull_type\b/g, 'null');
}

export interface TypedTarget {
  /** The matched kind's schema (`object` and `oldObject`). */
  readonly object: TypeSchema;
  /** The param kind's schema; `undeclared` where upstream's checker cannot type params (it then leaves them out). */
  readonly params?: TypeSchema | 'undeclared';
  /** The policy's variables, in order. */
  readonly variables: readonly { readonly name: string; readonly expression: string }[];
}

/**
 * A checker of expressions against a kind (upstream's typechecking.go): object, oldObject and
 * params typed from their schemas, variables typed by their expressions in order. It returns the
 * issues of an expression as cel-go's Issues.String() prints them, or undefined when it checks.
 */
export function typedChecker(target: TypedTarget): (expression: string) => string | undefined {
  const types = new SchemaTypes('kubernetes.checked');
  const objectType = types.typeOf(target.object);
  const paramsType = target.params === 'undeclared' ? undefined : target.params ? types.typeOf(target.params) : 'dyn';
  const base: Record<string, string> = {
    object: objectType,
    oldObject: objectType,
    request: 'kubernetes.AdmissionRequest',
    namespaceObject: 'kubernetes.Namespace',
    authorizer: 'kubernetes.authorization.Authorizer',
    'authorizer.requestResource': 'kubernetes.authorization.ResourceCheck',
  };
  if (paramsType) base.params = paramsType;
  const environment = (variables: Readonly<Record<string, string>>) =>
    new CelEnvironment({
      variables: { ...base, variables: VARIABLES_TYPE },
      objectTypes: [...ADMISSION_REQUEST_TYPES, ...NAMESPACE_TYPES, ...types.decls, { name: VARIABLES_TYPE, fields: variables }],
    });
  const variableTypes: Record<string, string> = {};
  for (const v of target.variables) {
    let t = 'dyn';
    try {
      t = celJsType(environment(variableTypes).compile(v.expression, 'any').outputType);
    } catch (err) {
      if (!(err instanceof CelCompileError)) throw err;
    }
    variableTypes[v.name] = t;
  }
  const env = environment(variableTypes);
  return (expression) => {
    try {
      env.compile(expression, 'any');
      return undefined;
    } catch (err) {
      if (!(err instanceof CelCompileError)) throw err;
      return err.issues.length > 0 ? formatIssues(expression, err.issues) : err.message;
    }
  };
}
