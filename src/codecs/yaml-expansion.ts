/**
 * Bounds what a YAML document may expand to, as upstream's YAML decoder does (go-yaml's alias budget,
 * added for CVE-2019-11253, the "billion laughs" of YAML).
 *
 * js-yaml resolves an alias to the very object its anchor built, so parsing a 1 KB document of nested
 * anchors is quick and small: the result is a graph that shares nodes. The expansion happens in
 * whoever walks it as a tree afterwards (validation, JSON.stringify, storage), exponentially. So the
 * decoded value is walked here once, as go-yaml decodes it, with two budgets that stop the walk early:
 *
 * - go-yaml's alias ratio: once more than 1,000 nodes were decoded and more than 100 of them came from
 *   alias expansion, the share from aliases may be at most 99% (up to 400,000 decoded nodes), falling
 *   linearly to 10% at 4,000,000; past it the document "contains excessive aliasing".
 * - The size: the expanded value's JSON text may not pass the request size limit (what a body of JSON
 *   could carry at most).
 *
 * The walk is iterative (no recursion on client data) and stops at the first budget passed, so a
 * hostile document costs at most a few thousand steps and a large honest one one pass.
 */

const ALIAS_RATIO_RANGE_LOW = 400_000;
const ALIAS_RATIO_RANGE_HIGH = 4_000_000;

/** go-yaml's allowedAliasRatio: the share of decoded nodes that may come from aliases. */
export function allowedAliasRatio(decodeCount: number): number {
  if (decodeCount <= ALIAS_RATIO_RANGE_LOW) return 0.99;
  if (decodeCount >= ALIAS_RATIO_RANGE_HIGH) return 0.1;
  return 0.99 - 0.89 * ((decodeCount - ALIAS_RATIO_RANGE_LOW) / (ALIAS_RATIO_RANGE_HIGH - ALIAS_RATIO_RANGE_LOW));
}

export class ExcessiveAliasingError extends Error {
  constructor() {
    super('yaml: document contains excessive aliasing');
    this.name = 'ExcessiveAliasingError';
  }
}

export class ExpandedTooLargeError extends Error {
  constructor(readonly limit: number) {
    super(`the decoded document is larger than ${limit} bytes`);
    this.name = 'ExpandedTooLargeError';
  }
}

export class NonFiniteNumberError extends Error {
  constructor(readonly value: number) {
    super(`json: unsupported value: ${value > 0 ? '+Inf' : value < 0 ? '-Inf' : 'NaN'}`);
    this.name = 'NonFiniteNumberError';
  }
}

export interface ExpansionReport {
  /** Whether any node is reached twice (an alias or a merge key shares it). */
  readonly shared: boolean;
}

interface Step {
  readonly value: unknown;
  /** > 0 inside an alias's expansion. */
  readonly aliasDepth: number;
}

/**
 * Walks `doc` (a js-yaml result) as go-yaml would decode the document: every node, every mapping key,
 * and an alias's target again at each alias. Throws ExcessiveAliasingError, ExpandedTooLargeError
 * (`maxBytes` of approximate JSON text) or NonFiniteNumberError (`.inf`, `.nan`: JSON has none).
 */
export function checkExpansion(doc: unknown, maxBytes: number): ExpansionReport {
  let decodeCount = 1; // the document node
  let aliasCount = 0;
  let bytes = 0;
  let shared = false;
  const seen = new Set<object>();
  const stack: Step[] = [{ value: doc, aliasDepth: 0 }];

  const count = (aliasDepth: number): void => {
    decodeCount++;
    if (aliasDepth > 0) aliasCount++;
    if (aliasCount > 100 && decodeCount > 1000 && aliasCount / decodeCount > allowedAliasRatio(decodeCount)) {
      throw new ExcessiveAliasingError();
    }
  };

  while (stack.length > 0) {
    const { value, aliasDepth: depth } = stack.pop()!;
    let aliasDepth = depth;
    if (value !== null && typeof value === 'object') {
      if (seen.has(value)) {
        shared = true;
        // Reached before: this occurrence is an alias. go-yaml counts the alias node, then its target
        // (and everything under it) as coming from an alias.
        if (aliasDepth === 0) {
          count(0);
          aliasDepth = 1;
        }
      } else {
        seen.add(value);
      }
      count(aliasDepth);
      if (Array.isArray(value)) {
        bytes += 2 + Math.max(0, value.length - 1);
        for (let i = value.length - 1; i >= 0; i--) stack.push({ value: value[i], aliasDepth });
      } else {
        const keys = Object.keys(value);
        bytes += 2 + Math.max(0, keys.length - 1);
        for (let i = keys.length - 1; i >= 0; i--) {
          count(aliasDepth); // the key node
          bytes += keys[i].length + 3;
          stack.push({ value: (value as Record<string, unknown>)[keys[i]], aliasDepth });
        }
      }
    } else {
      count(aliasDepth);
      bytes += scalarBytes(value);
    }
    if (bytes > maxBytes) throw new ExpandedTooLargeError(maxBytes);
  }
  return { shared };
}

/** About the length of a scalar's JSON text (quotes and escapes of strings aside from the quotes). */
function scalarBytes(value: unknown): number {
  switch (typeof value) {
    case 'string':
      return value.length + 2;
    case 'number':
      if (!Number.isFinite(value)) throw new NonFiniteNumberError(value);
      return String(value).length;
    case 'boolean':
      return value ? 4 : 5;
    default:
      return 4; // null
  }
}
