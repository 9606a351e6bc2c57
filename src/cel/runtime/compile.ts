/**
 * Compiles a type-checked cel-js AST into closures that evaluate it with cel-go's semantics and
 * charge cel-go's runtime costs. Attribute chains (`a.b[c].?d`) are resolved as cel-go's
 * attributes are: one variable read plus one charge per qualifier, optional qualification
 * spreading to the rest of the chain; a ternary's attribute branches skip their variable read.
 * With `optimize` (cel-go's OptOptimize, which Kubernetes builds every program with), what is
 * constant is computed once here (see fold.ts).
 */
import { UnsignedInt } from '@marcbachmann/cel-js/evaluator';
import type { Node } from '../checker/ast.ts';
import { qualifiedName } from '../checker/references.ts';
import { CelCompileError, CelEvalError, evalError, noSuchOverload } from '../errors.ts';
import { overloadsNamed } from '../lib/index.ts';
import { CelUint, CelOptional, TYPES, typeNamed, type CelValue, type MapKey } from '../values.ts';
import * as loops from './comprehensions.ts';
import { addCost, CALL_COST, equalityCost, failedOperand, inCost, LIST_CREATE, MAP_CREATE, orderingCost, SELECT_COST } from './cost.ts';
import { candidates, dispatcher } from './dispatch.ts';
import { constant, constantValue, fold, foldedError, isConstant, setMembership, TYPE_CONVERSIONS } from './fold.ts';
import { resolveChain, type Qualifier } from './attributes.ts';
import { add, compare, contains, divide, equals, literalKey, modulo, multiply, negate, not, subtract } from './ops.ts';
import { re2Error } from './re2.ts';
import type { EvalState } from './state.ts';

export type Ev = (s: EvalState) => CelValue;

/** What the compiler knows of the environment. */
export interface CompileScope {
  readonly variables: ReadonlySet<string>;
  /** Offsets of optional list elements and map keys (`[?x]`, `{?k: v}`). */
  readonly optionalEntries: ReadonlySet<number>;
  readonly storedOnly: boolean;
  /** Fold constants as cel-go's OptOptimize does (only runtime cost shows it). */
  readonly optimize?: boolean;
}

/** A compiled expression and how many comprehension slots its evaluation needs. */
export interface Compiled {
  readonly ev: Ev;
  readonly slots: number;
}

const TYPE_IDENTS: Record<string, CelValue> = {
  int: TYPES.int,
  uint: TYPES.uint,
  double: TYPES.double,
  bool: TYPES.bool,
  string: TYPES.string,
  bytes: TYPES.bytes,
  list: TYPES.list,
  map: TYPES.map,
  null_type: TYPES.null_type,
  type: TYPES.type,
  optional_type: TYPES.optional,
};
const QUALIFIED_TYPES = new Set(['net.IP', 'net.CIDR', 'google.protobuf.Timestamp', 'google.protobuf.Duration']);

export function compile(root: Node, scope: CompileScope): Compiled {
  const c = new Compiler(scope);
  const ev = c.compile(root, new Map());
  return { ev, slots: c.slots };
}

type Bound = ReadonlyMap<string, number>;

/** The functions whose constant pattern (the second argument) is compiled with the program. */
const REGEX_FUNCTIONS = new Set(['matches', 'find', 'findAll']);

class Compiler {
  slots = 0;
  constructor(private readonly scope: CompileScope) {}

  compile(node: Node, bound: Bound): Ev {
    switch (node.op) {
      case 'value':
        return constant(literal(node.args));
      case 'id':
        return this.chain(node, bound, false);
      case '.':
      case '.?':
      case '[]':
      case '[?]':
        return this.chain(node, bound, false);
      case '!_':
        return this.unary(node, bound, not);
      case '-_': {
        const operand = node.args as Node;
        // `-1` is one literal to cel-go's grammar (and costs nothing); `-(1)` is a negation.
        if (operand.op === 'value' && (typeof operand.args === 'bigint' || typeof operand.args === 'number') && /^-\s*$/.test(node.input.slice(node.pos, operand.start))) {
          return constant(negate(literal(operand.args)));
        }
        return this.unary(node, bound, negate);
      }
      case '&&':
      case '||':
        return this.logical(node, bound);
      case '?:':
        return this.ternary(node, bound);
      case 'list':
        return this.list(node, bound);
      case 'map':
        return this.map(node, bound);
      case 'call':
      case 'rcall':
        return this.call(node, bound);
      default:
        return this.binary(node, bound);
    }
  }

  // ---- attributes ----

  /**
   * A variable read with its qualifiers. `branch`: the chain is a ternary branch (or an index
   * expression), whose base read cel-go does not charge.
   */
  chain(node: Node, bound: Bound, branch: boolean, testOnly = false): Ev {
    const quals: Qualifier[] = [];
    let n = node;
    while (n.op === '.' || n.op === '.?' || n.op === '[]' || n.op === '[?]') {
      const optional = n.op === '.?' || n.op === '[?]';
      if (n.op === '.' || n.op === '.?') quals.unshift({ optional, key: n.args[1] as string });
      else {
        const idx = n.args[1] as Node;
        if (idx.op === 'value') quals.unshift({ optional, key: literal(idx.args) });
        else quals.unshift({ optional, key: undefined, keyEv: this.index(idx, bound) });
      }
      n = n.args[0] as Node;
    }
    let root: Ev;
    let rootCost = branch ? 0 : SELECT_COST;
    if (n.op === 'id') {
      const name = n.args as string;
      const slot = bound.get(name);
      if (slot !== undefined) root = (s) => s.slots[slot]!;
      else if (this.scope.variables.has(name)) {
        let varName = name;
        // `authorizer.requestResource` is a variable of its own to cel-go.
        if (name === 'authorizer' && quals[0]?.key === 'requestResource' && !quals[0].optional && this.scope.variables.has('authorizer.requestResource')) {
          varName = 'authorizer.requestResource';
          quals.shift();
        }
        root = (s) => {
          const v = s.vars[varName];
          if (v === undefined) throw evalError(`no such attribute(s): ${varName}`);
          return v;
        };
      } else {
        const q = qualifiedName(node);
        if (q !== undefined && QUALIFIED_TYPES.has(q)) return constant(typeNamed(q));
        const t = TYPE_IDENTS[name];
        if (t !== undefined && quals.length === 0) return constant(t);
        return () => {
          throw evalError(`no such attribute(s): ${name}`);
        };
      }
    } else {
      root = this.compile(n, bound);
      if (quals.length === 0) rootCost = 0;
    }
    if (quals.length === 0) {
      if (rootCost === 0) return root;
      return (s) => {
        const v = root(s);
        s.charge(rootCost);
        return v;
      };
    }
    return resolveChain(root, quals, rootCost, testOnly);
  }

  /** An index expression: cel-go qualifies with its attribute unwrapped, so its own base read is free. */
  private index(idx: Node, bound: Bound): Ev {
    if (idx.op === 'id' || idx.op === '.' || idx.op === '.?' || idx.op === '[]' || idx.op === '[?]') return this.chain(idx, bound, true);
    return this.compile(idx, bound);
  }

  /** A ternary branch or other attribute position: chains skip their base read. */
  private branch(node: Node, bound: Bound): Ev {
    if (node.op === 'id' || node.op === '.' || node.op === '.?' || node.op === '[]' || node.op === '[?]') return this.chain(node, bound, true);
    return this.compile(node, bound);
  }

  // ---- operators ----

  /** `!x`, `-x`: charged once x is evaluated, even when that failed. */
  private unary(node: Node, bound: Bound, f: (v: CelValue) => CelValue): Ev {
    const operand = this.compile(node.args as Node, bound);
    return (s) => {
      let v: CelValue;
      try {
        v = operand(s);
      } catch (e) {
        if (e instanceof CelEvalError) s.charge(CALL_COST);
        throw e;
      }
      s.charge(CALL_COST);
      return f(v);
    };
  }

  /**
   * An operator: both operands are evaluated even when the first fails, and the operator is
   * charged either way (a failed operand priced as failedOperand says); the first error wins.
   */
  private binary(node: Node, bound: Bound): Ev {
    const [ln, rn] = node.args as [Node, Node];
    const l = this.compile(ln, bound);
    const r = this.compile(rn, bound);
    const op = node.op;
    const lType = ln.checkedType?.name;
    const rType = rn.checkedType?.name;
    const withCost = (cost: (a: CelValue, b: CelValue) => number, f: (a: CelValue, b: CelValue) => CelValue): Ev => (s) => {
      let err: CelEvalError | undefined;
      let a: CelValue;
      let b: CelValue;
      try {
        a = l(s);
      } catch (e) {
        if (!(e instanceof CelEvalError)) throw e;
        err = e;
        a = failedOperand(lType, rType);
      }
      try {
        b = r(s);
      } catch (e) {
        if (!(e instanceof CelEvalError)) throw e;
        err ??= e;
        b = failedOperand(rType, lType);
      }
      if (err) {
        s.charge(cost(a, b));
        throw err;
      }
      try {
        return f(a, b);
      } finally {
        s.charge(cost(a, b));
      }
    };
    const one = () => CALL_COST;
    switch (op) {
      case '==':
        return withCost(equalityCost, equals);
      case '!=':
        return withCost(equalityCost, (a, b) => !equals(a, b));
      case '<':
        return withCost(orderingCost, (a, b) => compare(a, b, '_<_') < 0);
      case '<=':
        return withCost(orderingCost, (a, b) => compare(a, b, '_<=_') <= 0);
      case '>':
        return withCost(orderingCost, (a, b) => compare(a, b, '_>_') > 0);
      case '>=':
        return withCost(orderingCost, (a, b) => compare(a, b, '_>=_') >= 0);
      case '+':
        return withCost(addCost, add);
      case '-':
        return withCost(one, subtract);
      case '*':
        return withCost(one, multiply);
      case '/':
        return withCost(one, divide);
      case '%':
        return withCost(one, modulo);
      case 'in': {
        const list = this.scope.optimize ? constantValue(r)?.value : undefined;
        const membership = Array.isArray(list) ? setMembership(l, list) : undefined;
        return membership ?? withCost((_, b) => inCost(b), (a, b) => contains(b, a));
      }
      default:
        throw new Error(`unknown operator ${op}`);
    }
  }

  /** `&&` and `||` with CEL's commutative treatment of errors: a decisive operand wins over an error. */
  private logical(node: Node, bound: Bound): Ev {
    const l = this.compile(node.args[0] as Node, bound);
    const r = this.compile(node.args[1] as Node, bound);
    const decisive = node.op === '||';
    return (s) => {
      let err: CelEvalError | undefined;
      for (const term of [l, r]) {
        let v: CelValue;
        try {
          v = term(s);
        } catch (e) {
          if (!(e instanceof CelEvalError)) throw e;
          err ??= e;
          continue;
        }
        if (v === decisive) return decisive;
        if (typeof v !== 'boolean') err ??= noSuchOverload();
      }
      if (err) throw err;
      return !decisive;
    };
  }

  private ternary(node: Node, bound: Bound): Ev {
    const cond = this.compile(node.args[0] as Node, bound);
    const a = this.branch(node.args[1] as Node, bound);
    const b = this.branch(node.args[2] as Node, bound);
    return (s) => {
      const c = cond(s);
      if (c === true) return a(s);
      if (c === false) return b(s);
      throw noSuchOverload();
    };
  }

  // ---- literals ----

  private isOptionalEntry(n: Node): boolean {
    return this.scope.optionalEntries.has(n.start);
  }

  private list(node: Node, bound: Bound): Ev {
    const elems = (node.args as Node[]).map((e) => ({ ev: this.compile(e, bound), optional: this.isOptionalEntry(e) }));
    const ev: Ev = (s) => {
      const out: CelValue[] = [];
      try {
        for (const e of elems) {
          const v = e.ev(s);
          if (!e.optional) out.push(v);
          else if (!(v instanceof CelOptional)) throw evalError(`cannot initialize optional list element from non-optional value ${String(v)}`);
          else if (v.value !== undefined) out.push(v.value);
        }
      } finally {
        s.charge(LIST_CREATE);
      }
      return out;
    };
    return this.scope.optimize && elems.every((e) => isConstant(e.ev)) ? fold(ev) : ev;
  }

  private map(node: Node, bound: Bound): Ev {
    const entries = (node.args as [Node, Node][]).map(([k, v]) => ({ k: this.compile(k, bound), v: this.compile(v, bound), optional: this.isOptionalEntry(k) }));
    const ev: Ev = (s) => {
      const out = new Map<MapKey, CelValue>();
      try {
        for (const e of entries) {
          const key = literalKey(e.k(s));
          let v = e.v(s);
          if (e.optional) {
            if (!(v instanceof CelOptional)) throw evalError(`cannot initialize optional entry '${String(key)}' from non-optional value ${String(v)}`);
            if (v.value === undefined) {
              out.delete(key);
              continue;
            }
            v = v.value;
          }
          out.set(key, v);
        }
      } finally {
        s.charge(MAP_CREATE);
      }
      return out;
    };
    return this.scope.optimize && entries.every((e) => isConstant(e.k) && isConstant(e.v)) ? fold(ev) : ev;
  }

  // ---- calls and macros ----

  private newSlot(): number {
    return this.slots++;
  }

  private bindVar(bound: Bound, name: Node): [Map<string, number>, number] {
    const slot = this.newSlot();
    const inner = new Map(bound);
    inner.set(name.args as string, slot);
    return [inner, slot];
  }

  private call(node: Node, bound: Bound): Ev {
    const isMember = node.op === 'rcall';
    const name = node.args[0] as string;
    const receiver = isMember ? (node.args[1] as Node) : undefined;
    const args = (isMember ? node.args[2] : node.args[1]) as Node[];

    if (!isMember && name === 'has' && args.length === 1) return this.chain(args[0]!, bound, false, true);
    if (receiver) {
      const macro = this.macro(name, receiver, args, bound);
      if (macro) return macro;
      // A namespaced function (`sets.contains`), unless the namespace is a variable.
      const ns = qualifiedName(receiver);
      const root = ns?.split('.')[0];
      if (ns !== undefined && !bound.has(root!) && !this.scope.variables.has(root!) && overloadsNamed(`${ns}.${name}`).length > 0) {
        return this.invoke(`${ns}.${name}`, false, args, bound);
      }
      if (name === 'or' || name === 'orValue') return this.optionalOr(receiver, args[0]!, bound, name === 'orValue');
    }
    return this.invoke(name, isMember, receiver ? [receiver, ...args] : args, bound);
  }

  /** A library call: candidates narrowed by the checked argument types, then guarded dispatch. */
  private invoke(name: string, member: boolean, argNodes: Node[], bound: Bound): Ev {
    const all = overloadsNamed(name).filter((o) => o.member === member && o.params.length === argNodes.length && (this.scope.storedOnly || !o.storedOnly));
    const found = candidates(all, argNodes.map((a) => a.checkedType));
    const run = dispatcher(name, found.length > 0 ? found : all);
    const args = argNodes.map((a) => this.compile(a, bound));
    if (REGEX_FUNCTIONS.has(name)) this.compileConstantPattern(name, args[1]);
    if (args.length === 1) {
      const a0 = args[0]!;
      const ev: Ev = (s) => run([a0(s)], s);
      return this.scope.optimize && !member && TYPE_CONVERSIONS.has(name) && constantValue(a0) ? foldConversion(ev) : ev;
    }
    return (s) => {
      const vals = new Array<CelValue>(args.length);
      for (let i = 0; i < args.length; i++) vals[i] = args[i]!(s);
      return run(vals, s);
    };
  }

  /**
   * A constant regex pattern is compiled when the program is built, and a bad one fails the build:
   * Kubernetes' find and findAll always (their literal patterns the environment checks first), matches
   * under OptOptimize (whose literal patterns the format validator refuses first).
   */
  private compileConstantPattern(name: string, pattern: Ev | undefined): void {
    if (name === 'matches' && !this.scope.optimize) return;
    const p = pattern && constantValue(pattern)?.value;
    const err = typeof p === 'string' ? re2Error(p) : undefined;
    if (err) throw new CelCompileError(`program instantiation failed: ${err}`, []);
  }

  /** `a.or(b)` and `a.orValue(b)`: b only when a is none. */
  private optionalOr(receiver: Node, arg: Node, bound: Bound, orValue: boolean): Ev {
    const a = this.compile(receiver, bound);
    const b = this.compile(arg, bound);
    return (s) => {
      const v = a(s);
      if (!(v instanceof CelOptional)) return v;
      if (v.value !== undefined) return orValue ? v.value : v;
      const alt = b(s);
      if (!orValue && !(alt instanceof CelOptional)) throw noSuchOverload();
      return alt;
    };
  }

  /**
   * The list literals of a macro's expansion: its empty `[]` is constant, and so is `[t]` when t
   * is; OptOptimize folds them to nothing.
   */
  private literalCosts(element: Ev | undefined): loops.LiteralCosts {
    if (!this.scope.optimize) return { init: LIST_CREATE, element: LIST_CREATE };
    return { init: 0, element: element && isConstant(element) ? 0 : LIST_CREATE };
  }

  /** The comprehension macros and sortBy/optMap/optFlatMap; undefined when the call is none. */
  private macro(name: string, receiver: Node, args: Node[], bound: Bound): Ev | undefined {
    const isVar = (n: Node | undefined) => n?.op === 'id';
    const n = args.length;
    const one = (): [Ev, Map<string, number>, loops.Vars] => {
      const range = this.compile(receiver, bound);
      const [inner, slot] = this.bindVar(bound, args[0]!);
      return [range, inner, { first: slot }];
    };
    const two = (): [Ev, Map<string, number>, loops.Vars] => {
      const range = this.compile(receiver, bound);
      const [in1, s1] = this.bindVar(bound, args[0]!);
      const [in2, s2] = this.bindVar(in1, args[1]!);
      return [range, in2, { first: s1, second: s2 }];
    };
    if (!isVar(args[0])) return undefined;
    const mapInit = this.scope.optimize ? 0 : MAP_CREATE;
    switch (`${name}/${n}`) {
      case 'all/2': {
        const [r, inner, v] = one();
        return loops.all(r, v, this.compile(args[1]!, inner));
      }
      case 'exists/2': {
        const [r, inner, v] = one();
        return loops.exists(r, v, this.compile(args[1]!, inner));
      }
      case 'exists_one/2':
      case 'existsOne/2': {
        const [r, inner, v] = one();
        return loops.existsOne(r, v, this.compile(args[1]!, inner));
      }
      case 'map/2': {
        const [r, inner, v] = one();
        const t = this.compile(args[1]!, inner);
        return loops.mapList(r, v, undefined, t, this.literalCosts(t));
      }
      case 'map/3': {
        const [r, inner, v] = one();
        const filter = this.compile(args[1]!, inner);
        const t = this.compile(args[2]!, inner);
        return loops.mapList(r, v, filter, t, this.literalCosts(t));
      }
      case 'filter/2': {
        const [r, inner, v] = one();
        return loops.mapList(r, v, this.compile(args[1]!, inner), undefined, this.literalCosts(undefined));
      }
      case 'sortBy/2': {
        if (!this.scope.storedOnly) return undefined;
        const target = this.compile(receiver, bound);
        const [inner, slot] = this.bindVar(bound, args[0]!);
        const sort = dispatcher('@sortByAssociatedKeys', overloadsNamed('@sortByAssociatedKeys'));
        const key = this.compile(args[1]!, inner);
        return loops.sortBy(target, slot, key, (list, keys, s) => sort([list, keys], s), this.literalCosts(key));
      }
      case 'optMap/2':
      case 'optFlatMap/2': {
        const target = this.compile(receiver, bound);
        const [inner, slot] = this.bindVar(bound, args[0]!);
        return loops.optMap(target, slot, this.compile(args[1]!, inner), name === 'optFlatMap', this.literalCosts(undefined).init);
      }
    }
    if (!isVar(args[1])) return undefined;
    switch (`${name}/${n}`) {
      case 'all/3': {
        const [r, inner, v] = two();
        return loops.all(r, v, this.compile(args[2]!, inner));
      }
      case 'exists/3': {
        const [r, inner, v] = two();
        return loops.exists(r, v, this.compile(args[2]!, inner));
      }
      case 'existsOne/3':
      case 'exists_one/3': {
        const [r, inner, v] = two();
        return loops.existsOne(r, v, this.compile(args[2]!, inner));
      }
      case 'transformList/3':
      case 'transformList/4': {
        const [r, inner, v] = two();
        const filter = n === 4 ? this.compile(args[2]!, inner) : undefined;
        const t = this.compile(args[n - 1]!, inner);
        return loops.mapList(r, v, filter, t, this.literalCosts(t));
      }
      case 'transformMap/3':
      case 'transformMap/4': {
        const [r, inner, v] = two();
        const filter = n === 4 ? this.compile(args[2]!, inner) : undefined;
        return loops.transformMap(r, v, filter, this.compile(args[n - 1]!, inner), mapInit);
      }
      case 'transformMapEntry/3':
      case 'transformMapEntry/4': {
        const [r, inner, v] = two();
        const filter = n === 4 ? this.compile(args[2]!, inner) : undefined;
        return loops.transformMapEntry(r, v, filter, this.compile(args[n - 1]!, inner), mapInit);
      }
    }
    return undefined;
  }
}

/** A conversion of a constant, computed now; one that fails makes the program fail to build. */
function foldConversion(ev: Ev): Ev {
  const folded = fold(ev);
  const err = foldedError(folded);
  if (err) throw new CelCompileError(`program instantiation failed: ${err.message}`, []);
  return folded;
}

/** A literal of cel-js's AST as a runtime value (cel-js holds `1u` as its own UnsignedInt). */
function literal(v: unknown): CelValue {
  if (v instanceof UnsignedInt) return new CelUint(v.value);
  return v as CelValue;
}
