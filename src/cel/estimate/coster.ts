/**
 * cel-go's static cost estimator (checker/cost.go, cel-go 0.26) over the expanded AST: the range
 * of runtime costs an expression can have, from the sizes its inputs can have. Sizes come from the
 * expression itself (literals, concatenations), from a size estimator that knows the variables'
 * declarations (the field path of a node: `self`, `spec`, `@items`), and from the types (scalars
 * are size 1). Function costs come from per-overload estimators, then the environment's call
 * estimator, then cel-go's defaults. Ported step for step, including how field paths share their
 * backing arrays as Go slices do, because the limits built on these numbers are part of the API.
 */
import {
  add,
  CONST_COST,
  fixed,
  LIST_CREATE_COST,
  MAP_CREATE_COST,
  MAX_U64,
  multiply,
  multiplyByFactor,
  REGEX_LENGTH_FACTOR,
  SELECT_AND_IDENT_COST,
  STRING_TRAVERSAL_FACTOR,
  union,
  UNKNOWN_SIZE,
  ZERO,
  type CostEstimate,
  type Range,
  type SizeEstimate,
} from './estimates.ts';
import { ACCUMULATOR, type CallExpr, type ComprehensionExpr, type Expr, type ListExpr, type MapExpr, type SelectExpr } from './expand.ts';
import { isScalar, type GoType } from './types.ts';

/** What an estimator learns of a node (cel-go's checker.AstNode). */
export interface AstNode {
  /** The field path from a variable (`self`, `spec`, `@items`), or undefined when there is none. */
  readonly path: readonly string[] | undefined;
  readonly type: GoType;
  /** The expression, when the node stands for one. */
  readonly expr?: Expr;
  /** The size known from the expression itself (literals, sizes computed so far). */
  computedSize(): SizeEstimate | undefined;
}

export interface CallEstimate {
  readonly cost: CostEstimate;
  readonly resultSize?: SizeEstimate;
}

/** cel-go's checker.CostEstimator. */
export interface CostEstimator {
  estimateSize(node: AstNode): SizeEstimate | undefined;
  estimateCallCost(fn: string, overloadId: string, target: AstNode | undefined, args: readonly AstNode[]): CallEstimate | undefined;
}

/** An estimator bound to one overload id (cel-go's FunctionEstimator). */
export type FunctionEstimator = (estimator: CostEstimator, target: AstNode | undefined, args: readonly AstNode[]) => CallEstimate | undefined;

export interface CostOptions {
  /** Per-overload estimators, consulted before the call estimator. */
  readonly overloadEstimators?: ReadonlyMap<string, FunctionEstimator>;
  /** Whether has() costs 1 (cel-go's default) or 0 (Kubernetes). */
  readonly presenceTestHasCost?: boolean;
}

/**
 * A field path as a Go slice: appending to a slice with spare capacity writes into the array it
 * shares with other slices, so two paths appended to the same prefix can see each other's last
 * element. cel-go's estimator builds paths that way and its estimates depend on it.
 */
class GoPath {
  constructor(
    private readonly array: string[],
    readonly length: number,
    private readonly capacity: number,
  ) {}

  static of(first: string): GoPath {
    return new GoPath([first], 1, 1);
  }

  static append(p: GoPath | undefined, element: string): GoPath {
    if (!p) return new GoPath([element], 1, 1);
    if (p.length < p.capacity) {
      p.array[p.length] = element;
      return new GoPath(p.array, p.length + 1, p.capacity);
    }
    const capacity = p.capacity * 2;
    const array = p.array.slice(0, p.length);
    array.push(element);
    return new GoPath(array, p.length + 1, capacity);
  }

  elements(): string[] {
    return this.array.slice(0, this.length);
  }
}

interface EntrySize {
  readonly container: 'list' | 'map';
  readonly key: SizeEstimate;
  readonly val: SizeEstimate;
}

function unionEntries(a: EntrySize | undefined, b: EntrySize | undefined): EntrySize | undefined {
  if (!a || !b) return undefined;
  return { container: a.container, key: union(a.key, b.key), val: union(a.val, b.val) };
}

interface LocalVar {
  readonly path: GoPath | undefined;
  readonly size: SizeEstimate | undefined;
  readonly entrySize: EntrySize | undefined;
}

const isAccumulator = (name: string) => name === ACCUMULATOR || name === '@__result__';

/** SizeEstimate.MultiplyByCost: each bound times the cost's. */
const sizeTimesCost = (s: SizeEstimate, c: CostEstimate): CostEstimate => multiply(s, c);

export class Coster {
  readonly #paths = new Map<Expr, GoPath | undefined>();
  readonly #locals = new Map<string, LocalVar[]>();
  readonly #sizes = new Map<Expr, SizeEstimate>();
  readonly #entrySizes = new Map<Expr, EntrySize>();
  readonly #presenceTestCost: CostEstimate;

  constructor(
    private readonly estimator: CostEstimator,
    private readonly options: CostOptions = {},
  ) {
    this.#presenceTestCost = options.presenceTestHasCost === false ? ZERO : fixed(1);
  }

  cost(e: Expr): CostEstimate {
    switch (e.kind) {
      case 'literal':
        return fixed(CONST_COST);
      case 'ident':
        return this.#costIdent(e.name, e);
      case 'select':
        return this.#costSelect(e);
      case 'call':
        return this.#costCall(e);
      case 'list':
        return this.#costCreateList(e);
      case 'map':
        return this.#costCreateMap(e);
      case 'comprehension':
        return this.#isBind(e) ? this.#costBind(e) : this.#costComprehension(e);
    }
  }

  // ---- local variables ----

  #push(name: string, v: LocalVar): void {
    const stack = this.#locals.get(name);
    if (stack) stack.push(v);
    else this.#locals.set(name, [v]);
  }

  #pop(name: string): void {
    this.#locals.get(name)?.pop();
  }

  #peek(name: string): LocalVar | undefined {
    const stack = this.#locals.get(name);
    return stack && stack.length > 0 ? stack[stack.length - 1] : undefined;
  }

  #rangeContainer(entry: EntrySize | undefined, range: Expr): GoType['kind'] {
    return entry ? entry.container : range.type.kind;
  }

  #pushIterKey(name: string, range: Expr): void {
    const entry = this.#computeEntrySize(range);
    const list = this.#rangeContainer(entry, range) === 'list';
    this.#push(name, { path: GoPath.append(this.#getPath(range), list ? '@indices' : '@keys'), size: entry?.key, entrySize: undefined });
  }

  #pushIterValue(name: string, range: Expr): void {
    const entry = this.#computeEntrySize(range);
    const list = this.#rangeContainer(entry, range) === 'list';
    this.#push(name, { path: GoPath.append(this.#getPath(range), list ? '@items' : '@values'), size: entry?.val, entrySize: undefined });
  }

  #pushIterSingle(name: string, range: Expr): void {
    const entry = this.#computeEntrySize(range);
    const list = this.#rangeContainer(entry, range) === 'list';
    this.#push(name, { path: GoPath.append(this.#getPath(range), list ? '@items' : '@keys'), size: list ? entry?.val : entry?.key, entrySize: undefined });
  }

  #pushLocalVar(name: string, e: Expr): void {
    this.#push(name, { path: this.#getPath(e), size: this.#computeSize(e), entrySize: this.#computeEntrySize(e) });
  }

  // ---- paths and sizes ----

  #getPath(e: Expr): GoPath | undefined {
    if (e.kind === 'ident') {
      const v = this.#peek(e.name);
      if (v) return v.path;
    }
    return this.#paths.get(e);
  }

  #newAstNode(e: Expr): AstNode {
    let path = this.#getPath(e)?.elements();
    if (path && path.length > 0 && isAccumulator(path[0]!)) path = undefined;
    const derived = this.#computeSize(e);
    return { path, type: e.type, expr: e, computedSize: () => derived };
  }

  #setSize(e: Expr, size: SizeEstimate | undefined): void {
    if (size) this.#sizes.set(e, size);
  }

  #sizeOrUnknown(e: Expr): SizeEstimate {
    return this.#computeSize(e) ?? UNKNOWN_SIZE;
  }

  #copySizeEstimates(dst: Expr, src: Expr): void {
    this.#setSize(dst, this.#computeSize(src));
    const entry = this.#computeEntrySize(src);
    if (entry) this.#entrySizes.set(dst, entry);
  }

  #computeSize(e: Expr): SizeEstimate | undefined {
    const known = this.#sizes.get(e);
    if (known) return known;
    const fromExpr = exprSize(e);
    if (fromExpr) return fromExpr;
    const path = this.#getPath(e)?.elements();
    const estimated = this.estimator.estimateSize({ path, type: e.type, expr: e, computedSize: () => undefined });
    if (estimated) {
      this.#sizes.set(e, estimated);
      return estimated;
    }
    if (isScalar(e.type)) return fixed(1);
    if (e.kind === 'ident') {
      const v = this.#peek(e.name);
      if (v?.size) return v.size;
    }
    return undefined;
  }

  #computeEntrySize(e: Expr): EntrySize | undefined {
    const known = this.#entrySizes.get(e);
    if (known) return known;
    if (e.kind === 'ident') {
      const v = this.#peek(e.name);
      if (v?.entrySize) return v.entrySize;
    }
    return undefined;
  }

  // ---- expressions ----

  #costIdent(name: string, e: Expr): CostEstimate {
    const v = this.#peek(name);
    this.#paths.set(e, v ? v.path : GoPath.of(name));
    return fixed(SELECT_AND_IDENT_COST);
  }

  #costSelect(e: SelectExpr): CostEstimate {
    if (e.testOnly) return add(this.#presenceTestCost, this.cost(e.operand));
    let sum = this.cost(e.operand);
    const k = e.operand.type.kind;
    if (k === 'map' || k === 'struct' || k === 'typeparam') sum = add(sum, fixed(SELECT_AND_IDENT_COST));
    this.#paths.set(e, GoPath.append(this.#getPath(e.operand), e.field));
    return sum;
  }

  #costCall(e: CallExpr): CostEstimate {
    if (e.fn === 'dyn' && e.args.length === 1 && !e.target) {
      const argCost = this.cost(e.args[0]!);
      this.#copySizeEstimates(e, e.args[0]!);
      return add(fixed(1), argCost);
    }
    const argCosts: CostEstimate[] = [];
    const argNodes: AstNode[] = [];
    for (const a of e.args) {
      argCosts.push(this.cost(a));
      argNodes.push(this.#newAstNode(a));
    }
    if (e.overloads.length === 0) return ZERO;
    let sum: CostEstimate = ZERO;
    let target: AstNode | undefined;
    if (e.target) {
      sum = add(sum, this.cost(e.target));
      target = this.#newAstNode(e.target);
    }
    let fnCost: CostEstimate = { min: MAX_U64, max: 0n };
    let resultSize: SizeEstimate | undefined;
    for (const overload of e.overloads) {
      const oc = this.#functionCost(e, overload, target, argNodes, argCosts);
      fnCost = union(fnCost, oc.cost);
      if (oc.resultSize) resultSize = resultSize ? union(resultSize, oc.resultSize) : oc.resultSize;
      if ((overload === 'index_list' || overload === 'index_map') && e.args.length > 0) {
        resultSize = this.#computeEntrySize(e.args[0]!)?.val;
        this.#paths.set(e, GoPath.append(this.#getPath(e.args[0]!), overload === 'index_list' ? '@items' : '@values'));
      }
      resultSize ??= this.#computeSize(e);
    }
    this.#setSize(e, resultSize);
    return add(sum, fnCost);
  }

  #functionCost(e: CallExpr, overload: string, target: AstNode | undefined, args: readonly AstNode[], argCosts: readonly CostEstimate[]): CallEstimate {
    const argSum = () => argCosts.reduce<CostEstimate>((s, c) => add(s, c), ZERO);
    const custom = this.options.overloadEstimators?.get(overload);
    if (custom) {
      const est = custom(this.estimator, target, args);
      if (est) return { cost: add(est.cost, argSum()), resultSize: est.resultSize };
    }
    const est = this.estimator.estimateCallCost(e.fn, overload, target, args);
    if (est) return { cost: add(est.cost, argSum()), resultSize: est.resultSize };
    const sizeOf = (n: AstNode) => n.computedSize() ?? UNKNOWN_SIZE;
    switch (overload) {
      case 'string_format':
        if (target) return { cost: add(multiplyByFactor(sizeOf(target), STRING_TRAVERSAL_FACTOR), argSum()) };
        break;
      case 'string_to_bytes':
        if (args.length === 1) {
          const sz = sizeOf(args[0]!);
          return { cost: add(multiplyByFactor(sz, STRING_TRAVERSAL_FACTOR), argSum()), resultSize: { min: sz.min, max: wrapU64(sz.max * 4n) } };
        }
        break;
      case 'bytes_to_string':
        if (args.length === 1) {
          const sz = sizeOf(args[0]!);
          return { cost: add(multiplyByFactor(sz, STRING_TRAVERSAL_FACTOR), argSum()), resultSize: { min: sz.min / 4n, max: sz.max } };
        }
        break;
      case 'strings_quote':
        if (args.length === 1) {
          const sz = sizeOf(args[0]!);
          return { cost: add(multiplyByFactor(sz, STRING_TRAVERSAL_FACTOR), argSum()), resultSize: { min: wrapU64(sz.min + 2n), max: wrapU64(sz.max * 2n + 2n) } };
        }
        break;
      case 'starts_with_string':
      case 'ends_with_string':
        if (args.length === 1) return { cost: add(multiplyByFactor(sizeOf(args[0]!), STRING_TRAVERSAL_FACTOR), argSum()) };
        break;
      case 'in_list':
        if (args.length === 2) return { cost: add(multiplyByFactor(sizeOf(args[1]!), 1), argSum()) };
        break;
      case 'matches_string':
        if (target && args.length === 1) {
          const strCost = multiplyByFactor(add(sizeOf(target), fixed(1)), STRING_TRAVERSAL_FACTOR);
          const regexCost = multiplyByFactor(sizeOf(args[0]!), REGEX_LENGTH_FACTOR);
          return { cost: add(multiply(strCost, regexCost), argSum()) };
        }
        break;
      case 'contains_string':
        if (target && args.length === 1) {
          const strCost = multiplyByFactor(sizeOf(target), STRING_TRAVERSAL_FACTOR);
          const subCost = multiplyByFactor(sizeOf(args[0]!), STRING_TRAVERSAL_FACTOR);
          return { cost: add(multiply(strCost, subCost), argSum()) };
        }
        break;
      case 'logical_or':
      case 'logical_and': {
        const [lhs, rhs] = argCosts as [CostEstimate, CostEstimate];
        // Short-circuiting: at least the left side, at most both.
        return { cost: { min: lhs.min, max: add(lhs, rhs).max } };
      }
      case 'conditional': {
        const size = union(sizeOf(args[1]!), sizeOf(args[2]!));
        const entry = unionEntries(this.#computeEntrySize(args[1]!.expr!), this.#computeEntrySize(args[2]!.expr!));
        if (entry) this.#entrySizes.set(e, entry);
        const [cond, ifTrue, ifFalse] = argCosts as [CostEstimate, CostEstimate, CostEstimate];
        return { cost: add(cond, union(ifTrue, ifFalse)), resultSize: size };
      }
      case 'add_string':
      case 'add_bytes':
      case 'add_list':
        if (args.length === 2) {
          const resultSize = add(sizeOf(args[0]!), sizeOf(args[1]!));
          const entry = unionEntries(this.#computeEntrySize(args[0]!.expr!), this.#computeEntrySize(args[1]!.expr!));
          if (entry) this.#entrySizes.set(e, entry);
          if (overload === 'add_list') return { cost: add(fixed(1), argSum()), resultSize };
          return { cost: add(multiplyByFactor(resultSize, STRING_TRAVERSAL_FACTOR), argSum()), resultSize };
        }
        break;
      case 'less_string':
      case 'greater_string':
      case 'less_equals_string':
      case 'greater_equals_string':
      case 'less_bytes':
      case 'greater_bytes':
      case 'less_equals_bytes':
      case 'greater_equals_bytes':
      case 'equals':
      case 'not_equals': {
        const lhs = sizeOf(args[0]!);
        const rhs = sizeOf(args[1]!);
        const smallestMax = rhs.max < lhs.max ? rhs.max : lhs.max;
        const min = smallestMax > 0n ? 1n : 0n;
        return { cost: add(multiplyByFactor({ min, max: smallestMax }, STRING_TRAVERSAL_FACTOR), argSum()) };
      }
    }
    return { cost: add(fixed(1), argSum()) };
  }

  #costCreateList(e: ListExpr): CostEstimate {
    let sum: CostEstimate = ZERO;
    let itemSize: SizeEstimate = { min: e.elements.length === 0 ? 0n : MAX_U64, max: 0n };
    for (const el of e.elements) {
      sum = add(sum, this.cost(el));
      itemSize = union(itemSize, this.#sizeOrUnknown(el));
    }
    this.#entrySizes.set(e, { container: 'list', key: fixed(1), val: itemSize });
    return add(sum, fixed(LIST_CREATE_COST));
  }

  #costCreateMap(e: MapExpr): CostEstimate {
    let sum: CostEstimate = ZERO;
    const empty = e.entries.length === 0;
    let keySize: SizeEstimate = { min: empty ? 0n : MAX_U64, max: 0n };
    let valSize: SizeEstimate = { min: empty ? 0n : MAX_U64, max: 0n };
    for (const [k, v] of e.entries) {
      sum = add(sum, this.cost(k));
      sum = add(sum, this.cost(v));
      keySize = union(keySize, this.#sizeOrUnknown(k));
      valSize = union(valSize, this.#sizeOrUnknown(v));
    }
    this.#entrySizes.set(e, { container: 'map', key: keySize, val: valSize });
    return add(sum, fixed(MAP_CREATE_COST));
  }

  #costComprehension(e: ComprehensionExpr): CostEstimate {
    let sum = add(this.cost(e.iterRange), this.cost(e.accuInit));
    this.#pushLocalVar(e.accuVar, e.accuInit);
    if (e.iterVar2 !== undefined) {
      this.#pushIterKey(e.iterVar, e.iterRange);
      this.#pushIterValue(e.iterVar2, e.iterRange);
    } else {
      this.#pushIterSingle(e.iterVar, e.iterRange);
    }
    const loopCost = this.cost(e.loopCondition);
    const stepCost = this.cost(e.loopStep);
    this.#pop(e.iterVar);
    if (e.iterVar2 !== undefined) this.#pop(e.iterVar2);
    sum = add(sum, this.cost(e.result));
    this.#pop(e.accuVar);
    const rangeCount = this.#sizeOrUnknown(e.iterRange);
    sum = add(sum, sizeTimesCost(rangeCount, add(stepCost, loopCost)));
    switch (e.accuInit.kind) {
      case 'literal':
        this.#setSize(e, this.#computeSize(e.accuInit));
        break;
      case 'list':
      case 'map': {
        this.#setSize(e, rangeCount);
        const stepEntry = this.#computeEntrySize(e.loopStep);
        if (stepEntry) this.#entrySizes.set(e, stepEntry);
        break;
      }
    }
    return sum;
  }

  #isBind(e: ComprehensionExpr): boolean {
    return e.iterRange.kind === 'list' && e.iterRange.elements.length === 0 && e.loopCondition.kind === 'literal' && e.loopCondition.bool === false && e.accuVar !== ACCUMULATOR;
  }

  #costBind(e: ComprehensionExpr): CostEstimate {
    // Binds are evaluated lazily: the empty range's cost is kept.
    let sum = add(this.cost(e.iterRange), this.cost(e.accuInit));
    this.#pushLocalVar(e.accuVar, e.accuInit);
    sum = add(sum, this.cost(e.result));
    this.#pop(e.accuVar);
    this.#copySizeEstimates(e, e.result);
    return sum;
  }
}

/** computeExprSize: the size a literal, list or map expression has by itself. */
function exprSize(e: Expr): SizeEstimate | undefined {
  switch (e.kind) {
    case 'literal':
      return fixed(e.size);
    case 'list':
      return fixed(e.elements.length);
    case 'map':
      return fixed(e.entries.length);
    default:
      return undefined;
  }
}

/** uint64 arithmetic that wraps, where cel-go's does not guard it. */
function wrapU64(v: bigint): bigint {
  return BigInt.asUintN(64, v);
}

export type { Range };
