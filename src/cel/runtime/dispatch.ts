/**
 * Calling a library function as cel-go's interpreter does: the overloads the checker left possible
 * (from the argument types it inferred) are tried in declaration order, each behind its runtime type
 * guard; none matching is "no such overload: name(types)". The call's cost is charged whether it
 * succeeds or fails, as cel-go's tracker observes the error value too.
 */
import { CelEvalError, evalError } from '../errors.ts';
import type { CheckedType } from '../checker/ast.ts';
import type { Overload } from '../lib/overload.ts';
import { parseType, staticMatch } from '../lib/type-guards.ts';
import { typeName, type CelValue } from '../values.ts';
import { CALL_COST } from './cost.ts';
import type { EvalState } from './state.ts';

/** The overloads that can serve arguments of these checked types (all of them where a type is unknown). */
export function candidates(overloads: readonly Overload[], argTypes: readonly (CheckedType | undefined)[]): Overload[] {
  return overloads.filter((o) => {
    if (o.params.length !== argTypes.length) return false;
    return o.params.every((p, i) => {
      const t = argTypes[i];
      return t === undefined || staticMatch(parseType(p), parseType(t.name)) !== 'no';
    });
  });
}

export type Invoke = (args: CelValue[], s: EvalState) => CelValue;

/** A function that calls the first overload whose guards accept the arguments. */
export function dispatcher(name: string, overloads: readonly Overload[]): Invoke {
  if (overloads.length === 1) {
    const o = overloads[0]!;
    return (args, s) => {
      for (let i = 0; i < args.length; i++) if (!o.guards[i]!(args[i]!)) throw noMatch(name, args, s);
      return call(o, args, s);
    };
  }
  return (args, s) => {
    outer: for (const o of overloads) {
      for (let i = 0; i < args.length; i++) if (!o.guards[i]!(args[i]!)) continue outer;
      return call(o, args, s);
    }
    throw noMatch(name, args, s);
  };
}

function noMatch(name: string, args: readonly CelValue[], s: EvalState): CelEvalError {
  s.charge(CALL_COST);
  return evalError(`no such overload: ${name}(${args.map(typeName).join(', ')})`);
}

function call(o: Overload, args: CelValue[], s: EvalState): CelValue {
  let result: CelValue;
  try {
    result = o.impl(args, s);
  } catch (e) {
    if (e instanceof CelEvalError) s.charge(o.cost ? o.cost(args, null) : CALL_COST);
    throw e;
  }
  s.charge(o.cost ? o.cost(args, result) : CALL_COST);
  return result;
}
