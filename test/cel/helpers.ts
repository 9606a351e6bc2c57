/**
 * Shared helpers of the CEL tests: an admission environment, and evaluating or compiling one
 * expression to what upstream would answer (the value as JSON, the error text, the cost).
 */
import assert from 'node:assert/strict';
import { admissionEnvironment, CelCompileError, fromCel, type Activation, type CelEnvironment, type EvalResult } from '../../src/cel/index.ts';

/** A 1.34 admission environment with params and the authorizer declared. */
export const env = admissionEnvironment({ params: true, authorizer: true, variables: ['isProd'] });

/**
 * The same environment without cel-go's OptOptimize, for upstream tables taken from tests that
 * build their programs without it (constants are then built, and charged, at run time).
 */
export const unoptimizedEnv = admissionEnvironment({ params: true, authorizer: true, variables: ['isProd'], optimize: false });

export interface Outcome {
  readonly value?: unknown;
  readonly error?: string;
  readonly cost: number;
}

function outcome(r: EvalResult): Outcome {
  return r.error !== undefined ? { error: r.error, cost: r.cost } : { value: fromCel(r.value!), cost: r.cost };
}

/** Evaluates an expression synchronously (it must not need the authorizer). */
export function run(expression: string, activation: Activation = {}, e: CelEnvironment = env, limit?: number): Outcome {
  const r = e.compile(expression).evaluate(activation, { limit });
  assert.ok(!(r instanceof Promise), 'evaluation should be synchronous');
  return outcome(r);
}

/** Evaluates an expression that may ask the authorizer. */
export async function runAsync(expression: string, activation: Activation = {}, e: CelEnvironment = env): Promise<Outcome> {
  return outcome(await e.compile(expression).evaluate(activation));
}

/** The value of an expression as JSON (fails the test on an evaluation error). */
export function value(expression: string, activation: Activation = {}, e: CelEnvironment = env): unknown {
  const r = run(expression, activation, e);
  assert.equal(r.error, undefined, `unexpected error evaluating ${expression}`);
  return r.value;
}

/** The evaluation error of an expression (fails the test if it evaluates). */
export function evalErrorOf(expression: string, activation: Activation = {}, e: CelEnvironment = env): string {
  const r = run(expression, activation, e);
  assert.notEqual(r.error, undefined, `expected an error from ${expression}, got ${JSON.stringify(r.value)}`);
  return r.error!;
}

/** The compile error of an expression (fails the test if it compiles). */
export function compileErrorOf(expression: string, e: CelEnvironment = env, expected: Parameters<CelEnvironment['compile']>[1] = 'any'): string {
  try {
    e.compile(expression, expected);
  } catch (err) {
    if (err instanceof CelCompileError) return err.message;
    throw err;
  }
  assert.fail(`expected ${expression} not to compile`);
}

/** Asserts that each expression evaluates to true. */
export function assertTrue(expressions: readonly string[], activation: Activation = {}, e: CelEnvironment = env): void {
  for (const expr of expressions) assert.equal(value(expr, activation, e), true, expr);
}
