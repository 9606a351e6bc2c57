/**
 * Compiling the `x-kubernetes-validations` of one schema node (compilation.go's Compile): `self`
 * declared as the node's type, `oldSelf` as the same type (or optional of it for rules with
 * `optionalOldSelf`), each rule checked to be a bool and each messageExpression a string, with
 * upstream's error texts, and the worst-case cost of each estimated from the schema's sizes.
 *
 * Expressions a CRD already stored compile with all of 1.34's libraries; new ones with those 1.34
 * allows in new expressions (upstream's NewExpressions and StoredExpressions environments).
 */
import { CelCompileError, CelEnvironment, estimateCost, type CelProgram, type Compatibility } from '../../cel/index.ts';
import type { ValidationRule } from '../schema/types.ts';
import type { Structural } from '../schema/structural.ts';
import { declarations, schemaSizeEstimator, uniqueSelfTypeName, upstreamTypeNames } from './declarations.ts';
import { maxCardinality, type DeclType } from './decl-type.ts';
import { validFieldPath } from './field-path.ts';

/** Why a rule or message expression does not compile (upstream's apiservercel.Error). */
export interface CompileProblem {
  /** `Invalid` for the author's mistakes, `Internal` for ours. */
  readonly type: 'Invalid' | 'Internal';
  readonly detail: string;
}

/** One rule compiled (upstream's CompilationResult). */
export interface CompiledRule {
  readonly rule: ValidationRule;
  /** The program; undefined when the rule is empty or does not compile. */
  readonly program?: CelProgram;
  readonly error?: CompileProblem;
  /** Whether the rule refers to `oldSelf` (a transition rule). */
  readonly usesOldSelf: boolean;
  /** The estimated worst-case cost of one evaluation. */
  readonly maxCost: bigint;
  /** How many times the rule could run in one request if nothing above it bounds it. */
  readonly maxCardinality: bigint;
  readonly messageExpression?: CelProgram;
  readonly messageExpressionError?: CompileProblem;
  readonly messageExpressionMaxCost: bigint;
  /** `fieldPath` normalized (`.spec['a.b']` → `spec[a.b]`), when it is a valid path. */
  readonly normalizedFieldPath?: string;
}

/**
 * Which expressions a CRD already held (they compile with every 1.34 library), or 'all' (a served
 * CRD's validator compiles every expression as stored).
 */
export type PreexistingExpressions = 'all' | StoredExpressions;

/** The rules and message expressions a CRD held before an update. */
export interface StoredExpressions {
  readonly rules: ReadonlySet<string>;
  readonly messageExpressions: ReadonlySet<string>;
}

export const ALL_STORED: PreexistingExpressions = 'all';
/** No expression is stored (a CRD being created). */
export const NONE_STORED: PreexistingExpressions = { rules: new Set(), messageExpressions: new Set() };

/** The environment an expression compiles in: stored ones get every library, new ones the previous release's. */
function compatibilityOf(preexisting: PreexistingExpressions, kind: 'rules' | 'messageExpressions', expression: string): Compatibility {
  return preexisting === 'all' || preexisting[kind].has(expression) ? 'stored' : 'new';
}

interface RuleEnvironments {
  /** oldSelf of the node's type / optional of it, by compatibility. */
  get(optionalOldSelf: boolean, compatibility: Compatibility): CelEnvironment;
}

function environments(decl: DeclType): RuleEnvironments {
  const { selfType, objectTypes } = declarations(decl, uniqueSelfTypeName());
  const cache = new Map<string, CelEnvironment>();
  return {
    get(optionalOldSelf, compatibility) {
      const key = `${optionalOldSelf}/${compatibility}`;
      let env = cache.get(key);
      if (!env) {
        env = new CelEnvironment({ variables: { self: selfType, oldSelf: optionalOldSelf ? `optional<${selfType}>` : selfType }, objectTypes, compatibility });
        cache.set(key, env);
      }
      return env;
    },
  };
}

/** A compile error as upstream words it, `prefix` naming the kind of expression. */
function problem(err: CelCompileError, kind: 'rule' | 'messageExpression'): CompileProblem {
  const msg = upstreamTypeNames(err.message);
  if (err.issues.length === 0 && msg.startsWith('must evaluate to')) {
    return { type: 'Invalid', detail: kind === 'rule' ? 'cel expression must evaluate to a bool' : 'messageExpression must evaluate to a string' };
  }
  if (msg.startsWith('unexpected compilation error: ')) {
    return { type: 'Internal', detail: kind === 'rule' ? msg : `unexpected messageExpression compilation error: ${msg.slice('unexpected compilation error: '.length)}` };
  }
  if (kind === 'rule') return { type: 'Invalid', detail: msg };
  if (msg.startsWith('compilation failed: ')) return { type: 'Invalid', detail: `messageExpression ${msg}` };
  if (msg.startsWith('program instantiation failed: ')) return { type: 'Invalid', detail: `messageExpression instantiation failed: ${msg.slice('program instantiation failed: '.length)}` };
  return { type: 'Invalid', detail: `messageExpression ${msg}` };
}

/**
 * Compiles the rules of a node whose declaration is `decl` (undefined: the node has none, which
 * upstream refuses as a failure to build declarations). Empty rules yield results without
 * program or error.
 */
export function compileRules(node: Structural, rules: readonly ValidationRule[], decl: DeclType | undefined, preexisting: PreexistingExpressions): CompiledRule[] | Error {
  if (rules.length === 0) return [];
  if (!decl) return new Error('failed to convert to declType for CEL validation rules');
  const envs = environments(decl);
  const sizes = schemaSizeEstimator(decl);
  const cardinality = maxCardinality(decl.minSerializedSize);
  return rules.map((rule) => compileRule(node, rule, envs, sizes, cardinality, preexisting));
}

function compileRule(node: Structural, rule: ValidationRule, envs: RuleEnvironments, sizes: ReturnType<typeof schemaSizeEstimator>, cardinality: bigint, preexisting: PreexistingExpressions): CompiledRule {
  const base = { rule, usesOldSelf: false, maxCost: 0n, maxCardinality: 0n, messageExpressionMaxCost: 0n };
  if ((rule.rule ?? '').trim() === '') return base;
  const optionalOldSelf = rule.optionalOldSelf === true;
  const ruleEnv = envs.get(optionalOldSelf, compatibilityOf(preexisting, 'rules', rule.rule));
  let program: CelProgram;
  try {
    program = ruleEnv.compile(rule.rule, 'bool');
  } catch (e) {
    if (!(e instanceof CelCompileError)) throw e;
    return { ...base, error: problem(e, 'rule') };
  }
  let result: CompiledRule = { ...base, program, usesOldSelf: program.refersTo('oldSelf'), maxCost: estimateCost(program, sizes).max, maxCardinality: cardinality };
  if (rule.messageExpression) {
    const messageEnv = envs.get(optionalOldSelf, compatibilityOf(preexisting, 'messageExpressions', rule.messageExpression));
    try {
      const message = messageEnv.compile(rule.messageExpression, 'string');
      result = { ...result, messageExpression: message, messageExpressionMaxCost: estimateCost(message, sizes).max };
    } catch (e) {
      if (!(e instanceof CelCompileError)) throw e;
      // Upstream stops here: a rule whose message does not compile keeps no normalized fieldPath.
      return { ...result, messageExpressionError: problem(e, 'messageExpression') };
    }
  }
  if (rule.fieldPath) {
    const valid = validFieldPath(rule.fieldPath, node);
    if (!(valid instanceof Error)) result = { ...result, normalizedFieldPath: valid.path };
  }
  return result;
}
