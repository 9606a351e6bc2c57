/**
 * The macros Kubernetes 1.34 has that cel-js lacks, declared to cel-js's type checker (cel-js
 * dispatches a call to a macro by name and argument count, whatever the receiver): the two-variable
 * comprehensions (all, exists, existsOne, exists_one with two variables; transformList,
 * transformMap, transformMapEntry), existsOne, sortBy, optMap and optFlatMap. Only their type
 * checking runs in cel-js; the compiler evaluates them.
 */
import type { Environment } from '@marcbachmann/cel-js';
import type { Node } from './ast.ts';

/* eslint-disable @typescript-eslint/no-explicit-any -- cel-js's checker internals are untyped */
type Checker = any;
type Ctx = any;
type Type = any;

interface Macro {
  readonly ast: Node;
  readonly receiver: Node;
  readonly args: readonly Node[];
}

const notEvaluated = () => {
  throw new Error('macros are evaluated by src/cel');
};

function identName(checker: Checker, node: Node): string {
  if (node.op !== 'id') throw checker.createError('invalid_macro_argument', 'argument must be a simple name', node);
  return node.args as string;
}

/** The (key, value) types two iteration variables take over a list (index, element) or a map. */
function twoVarTypes(checker: Checker, range: Type, node: Node): [Type, Type] {
  switch (range.kind) {
    case 'list':
      return [checker.intType, range.valueType];
    case 'map':
      return [range.keyType, range.valueType];
    case 'dyn':
    case 'param':
      return [checker.dynType, checker.dynType];
    default:
      throw checker.createError('invalid_comprehension_range', `expression of type '${range.name}' cannot be range of a comprehension (must be list, map, or dynamic)`, node);
  }
}

function elementType(checker: Checker, range: Type, node: Node): Type {
  switch (range.kind) {
    case 'list':
      return range.valueType;
    case 'map':
      return range.keyType;
    case 'dyn':
    case 'param':
      return checker.dynType;
    default:
      throw checker.createError('invalid_comprehension_range', `expression of type '${range.name}' cannot be range of a comprehension (must be list, map, or dynamic)`, node);
  }
}

/** Checks a predicate that must be bool; `op` names the call cel-go's expansion wraps it in. */
function checkBool(checker: Checker, node: Node, ctx: Ctx, op: string): void {
  const t = checker.check(node, ctx);
  if (!t.isDynOrBool()) throw checker.createError('predicate_not_bool', `found no matching overload for '${op}' applied to '(bool, ${t.name})'`, node);
}

/** A context with the two iteration variables bound. */
function bindTwo(checker: Checker, m: Macro, ctx: Ctx): Ctx {
  const range = checker.check(m.receiver, ctx);
  const [kt, vt] = twoVarTypes(checker, range, m.receiver);
  return ctx.forkWithVariable(identName(checker, m.args[0]!), kt).forkWithVariable(identName(checker, m.args[1]!), vt);
}

function macro(typeCheck: (checker: Checker, m: Macro, ctx: Ctx) => Type) {
  return ({ ast, args, receiver }: { ast: Node; args: Node[]; receiver: Node }) => ({ ast, args, receiver, typeCheck, evaluate: notEvaluated, async: false });
}

const quantifier = (op: string) =>
  macro((checker, m, ctx) => {
    checkBool(checker, m.args[2]!, bindTwo(checker, m, ctx), op);
    return checker.boolType;
  });

const existsOne = macro((checker, m, ctx) => {
  const range = checker.check(m.receiver, ctx);
  const inner = ctx.forkWithVariable(identName(checker, m.args[0]!), elementType(checker, range, m.receiver));
  checkBool(checker, m.args[1]!, inner, '_?_:_');
  return checker.boolType;
});

const transformList = macro((checker, m, ctx) => {
  const inner = bindTwo(checker, m, ctx);
  if (m.args.length === 4) checkBool(checker, m.args[2]!, inner, '_?_:_');
  return checker.registry.getListType(checker.check(m.args.at(-1)!, inner));
});

const transformMap = macro((checker, m, ctx) => {
  const range = checker.check(m.receiver, ctx);
  const [kt] = twoVarTypes(checker, range, m.receiver);
  const inner = bindTwo(checker, m, ctx);
  if (m.args.length === 4) checkBool(checker, m.args[2]!, inner, '_?_:_');
  return checker.registry.getMapType(kt, checker.check(m.args.at(-1)!, inner));
});

const transformMapEntry = macro((checker, m, ctx) => {
  const inner = bindTwo(checker, m, ctx);
  if (m.args.length === 4) checkBool(checker, m.args[2]!, inner, '_?_:_');
  const t = checker.check(m.args.at(-1)!, inner);
  if (t.kind !== 'map' && t.kind !== 'dyn') throw checker.createError('no_matching_overload', `found no matching overload for 'cel.@mapInsert' applied to '(map(dyn, dyn), ${t.name})'`, m.args.at(-1));
  return t.kind === 'map' ? t : checker.registry.getMapType(checker.dynType, checker.dynType);
});

const sortBy = macro((checker, m, ctx) => {
  const range = checker.check(m.receiver, ctx);
  const inner = ctx.forkWithVariable(identName(checker, m.args[0]!), elementType(checker, range, m.receiver));
  checker.check(m.args[1]!, inner);
  return range.kind === 'list' ? range : checker.registry.getListType(checker.dynType);
});

const optMap = macro((checker, m, ctx) => {
  const t = checker.check(m.receiver, ctx);
  const inner = ctx.forkWithVariable(identName(checker, m.args[0]!), t.kind === 'optional' ? t.valueType : checker.dynType);
  return checker.registry.getOptionalType(checker.check(m.args[1]!, inner));
});

const optFlatMap = macro((checker, m, ctx) => {
  const t = checker.check(m.receiver, ctx);
  const inner = ctx.forkWithVariable(identName(checker, m.args[0]!), t.kind === 'optional' ? t.valueType : checker.dynType);
  const r = checker.check(m.args[1]!, inner);
  if (r.kind !== 'optional' && r.kind !== 'dyn') throw checker.createError('no_matching_overload', `found no matching overload for '_?_:_' applied to '(bool, ${r.name}, optional_type(T))'`, m.args[1]);
  return r.kind === 'optional' ? r : checker.registry.getOptionalType(checker.dynType);
});

/** Registers the macros; `storedOnly` ones (sortBy, from the 1.34 lists extension) only where asked. */
export function registerMacros(env: Environment, withStoredOnly: boolean): void {
  const reg = (sig: string, handler: unknown) => env.registerFunction(sig, handler as never);
  for (const [name, op] of [
    ['all', '_&&_'],
    ['exists', '_||_'],
    ['existsOne', '_?_:_'],
    ['exists_one', '_?_:_'],
  ] as const) {
    reg(`k8s.MacroReceiver.${name}(ast, ast, ast): bool`, quantifier(op));
  }
  reg('k8s.MacroReceiver.existsOne(ast, ast): bool', existsOne);
  reg('k8s.MacroReceiver.transformList(ast, ast, ast): list', transformList);
  reg('k8s.MacroReceiver.transformList(ast, ast, ast, ast): list', transformList);
  reg('k8s.MacroReceiver.transformMap(ast, ast, ast): map', transformMap);
  reg('k8s.MacroReceiver.transformMap(ast, ast, ast, ast): map', transformMap);
  reg('k8s.MacroReceiver.transformMapEntry(ast, ast, ast): map', transformMapEntry);
  reg('k8s.MacroReceiver.transformMapEntry(ast, ast, ast, ast): map', transformMapEntry);
  reg('k8s.MacroReceiver.optMap(ast, ast): optional', optMap);
  reg('k8s.MacroReceiver.optFlatMap(ast, ast): optional', optFlatMap);
  if (withStoredOnly) reg('k8s.MacroReceiver.sortBy(ast, ast): list', sortBy);
}
