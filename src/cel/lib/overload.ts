/**
 * How a library function is declared: one overload per signature, as cel-go declares them. The same
 * declaration feeds cel-js's type checker (the signature) and this evaluator (the implementation,
 * the runtime type guard and the cost upstream's cost tracker charges for a call).
 */
import type { CelValue } from '../values.ts';
import type { EvalState } from '../runtime/state.ts';
import { typeGuard, type TypeGuard } from './type-guards.ts';

export type Impl = (args: CelValue[], s: EvalState) => CelValue;

/** The cost of one call from its arguments (receiver first) and result; undefined means cel-go's default. */
export type CostFn = (args: readonly CelValue[], result: CelValue) => number;

export interface Overload {
  /** cel-go's overload id (cost trackers are keyed on it). */
  readonly id: string;
  /** cel-go's function name: `indexOf`, `sets.contains`, `format.dns1123Label`. */
  readonly name: string;
  /** A member (receiver-style) overload; its first parameter is the receiver. */
  readonly member: boolean;
  /** Parameter types in cel-js's notation (`list<T>`, `map<string, dyn>`, `kubernetes.Quantity`). */
  readonly params: readonly string[];
  readonly result: string;
  readonly impl: Impl;
  readonly cost?: CostFn;
  /** Only where stored expressions compile (the libraries 1.34 added: new expressions compile as 1.33). */
  readonly storedOnly?: boolean;
  /** Called whatever the argument types at runtime (cel-go's DisableTypeGuards). */
  readonly unguarded?: boolean;
  /** The runtime guard of each parameter (cel-go's IsAssignableRuntimeType). */
  readonly guards: readonly TypeGuard[];
}

type Options = Partial<Pick<Overload, 'cost' | 'storedOnly' | 'unguarded'>>;

function make(member: boolean, id: string, name: string, params: readonly string[], result: string, impl: Impl, opts: Options = {}): Overload {
  const guards = opts.unguarded ? params.map(() => () => true) : params.map(typeGuard);
  return { id, name, member, params, result, impl, guards, ...opts };
}

/** A global overload: `name(params…): result`. */
export function global(id: string, name: string, params: readonly string[], result: string, impl: Impl, opts?: Options): Overload {
  return make(false, id, name, params, result, impl, opts);
}

/** A member overload: `params[0].name(params[1…]): result`. */
export function member(id: string, name: string, params: readonly string[], result: string, impl: Impl, opts?: Options): Overload {
  return make(true, id, name, params, result, impl, opts);
}

/** ceil(n × factor), as cel-go turns sizes into costs. */
export function ceilCost(n: number, factor: number): number {
  return Math.ceil(n * factor);
}

/** common.StringTraversalCostFactor. */
export const STRING_TRAVERSAL = 0.1;
/** common.RegexStringLengthCostFactor. */
export const REGEX_LENGTH = 0.25;
/** common.ListCreateBaseCost, MapCreateBaseCost, StructCreateBaseCost. */
export const LIST_CREATE = 10;
export const MAP_CREATE = 30;
export const STRUCT_CREATE = 40;
