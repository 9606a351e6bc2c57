/**
 * The call-cost estimates of Kubernetes' CEL libraries (k8s.io/apiserver's library.CostEstimator,
 * 1.34) and the per-overload estimators cel-go's sets and lists extensions register. Kubernetes
 * treats a change to any of these numbers as an API change: the estimate decides which CRD
 * validation rules can be written.
 */
import type { AstNode, CallEstimate, CostEstimator, FunctionEstimator } from './coster.ts';
import { add, fixed, LIST_CREATE_COST, MAX_U64, multiply, multiplyByFactor, REGEX_LENGTH_FACTOR, STRING_TRAVERSAL_FACTOR, STRUCT_CREATE_COST, union, UNKNOWN_SIZE, type Range, type SizeEstimate } from './estimates.ts';

/** A Kubernetes named format's regex is taken to be this long (apiserver/pkg/cel's MaxNameFormatRegexSize). */
const MAX_NAME_FORMAT_REGEX_SIZE = 128;
/** apiserver/pkg/cel's MaxFormatSize. */
const MAX_FORMAT_SIZE = 64;
/** The shortest repeatable selector requirement is two characters (`k,`). */
const SELECTOR_LENGTH_TO_REQUIREMENT_COUNT = 0.5;
/** Each requirement allocates a struct and a values list. */
const COST_PER_REQUIREMENT = Number(LIST_CREATE_COST + STRUCT_CREATE_COST);

const ONE: CallEstimate = { cost: fixed(1) };

function selectorCost(length: SizeEstimate): Range {
  const parse = multiplyByFactor(length, STRING_TRAVERSAL_FACTOR);
  const requirements = multiplyByFactor(multiplyByFactor(length, SELECTOR_LENGTH_TO_REQUIREMENT_COUNT), COST_PER_REQUIREMENT);
  return add(add(fixed(LIST_CREATE_COST), parse), requirements);
}

/** The struct types whose equality costs 1 (quantities, semvers, authorizer values). */
const UNIT_EQUALITY_STRUCTS = new Set([
  'kubernetes.Quantity',
  'kubernetes.authorization.Authorizer',
  'kubernetes.authorization.PathCheck',
  'kubernetes.authorization.GroupCheck',
  'kubernetes.authorization.ResourceCheck',
  'kubernetes.authorization.Decision',
  'kubernetes.Semver',
]);

/**
 * library.CostEstimator: Kubernetes' call estimates, sizes delegated to `sizes` (a CRD schema's or
 * a policy's declarations).
 */
export class KubernetesCostEstimator implements CostEstimator {
  constructor(private readonly sizes?: { estimateSize(node: AstNode): SizeEstimate | undefined }) {}

  estimateSize(node: AstNode): SizeEstimate | undefined {
    return this.sizes?.estimateSize(node);
  }

  #size(node: AstNode): SizeEstimate {
    return node.computedSize() ?? this.estimateSize(node) ?? UNKNOWN_SIZE;
  }

  /** A node standing for the elements of a list (its path extended by `@items`, so maxLength applies). */
  #listElement(list: AstNode): AstNode | undefined {
    const elem = list.type.params[0];
    if (!elem) return undefined;
    return { path: list.path ? [...list.path, '@items'] : undefined, type: elem, computedSize: () => undefined };
  }

  estimateCallCost(fn: string, overloadId: string, target: AstNode | undefined, args: readonly AstNode[]): CallEstimate | undefined {
    switch (fn) {
      case 'check':
        // Allows two authorization checks per expression.
        return { cost: fixed(350_000) };
      case 'serviceAccount':
      case 'path':
      case 'group':
      case 'resource':
      case 'subresource':
      case 'namespace':
      case 'name':
      case 'allowed':
      case 'reason':
      case 'error':
      case 'errored':
        return ONE;
      case 'fieldSelector':
      case 'labelSelector':
        if (args.length === 1) return { cost: selectorCost(this.#size(args[0]!)) };
        break;
      case 'isSorted':
      case 'sum':
      case 'max':
      case 'min':
      case 'indexOf':
      case 'lastIndexOf':
        if (target) {
          const elem = this.#listElement(target);
          if (elem) {
            let elCost: Range = fixed(1);
            if (elem.type.kind === 'string' || elem.type.kind === 'bytes') elCost = add(elCost, multiplyByFactor(this.#size(elem), STRING_TRAVERSAL_FACTOR));
            return { cost: multiply(this.#size(target), elCost) };
          }
          // indexOf and lastIndexOf of a string.
          return { cost: multiplyByFactor(this.#size(target), STRING_TRAVERSAL_FACTOR) };
        }
        break;
      case 'url':
      case 'jsonpatch.escapeKey':
        if (args.length === 1) {
          const sz = this.#size(args[0]!);
          return { cost: multiplyByFactor(sz, STRING_TRAVERSAL_FACTOR), resultSize: sz };
        }
        break;
      case 'lowerAscii':
      case 'upperAscii':
      case 'substring':
      case 'trim':
        if (target) {
          const sz = this.#size(target);
          return { cost: multiplyByFactor(sz, STRING_TRAVERSAL_FACTOR), resultSize: sz };
        }
        break;
      case 'replace':
        if (target && args.length >= 2) return this.#replace(target, args[0]!, args[1]!);
        break;
      case 'split':
        if (target) {
          const sz = this.#size(target);
          // Worst case: an empty separator, one element per character, unless a limit is given.
          let max = sz.max;
          const limit = args[1]?.expr;
          if (args.length > 1 && limit?.kind === 'literal' && limit.int !== undefined) max = BigInt.asUintN(64, limit.int);
          return { cost: multiplyByFactor(sz, 2 * STRING_TRAVERSAL_FACTOR), resultSize: { min: 0n, max } };
        }
        break;
      case 'join':
        if (target) {
          let sz: SizeEstimate = { min: 0n, max: 0n };
          const listSize = this.#size(target);
          const elem = this.#listElement(target);
          if (elem) sz = multiply(listSize, this.#size(elem));
          if (args.length > 0) {
            const sep = this.#size(args[0]!);
            const separators = { min: listSize.min > 0n ? listSize.min - 1n : 0n, max: listSize.max > 0n ? listSize.max - 1n : 0n };
            sz = add(sz, multiply(sep, separators));
          }
          return { cost: multiplyByFactor(sz, STRING_TRAVERSAL_FACTOR), resultSize: sz };
        }
        break;
      case 'find':
      case 'findAll':
        if (target && args.length >= 1) {
          const sz = this.#size(target);
          const strCost = multiplyByFactor(add(sz, fixed(1)), STRING_TRAVERSAL_FACTOR);
          const regexCost = multiplyByFactor(this.#size(args[0]!), REGEX_LENGTH_FACTOR);
          return { cost: multiply(strCost, regexCost), resultSize: { min: 0n, max: sz.max } };
        }
        break;
      case 'cidr':
      case 'isIP':
      case 'isCIDR':
        if (args.length >= 1) return { cost: multiplyByFactor(this.#size(args[0]!), STRING_TRAVERSAL_FACTOR) };
        break;
      case 'ip':
        // A CIDR's ip() reads a field.
        if (overloadId === 'cidr_ip') return ONE;
        if (args.length >= 1) return { cost: multiplyByFactor(this.#size(args[0]!), STRING_TRAVERSAL_FACTOR) };
        break;
      case 'ip.isCanonical':
        // Parsing, then comparing with the original: twice the traversal.
        if (args.length >= 1) return { cost: multiplyByFactor(this.#size(args[0]!), 2 * STRING_TRAVERSAL_FACTOR) };
        break;
      case 'masked':
      case 'prefixLength':
      case 'family':
      case 'isUnspecified':
      case 'isLoopback':
      case 'isLinkLocalMulticast':
      case 'isLinkLocalUnicast':
      case 'isGlobalUnicast':
        return ONE;
      case 'containsIP':
      case 'containsCIDR':
        if (args.length >= 1) {
          // Comparing two addresses of 4 or 16 bytes.
          const sz: SizeEstimate = { min: 4n, max: 16n };
          let cost = multiplyByFactor(add(sz, sz), STRING_TRAVERSAL_FACTOR);
          if (fn === 'containsCIDR') cost = add(add(cost, multiplyByFactor(sz, STRING_TRAVERSAL_FACTOR)), fixed(1));
          if (overloadId === 'cidr_contains_ip_string' || overloadId === 'cidr_contains_cidr_string') cost = add(cost, multiplyByFactor(this.#size(args[0]!), STRING_TRAVERSAL_FACTOR));
          return { cost };
        }
        break;
      case 'quantity':
      case 'isQuantity':
      case 'semver':
      case 'isSemver':
        if (args.length >= 1) return { cost: multiplyByFactor(this.#size(args[0]!), STRING_TRAVERSAL_FACTOR) };
        break;
      case 'validate':
        if (args.length >= 1) {
          const sz = this.#size(args[0]!);
          return { cost: multiplyByFactor(multiplyByFactor(sz, STRING_TRAVERSAL_FACTOR), MAX_NAME_FORMAT_REGEX_SIZE * REGEX_LENGTH_FACTOR) };
        }
        break;
      case 'format.named':
      case 'sign':
      case 'asInteger':
      case 'isInteger':
      case 'asApproximateFloat':
      case 'isGreaterThan':
      case 'isLessThan':
      case 'compareTo':
      case 'add':
      case 'sub':
      case 'major':
      case 'minor':
      case 'patch':
      case 'getScheme':
      case 'getHostname':
      case 'getHost':
      case 'getPort':
      case 'getEscapedPath':
      case 'getQuery':
        return ONE;
      case '_==_':
        if (args.length === 2) return this.#equality(args[0]!, args[1]!);
        break;
    }
    return undefined;
  }

  #replace(target: AstNode, toReplace: AstNode, replaceWith: AstNode): CallEstimate {
    const sz = this.#size(target);
    const from = this.#size(toReplace);
    const to = this.#size(replaceWith);
    let countMax: bigint;
    let countMin: bigint;
    let retainedMax = 0n;
    let retainedMin = 0n;
    // The longest result.
    if (from.min === 0n) {
      // An empty string to replace surrounds every character with the replacement.
      countMax = sz.max < MAX_U64 ? sz.max + 1n : sz.max;
      retainedMax = sz.max;
    } else if (to.max <= from.min) {
      countMax = 0n;
      retainedMax = sz.max;
    } else {
      countMax = goUint64(Math.ceil(Number(sz.max) / Number(from.min)));
    }
    // The shortest result.
    if (from.max === 0n) {
      countMin = sz.min < MAX_U64 ? sz.min + 1n : sz.min;
      retainedMin = sz.min;
    } else if (from.max <= to.min) {
      countMin = 0n;
      retainedMin = sz.min;
    } else {
      countMin = goUint64(Math.ceil(Number(sz.min) / Number(from.max)));
    }
    const size = add(multiply({ min: countMin, max: countMax }, to), { min: retainedMin, max: retainedMax });
    return { cost: multiplyByFactor(sz, 2 * STRING_TRAVERSAL_FACTOR), resultSize: size };
  }

  #equality(lhs: AstNode, rhs: AstNode): CallEstimate | undefined {
    const a = lhs.type;
    const b = rhs.type;
    if (a.kind !== b.kind || a.name !== b.name) return undefined;
    if (a.kind === 'opaque' && (a.name === 'net.IP' || a.name === 'net.CIDR')) return ONE;
    if (a.kind !== 'struct') return undefined;
    if (UNIT_EQUALITY_STRUCTS.has(a.name)) return ONE;
    if (a.name === 'kubernetes.NamedFormat') return { cost: multiplyByFactor({ min: 1n, max: BigInt(MAX_FORMAT_SIZE) }, STRING_TRAVERSAL_FACTOR) };
    if (a.name === 'kubernetes.URL') {
      // Upstream reads the right-hand size twice.
      let size: SizeEstimate = fixed(1);
      const r = rhs.computedSize();
      if (r) size = union(r, r);
      return { cost: multiplyByFactor({ min: 1n, max: size.max }, STRING_TRAVERSAL_FACTOR) };
    }
    return undefined;
  }
}

/** Go's uint64(f) on amd64: values past 2^64-1 become 2^63. */
function goUint64(f: number): bigint {
  return f >= 2 ** 64 ? 2n ** 63n : BigInt(f);
}

// ---- cel-go's extension estimators ----

function sizeOf(estimator: CostEstimator, node: AstNode): SizeEstimate {
  return node.computedSize() ?? estimator.estimateSize(node) ?? UNKNOWN_SIZE;
}

/** sets.contains/intersects/equivalent: the product of the sizes (equivalence checks both ways). */
const setsCost =
  (factor: number): FunctionEstimator =>
  (estimator, _target, args) => {
    if (args.length !== 2) return undefined;
    return { cost: add(multiplyByFactor(multiply(sizeOf(estimator, args[0]!), sizeOf(estimator, args[1]!)), factor), fixed(1)) };
  };

/** A list call's cost: the list's size times a factor, the call, and the new list. */
function allocatingListCall(factor: number, listSize: SizeEstimate): CallEstimate {
  return { cost: add(add(multiplyByFactor(listSize, factor), fixed(1)), fixed(LIST_CREATE_COST)), resultSize: listSize };
}

/** A constant int argument (negative ones count as 0), else the default. */
function intArgument(node: AstNode, otherwise: bigint): bigint {
  const e = node.expr;
  if (e?.kind !== 'literal' || e.type.kind !== 'int' || e.int === undefined) return otherwise;
  return e.int < 0n ? 0n : e.int;
}

function sortCost(estimator: CostEstimator, node: AstNode, elemTypeName: string): CallEstimate {
  const sz = sizeOf(estimator, node);
  const factor = elemTypeName === 'string' || elemTypeName === 'bytes' ? 2 + STRING_TRAVERSAL_FACTOR : 2;
  return allocatingListCall(factor, multiply(sz, sz));
}

const listsEstimators: [string, FunctionEstimator][] = [
  [
    'list_slice',
    (estimator, target, args) => {
      if (!target || args.length !== 2) return undefined;
      const sz = sizeOf(estimator, target);
      const start = intArgument(args[0]!, 0n);
      const end = intArgument(args[1]!, sz.max);
      return allocatingListCall(1, fixed(BigInt.asUintN(64, end - start)));
    },
  ],
  ['list_flatten', flatten],
  ['list_flatten_int', flatten],
  [
    'lists_range',
    (_estimator, target, args) => {
      if (target || args.length !== 1) return undefined;
      return allocatingListCall(1, fixed(intArgument(args[0]!, MAX_U64)));
    },
  ],
  ['list_reverse', (estimator, target, args) => (target && args.length === 0 ? allocatingListCall(1, sizeOf(estimator, target)) : undefined)],
  [
    'list_distinct',
    (estimator, target, args) => {
      if (!target || args.length !== 0) return undefined;
      const sz = sizeOf(estimator, target);
      return allocatingListCall(2, multiply(sz, sz));
    },
  ],
];

function flatten(estimator: CostEstimator, target: AstNode | undefined, args: readonly AstNode[]): CallEstimate | undefined {
  if (!target || args.length > 1) return undefined;
  const depth = args.length === 1 ? intArgument(args[0]!, MAX_U64) : 1n;
  return allocatingListCall(Number(depth), sizeOf(estimator, target));
}

const COMPARABLE = ['int', 'uint', 'double', 'bool', 'google.protobuf.Duration', 'google.protobuf.Timestamp', 'string', 'bytes'];
for (const t of COMPARABLE) {
  listsEstimators.push([`list_${t}_sort`, (estimator, target, args) => (target && args.length === 0 ? sortCost(estimator, target, t) : undefined)]);
  listsEstimators.push([`list_${t}_sortByAssociatedKeys`, (estimator, target, args) => (target && args.length === 1 ? sortCost(estimator, args[0]!, t) : undefined)]);
}

/** The per-overload estimators of the extensions Kubernetes 1.34 enables (sets; lists version 3). */
export const EXTENSION_ESTIMATORS: ReadonlyMap<string, FunctionEstimator> = new Map<string, FunctionEstimator>([
  ['list_sets_contains_list', setsCost(1)],
  ['list_sets_intersects_list', setsCost(1)],
  ['list_sets_equivalent_list', setsCost(2)],
  ...listsEstimators,
]);

