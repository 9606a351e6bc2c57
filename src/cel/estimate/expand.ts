/**
 * cel-js's checked AST rewritten into the shape cel-go's cost estimator walks: operators as calls
 * (`_+_`, `_[_]`, `_?._`) carrying the overload ids the checker left possible, macros expanded into
 * comprehensions exactly as cel-go's parser expands them (`all` into a loop over `@result && p`,
 * `map` into `@result + [f]`, optMap into a bind), qualified type names as identifiers, `-1` as one
 * literal. The estimate depends on this shape node for node, so the expansions follow cel-go's.
 */
import { UnsignedInt } from '@marcbachmann/cel-js/evaluator';
import type { Node } from '../checker/ast.ts';
import { qualifiedName } from '../checker/references.ts';
import { overloadsNamed } from '../lib/index.ts';
import { candidates } from '../runtime/dispatch.ts';
import { codePointCount } from '../values.ts';
import { BOOL, DYN, goType, INT, listOf, mapOf, optionalOf, type GoType } from './types.ts';

export type Expr = LiteralExpr | IdentExpr | SelectExpr | CallExpr | ListExpr | MapExpr | ComprehensionExpr;

interface Base {
  readonly type: GoType;
}
export interface LiteralExpr extends Base {
  readonly kind: 'literal';
  /** size() of the literal as cel-go's computeExprSize sees it. */
  readonly size: bigint;
  /** The integer value of an int literal (some estimators read constant arguments). */
  readonly int?: bigint;
  /** The value of a bool literal (a bind is a comprehension whose condition is `false`). */
  readonly bool?: boolean;
}
export interface IdentExpr extends Base {
  readonly kind: 'ident';
  readonly name: string;
}
export interface SelectExpr extends Base {
  readonly kind: 'select';
  readonly operand: Expr;
  readonly field: string;
  readonly testOnly: boolean;
}
export interface CallExpr extends Base {
  readonly kind: 'call';
  readonly fn: string;
  readonly target?: Expr;
  readonly args: readonly Expr[];
  /** The overload ids the checker resolved the call to (several where an argument is dyn). */
  readonly overloads: readonly string[];
}
export interface ListExpr extends Base {
  readonly kind: 'list';
  readonly elements: readonly Expr[];
}
export interface MapExpr extends Base {
  readonly kind: 'map';
  readonly entries: readonly (readonly [Expr, Expr])[];
}
export interface ComprehensionExpr extends Base {
  readonly kind: 'comprehension';
  readonly iterRange: Expr;
  readonly iterVar: string;
  readonly iterVar2?: string;
  readonly accuVar: string;
  readonly accuInit: Expr;
  readonly loopCondition: Expr;
  readonly loopStep: Expr;
  readonly result: Expr;
}

/** parser.AccumulatorName. */
export const ACCUMULATOR = '@result';
const QUALIFIED_TYPES = new Set(['net.IP', 'net.CIDR', 'google.protobuf.Timestamp', 'google.protobuf.Duration']);

const literal = (type: GoType, size: bigint, int?: bigint): LiteralExpr => ({ kind: 'literal', type, size, ...(int !== undefined ? { int } : {}) });
const ident = (name: string, type: GoType): IdentExpr => ({ kind: 'ident', name, type });
const call = (fn: string, args: readonly Expr[], overloads: readonly string[], type: GoType, target?: Expr): CallExpr => ({ kind: 'call', fn, args, overloads, type, ...(target ? { target } : {}) });
const TRUE = (): LiteralExpr => ({ kind: 'literal', type: BOOL, size: 1n, bool: true });
const FALSE = (): LiteralExpr => ({ kind: 'literal', type: BOOL, size: 1n, bool: false });

function literalOf(v: unknown, type: GoType): LiteralExpr {
  if (typeof v === 'string') return literal(type, BigInt(codePointCount(v)));
  if (v instanceof Uint8Array) return literal(type, BigInt(v.length));
  if (typeof v === 'bigint') return literal(type, 1n, v);
  if (typeof v === 'boolean') return v ? TRUE() : FALSE();
  if (v instanceof UnsignedInt) return literal(type, 1n);
  return literal(type, 1n);
}

const typeOf = (n: Node): GoType => goType(n.checkedType?.name);

/** Whether a type could be of the given kind (dyn and type parameters could be anything). */
function couldBe(t: GoType, kind: GoType['kind']): boolean {
  return t.kind === kind || t.kind === 'dyn' || t.kind === 'typeparam';
}

const COMPARISON: Record<string, [string, string]> = { '<': ['_<_', 'less'], '<=': ['_<=_', 'less_equals'], '>': ['_>_', 'greater'], '>=': ['_>=_', 'greater_equals'] };
const ARITHMETIC: Record<string, [string, string]> = { '-': ['_-_', 'subtract'], '*': ['_*_', 'multiply'], '/': ['_/_', 'divide'], '%': ['_%_', 'modulo'] };
const NUMERIC_OR_TIME: readonly GoType['kind'][] = ['int', 'uint', 'double', 'bool', 'timestamp', 'duration'];

/** The overloads of `<`, `<=`, `>`, `>=` left for these operand types. */
function comparisonOverloads(prefix: string, a: GoType, b: GoType): string[] {
  const ids: string[] = [];
  if (couldBe(a, 'string') && couldBe(b, 'string')) ids.push(`${prefix}_string`);
  if (couldBe(a, 'bytes') && couldBe(b, 'bytes')) ids.push(`${prefix}_bytes`);
  if (NUMERIC_OR_TIME.some((k) => couldBe(a, k)) && NUMERIC_OR_TIME.some((k) => couldBe(b, k))) ids.push(`${prefix}_scalar`);
  return ids.length > 0 ? ids : [`${prefix}_scalar`];
}

/** The overloads of `+` left for these operand types. */
function addOverloads(a: GoType, b: GoType): string[] {
  const ids: string[] = [];
  if (NUMERIC_OR_TIME.some((k) => couldBe(a, k)) && NUMERIC_OR_TIME.some((k) => couldBe(b, k))) ids.push('add_scalar');
  if (couldBe(a, 'string') && couldBe(b, 'string')) ids.push('add_string');
  if (couldBe(a, 'bytes') && couldBe(b, 'bytes')) ids.push('add_bytes');
  if (couldBe(a, 'list') && couldBe(b, 'list')) ids.push('add_list');
  return ids.length > 0 ? ids : ['add_scalar'];
}

function containerOverloads(t: GoType, list: string, map: string): string[] {
  const ids: string[] = [];
  if (couldBe(t, 'list')) ids.push(list);
  if (couldBe(t, 'map')) ids.push(map);
  return ids.length > 0 ? ids : [list];
}

/** The overload ids of a library call, from the checked types of its arguments (receiver first). */
function libraryOverloads(name: string, member: boolean, argNodes: readonly Node[]): string[] {
  const all = overloadsNamed(name).filter((o) => o.member === member && o.params.length === argNodes.length);
  const found = candidates(all, argNodes.map((a) => a.checkedType));
  const ids = (found.length > 0 ? found : all).map((o) => o.id);
  return ids.length > 0 ? ids : [name];
}

/** Names bound by the macros around a node (comprehension variables and accumulators). */
type Bound = ReadonlySet<string>;
const bind = (bound: Bound, ...names: string[]): Bound => new Set([...bound, ...names]);

export class Expander {
  constructor(private readonly variables: ReadonlySet<string>) {}

  expand(node: Node, bound: Bound = new Set()): Expr {
    switch (node.op) {
      case 'value':
        return literalOf(node.args, typeOf(node));
      case 'id':
        return ident(node.args as string, typeOf(node));
      case '.': {
        const q = qualifiedName(node);
        if (q !== undefined && QUALIFIED_TYPES.has(q) && !bound.has(q.split('.')[0]!) && !this.variables.has(q.split('.')[0]!)) return ident(q, typeOf(node));
        return { kind: 'select', operand: this.expand(node.args[0] as Node, bound), field: node.args[1] as string, testOnly: false, type: typeOf(node) };
      }
      case '.?': {
        const operand = this.expand(node.args[0] as Node, bound);
        const field = node.args[1] as string;
        return call('_?._', [operand, literal(goType('string'), BigInt(codePointCount(field)))], ['select_optional_field'], typeOf(node));
      }
      case '[]': {
        const operand = node.args[0] as Node;
        return call('_[_]', [this.expand(operand, bound), this.expand(node.args[1] as Node, bound)], containerOverloads(typeOf(operand), 'index_list', 'index_map'), typeOf(node));
      }
      case '[?]': {
        const operand = node.args[0] as Node;
        return call('_[?_]', [this.expand(operand, bound), this.expand(node.args[1] as Node, bound)], containerOverloads(typeOf(operand), 'list_optindex_optional_int', 'map_optindex_optional_value'), typeOf(node));
      }
      case '!_':
        return call('!_', [this.expand(node.args as Node, bound)], ['logical_not'], typeOf(node));
      case '-_': {
        const operand = node.args as Node;
        // `-1` is one literal to cel-go's grammar.
        if (operand.op === 'value' && (typeof operand.args === 'bigint' || typeof operand.args === 'number') && /^-\s*$/.test(node.input.slice(node.pos, operand.start))) {
          return literalOf(typeof operand.args === 'bigint' ? -operand.args : -operand.args, typeOf(node));
        }
        return call('-_', [this.expand(operand, bound)], ['negate'], typeOf(node));
      }
      case '&&':
      case '||':
        return call(node.op === '&&' ? '_&&_' : '_||_', this.operands(node, bound), [node.op === '&&' ? 'logical_and' : 'logical_or'], typeOf(node));
      case '?:':
        return call('_?_:_', (node.args as Node[]).map((a) => this.expand(a, bound)), ['conditional'], typeOf(node));
      case '==':
      case '!=':
        return call(node.op === '==' ? '_==_' : '_!=_', this.operands(node, bound), [node.op === '==' ? 'equals' : 'not_equals'], typeOf(node));
      case '<':
      case '<=':
      case '>':
      case '>=': {
        const [fn, prefix] = COMPARISON[node.op]!;
        return call(fn, this.operands(node, bound), comparisonOverloads(prefix, typeOf(node.args[0]), typeOf(node.args[1])), typeOf(node));
      }
      case '+':
        return call('_+_', this.operands(node, bound), addOverloads(typeOf(node.args[0]), typeOf(node.args[1])), typeOf(node));
      case '-':
      case '*':
      case '/':
      case '%': {
        const [fn, id] = ARITHMETIC[node.op]!;
        return call(fn, this.operands(node, bound), [id], typeOf(node));
      }
      case 'in':
        return call('@in', this.operands(node, bound), containerOverloads(typeOf(node.args[1]), 'in_list', 'in_map'), typeOf(node));
      case 'list': {
        const t = typeOf(node);
        return { kind: 'list', elements: (node.args as Node[]).map((e) => this.expand(e, bound)), type: t.kind === 'list' ? t : listOf(DYN) };
      }
      case 'map': {
        const t = typeOf(node);
        return { kind: 'map', entries: (node.args as [Node, Node][]).map(([k, v]) => [this.expand(k, bound), this.expand(v, bound)] as const), type: t.kind === 'map' ? t : mapOf(DYN, DYN) };
      }
      case 'call':
        return this.globalCall(node, bound);
      case 'rcall':
        return this.memberCall(node, bound);
      default:
        throw new Error(`cost estimation: unknown node ${node.op}`);
    }
  }

  private operands(node: Node, bound: Bound): Expr[] {
    return [this.expand(node.args[0] as Node, bound), this.expand(node.args[1] as Node, bound)];
  }

  private globalCall(node: Node, bound: Bound): Expr {
    const name = node.args[0] as string;
    const args = node.args[1] as Node[];
    if (name === 'has' && args.length === 1 && args[0]!.op === '.') {
      const sel = args[0]!;
      return { kind: 'select', operand: this.expand(sel.args[0] as Node, bound), field: sel.args[1] as string, testOnly: true, type: BOOL };
    }
    return call(
      name,
      args.map((a) => this.expand(a, bound)),
      libraryOverloads(name, false, args),
      typeOf(node),
    );
  }

  private memberCall(node: Node, bound: Bound): Expr {
    const name = node.args[0] as string;
    const receiver = node.args[1] as Node;
    const args = node.args[2] as Node[];
    const macro = this.macro(node, name, receiver, args, bound);
    if (macro) return macro;
    const ns = qualifiedName(receiver);
    const root = ns?.split('.')[0];
    if (ns !== undefined && !bound.has(root!) && !this.variables.has(root!) && overloadsNamed(`${ns}.${name}`).length > 0) {
      return call(
        `${ns}.${name}`,
        args.map((a) => this.expand(a, bound)),
        libraryOverloads(`${ns}.${name}`, false, args),
        typeOf(node),
      );
    }
    // or/orValue are functions of the optional library (short-circuiting only at runtime).
    const ids = name === 'or' ? ['optional_or_optional'] : name === 'orValue' ? ['optional_orValue_value'] : libraryOverloads(name, true, [receiver, ...args]);
    return call(
      name,
      args.map((a) => this.expand(a, bound)),
      ids,
      typeOf(node),
      this.expand(receiver, bound),
    );
  }

  /** A macro call expanded as cel-go's parser expands it; undefined when the call is no macro. */
  private macro(node: Node, name: string, receiver: Node, args: readonly Node[], bound: Bound): Expr | undefined {
    if (args[0]?.op !== 'id') return undefined;
    const v1 = args[0].args as string;
    const n = args.length;
    const twoVar = n >= 3 && args[1]?.op === 'id' ? (args[1].args as string) : undefined;
    const resultType = typeOf(node);
    switch (`${name}/${n}`) {
      case 'all/2':
      case 'exists/2':
      case 'exists_one/2':
      case 'existsOne/2':
        return this.quantifier(name, receiver, v1, undefined, args[1]!, bound);
      case 'map/2':
      case 'map/3':
      case 'filter/2': {
        const inner = bind(bound, v1, ACCUMULATOR);
        const range = this.expand(receiver, bound);
        const filter = name === 'filter' ? this.expand(args[1]!, inner) : n === 3 ? this.expand(args[1]!, inner) : undefined;
        const elem = name === 'filter' ? ident(v1, elementType(range.type)) : this.expand(args[n - 1]!, inner);
        return listBuilder(range, v1, undefined, filter, elem, resultType);
      }
      case 'sortBy/2':
        return this.sortBy(receiver, v1, args[1]!, resultType, bound);
      case 'optMap/2':
      case 'optFlatMap/2':
        return this.optMap(name === 'optFlatMap', receiver, v1, args[1]!, resultType, bound);
    }
    if (twoVar === undefined) return undefined;
    switch (`${name}/${n}`) {
      case 'all/3':
      case 'exists/3':
      case 'exists_one/3':
      case 'existsOne/3':
        return this.quantifier(name, receiver, v1, twoVar, args[2]!, bound);
      case 'transformList/3':
      case 'transformList/4': {
        const inner = bind(bound, v1, twoVar, ACCUMULATOR);
        const range = this.expand(receiver, bound);
        const filter = n === 4 ? this.expand(args[2]!, inner) : undefined;
        return listBuilder(range, v1, twoVar, filter, this.expand(args[n - 1]!, inner), resultType);
      }
      case 'transformMap/3':
      case 'transformMap/4':
      case 'transformMapEntry/3':
      case 'transformMapEntry/4': {
        const inner = bind(bound, v1, twoVar, ACCUMULATOR);
        const range = this.expand(receiver, bound);
        const filter = n === 4 ? this.expand(args[2]!, inner) : undefined;
        const transform = this.expand(args[n - 1]!, inner);
        const mapType = resultType.kind === 'map' ? resultType : mapOf(DYN, DYN);
        const accu = () => ident(ACCUMULATOR, mapType);
        const insert =
          name === 'transformMap'
            ? call('cel.@mapInsert', [accu(), ident(v1, mapType.params[0]!), transform], ['@mapInsert_map_key_value'], mapType)
            : call('cel.@mapInsert', [accu(), transform], ['@mapInsert_map_map'], mapType);
        const step = filter ? call('_?_:_', [filter, insert, accu()], ['conditional'], mapType) : insert;
        const init: MapExpr = { kind: 'map', entries: [], type: mapType };
        return comprehension(range, v1, twoVar, init, TRUE(), step, accu(), mapType);
      }
    }
    return undefined;
  }

  private quantifier(name: string, receiver: Node, v1: string, v2: string | undefined, predicate: Node, bound: Bound): Expr {
    const range = this.expand(receiver, bound);
    const pred = this.expand(predicate, v2 === undefined ? bind(bound, v1, ACCUMULATOR) : bind(bound, v1, v2, ACCUMULATOR));
    if (name === 'all' || name === 'exists') {
      const accu = () => ident(ACCUMULATOR, BOOL);
      const all = name === 'all';
      const condArg = all ? accu() : call('!_', [accu()], ['logical_not'], BOOL);
      const cond = call('@not_strictly_false', [condArg], ['not_strictly_false'], BOOL);
      const step = call(all ? '_&&_' : '_||_', [accu(), pred], [all ? 'logical_and' : 'logical_or'], BOOL);
      return comprehension(range, v1, v2, all ? TRUE() : FALSE(), cond, step, accu(), BOOL);
    }
    const accu = () => ident(ACCUMULATOR, INT);
    const one = () => literal(INT, 1n, 1n);
    const step = call('_?_:_', [pred, call('_+_', [accu(), one()], ['add_int64'], INT), accu()], ['conditional'], INT);
    const result = call('_==_', [accu(), one()], ['equals'], BOOL);
    return comprehension(range, v1, v2, literal(INT, 1n, 0n), TRUE(), step, result, BOOL);
  }

  /** `l.sortBy(x, key)`: a bind of the list, sorted by the list of its keys (the lists extension). */
  private sortBy(receiver: Node, v: string, key: Node, resultType: GoType, bound: Bound): Expr {
    const input = '@__sortBy_input__';
    const target = this.expand(receiver, bound);
    const listType = target.type.kind === 'list' ? target.type : listOf(DYN);
    const keyExpr = this.expand(key, bind(bound, input, v, ACCUMULATOR));
    const keys = listBuilder(ident(input, listType), v, undefined, undefined, keyExpr, listOf(keyExpr.type));
    const keyTypeName = keyExpr.type.kind === 'dyn' ? 'dyn' : keyExpr.type.name;
    const sorted = call('@sortByAssociatedKeys', [keys], [`list_${keyTypeName}_sortByAssociatedKeys`], resultType, ident(input, listType));
    return bindExpr(input, target, sorted, resultType);
  }

  /** optMap/optFlatMap: `t.hasValue() ? optional.of(<bind v = t.value() in f>) : optional.none()`. */
  private optMap(flat: boolean, receiver: Node, v: string, fn: Node, resultType: GoType, bound: Bound): Expr {
    const target = this.expand(receiver, bound);
    const valueType = target.type.kind === 'opaque' && target.type.name === 'optional_type' ? target.type.params[0]! : DYN;
    const mapped = this.expand(fn, bind(bound, v));
    const hasValue = call('hasValue', [], ['optional_hasValue'], BOOL, target);
    const value = call('value', [], ['optional_value'], valueType, this.expand(receiver, bound));
    const bindV = bindExpr(v, value, mapped, mapped.type);
    const some = flat ? bindV : call('optional.of', [bindV], ['optional_of'], optionalOf(mapped.type));
    return call('_?_:_', [hasValue, some, call('optional.none', [], ['optional_none'], optionalOf(DYN))], ['conditional'], resultType);
  }
}

function elementType(t: GoType): GoType {
  if (t.kind === 'list') return t.params[0]!;
  if (t.kind === 'map') return t.params[0]!;
  return DYN;
}

function comprehension(iterRange: Expr, iterVar: string, iterVar2: string | undefined, accuInit: Expr, loopCondition: Expr, loopStep: Expr, result: Expr, type: GoType): ComprehensionExpr {
  return { kind: 'comprehension', iterRange, iterVar, ...(iterVar2 !== undefined ? { iterVar2 } : {}), accuVar: ACCUMULATOR, accuInit, loopCondition, loopStep, result, type };
}

/** map/filter/transformList: `@result + [elem]`, behind `filter ? … : @result` when filtered. */
function listBuilder(range: Expr, v1: string, v2: string | undefined, filter: Expr | undefined, elem: Expr, resultType: GoType): ComprehensionExpr {
  const listType = resultType.kind === 'list' ? resultType : listOf(elem.type);
  const accu = () => ident(ACCUMULATOR, listType);
  const single: ListExpr = { kind: 'list', elements: [elem], type: listType };
  const append = call('_+_', [accu(), single], ['add_list'], listType);
  const step = filter ? call('_?_:_', [filter, append, accu()], ['conditional'], listType) : append;
  const init: ListExpr = { kind: 'list', elements: [], type: listType };
  return comprehension(range, v1, v2, init, TRUE(), step, accu(), listType);
}

/** cel.bind's shape: a comprehension over an empty list that never loops, binding `name` to `init`. */
function bindExpr(name: string, init: Expr, result: Expr, type: GoType): ComprehensionExpr {
  const empty: ListExpr = { kind: 'list', elements: [], type: listOf(DYN) };
  return { kind: 'comprehension', iterRange: empty, iterVar: '#unused', accuVar: name, accuInit: init, loopCondition: FALSE(), loopStep: ident(name, init.type), result, type };
}
