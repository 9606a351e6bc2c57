/**
 * cel-js's AST as this package reads it, and the source positions cel-go reports errors at (cel-js
 * records where a node starts; cel-go points at the operator, the `.` of a selection, the `(` of a
 * call, the `[` of an index).
 */

/** The cel-go type cel-js's checker inferred, as it records it on each node it checks. */
export interface CheckedType {
  readonly name: string;
  readonly kind: string;
  readonly valueType?: CheckedType;
  readonly keyType?: CheckedType;
}

export interface Node {
  readonly op: string;
  // The shape of args depends on op; see ASTNodeArgsMap in cel-js's index.d.ts.
  args: any; // eslint-disable-line @typescript-eslint/no-explicit-any
  readonly pos: number;
  readonly start: number;
  readonly end: number;
  readonly input: string;
  readonly checkedType?: CheckedType;
  readonly meta: { alternate?: Node; macro?: unknown; check?: unknown; evaluate?: unknown };
  setMeta(key: string, value: unknown): Node;
}

export const BINARY_OPS = new Set(['==', '!=', 'in', '+', '-', '*', '/', '%', '<', '<=', '>', '>=', '&&', '||']);

export function isNode(v: unknown): v is Node {
  return typeof v === 'object' && v !== null && 'op' in v && 'pos' in v;
}

/** The direct children of a node, in source order. */
export function children(node: Node): Node[] {
  switch (node.op) {
    case 'value':
    case 'id':
      return [];
    case '.':
    case '.?':
      return [node.args[0]];
    case 'call':
      return node.args[1];
    case 'rcall':
      return [node.args[1], ...node.args[2]];
    case 'list':
      return node.args;
    case 'map':
      return (node.args as [Node, Node][]).flat();
    case '!_':
    case '-_':
      return [node.args];
    default:
      return Array.isArray(node.args) ? node.args.filter(isNode) : [];
  }
}

/** The offset after `from` skipping whitespace, comments and closing parentheses. */
function skipFiller(src: string, from: number, skipParens: boolean): number {
  let i = from;
  for (;;) {
    while (i < src.length && (/\s/.test(src[i]!) || (skipParens && src[i] === ')'))) i++;
    if (src.startsWith('//', i)) {
      while (i < src.length && src[i] !== '\n') i++;
      continue;
    }
    return i;
  }
}

/** Where cel-go places a binary operator's node: at the operator. */
export function operatorPosition(node: Node): number {
  const left = node.args[0] as Node;
  return skipFiller(node.input, left.end, true);
}

/** The `(` of a call (cel-go's position of a call expression). */
export function callPosition(node: Node): number {
  const src = node.input;
  if (node.op === 'call') return skipFiller(src, node.pos + (node.args[0] as string).length, false);
  const receiver = node.args[1] as Node;
  let i = skipFiller(src, receiver.end, true);
  if (src[i] === '.') i = skipFiller(src, i + 1, false);
  i += (node.args[0] as string).length;
  return skipFiller(src, i, false);
}

/** The `.` of a selection. */
export function selectPosition(node: Node): number {
  const src = node.input;
  let i = node.pos - 1;
  while (i > 0 && src[i] !== '.') i--;
  return Math.max(0, i);
}

/** The `[` of an index. */
export function indexPosition(node: Node): number {
  const operand = node.args[0] as Node;
  return skipFiller(node.input, operand.end, true);
}

/** The position cel-go gives an expression in its messages. */
export function positionOf(node: Node): number {
  switch (node.op) {
    case 'call':
    case 'rcall':
      return callPosition(node);
    case '.':
    case '.?':
      return selectPosition(node);
    case '[]':
    case '[?]':
      return indexPosition(node);
    case '?:':
      return skipFiller(node.input, (node.args[0] as Node).end, true);
    default:
      return BINARY_OPS.has(node.op) ? operatorPosition(node) : node.pos;
  }
}
