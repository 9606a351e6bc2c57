/**
 * cel-js's type-check errors restated as cel-go's checker states them: unmatched overloads name
 * cel-go's function (`_+_`, `@in`, `_[_]`, `indexOf`) and the argument types in its spelling;
 * unknown fields of declared object types are "undefined field".
 */
import type { Issue } from '../errors.ts';
import { children, positionOf, selectPosition, type Node } from './ast.ts';
import { qualifiedName } from './references.ts';
import { errorTypeName } from './type-names.ts';

const OPERATOR_NAMES: Record<string, string> = {
  '==': '_==_',
  '!=': '_!=_',
  '<': '_<_',
  '<=': '_<=_',
  '>': '_>_',
  '>=': '_>=_',
  '+': '_+_',
  '-': '_-_',
  '*': '_*_',
  '/': '_/_',
  '%': '_%_',
  in: '@in',
  '!_': '!_',
  '-_': '-_',
  '&&': '_&&_',
  '||': '_||_',
  '?:': '_?_:_',
  '[]': '_[_]',
};

const typeOf = (n: Node | undefined) => (n?.checkedType ? errorTypeName(n.checkedType.name) : 'dyn');

function noMatching(name: string, args: readonly Node[], receiver?: Node): string {
  const list = args.map(typeOf).join(', ');
  return `found no matching overload for '${name}' applied to '${receiver ? `${typeOf(receiver)}.` : ''}(${list})'`;
}

/** The node whose argument `child` is (cel-js reports a bad condition at the condition itself). */
function parentOf(root: Node, child: Node): Node | undefined {
  for (const c of children(root)) {
    if (c === child) return root;
    const p = parentOf(c, child);
    if (p) return p;
  }
  return undefined;
}

interface CelJsError {
  readonly code?: string;
  readonly summary?: string;
  readonly message?: string;
  readonly node?: Node;
}

/** The issue cel-go reports for cel-js's type error. */
export function typeIssue(err: CelJsError, root: Node, namespaces: ReadonlySet<string>): Issue {
  const node = err.node;
  const summary = err.summary ?? String(err.message ?? err).split('\n')[0]!;
  if (!node) return { at: 0, message: summary };
  switch (err.code) {
    case 'no_matching_overload': {
      if (node.op === 'call') return { at: positionOf(node), message: noMatching(node.args[0], node.args[1]) };
      if (node.op === 'rcall') {
        const [name, receiver, args] = node.args as [string, Node, Node[]];
        const ns = qualifiedName(receiver);
        if (ns !== undefined && namespaces.has(ns.split('.')[0]!)) return { at: positionOf(node), message: noMatching(`${ns}.${name}`, args) };
        return { at: positionOf(node), message: noMatching(name, args, receiver) };
      }
      break;
    }
    case 'no_such_overload': {
      const name = OPERATOR_NAMES[node.op];
      if (name) return { at: positionOf(node), message: noMatching(name, Array.isArray(node.args) ? node.args : [node.args]) };
      break;
    }
    case 'invalid_logical_operand':
    case 'incompatible_ternary_branches':
    case 'invalid_index_type':
      return { at: positionOf(node), message: noMatching(OPERATOR_NAMES[node.op] ?? node.op, node.args) };
    case 'invalid_condition_type': {
      const parent = parentOf(root, node);
      if (parent?.op === '?:') return { at: positionOf(parent), message: noMatching('_?_:_', parent.args) };
      return { at: positionOf(node), message: `found no matching overload for '_&&_' applied to '(bool, ${typeOf(node)})'` };
    }
    case 'cannot_index_type':
      if (node.op === '.' || node.op === '.?') return { at: selectPosition(node), message: `type '${typeOf(node.args[0])}' does not support field selection` };
      return { at: positionOf(node), message: noMatching('_[_]', node.args) };
    case 'no_such_key':
      if (node.op === '.' || node.op === '.?') return { at: selectPosition(node), message: `undefined field '${node.args[1]}'` };
      break;
    case 'invalid_comprehension_range':
      return { at: positionOf(node), message: `expression of type '${typeOf(node)}' cannot be range of a comprehension (must be list, map, or dynamic)` };
    case 'unknown_variable':
      return { at: node.pos, message: `undeclared reference to '${node.args}' (in container '')` };
    case 'optional_expected':
      return { at: positionOf(node), message: summary.replace(/^optional\.\w+\([^)]*\) /, '') };
    case 'invalid_macro_argument':
      return { at: positionOf(node), message: summary === 'has() invalid argument' ? 'invalid argument to has() macro' : summary };
    case 'predicate_not_bool':
      return { at: positionOf(node), message: summary };
  }
  return { at: positionOf(node), message: summary.charAt(0).toLowerCase() + summary.slice(1) };
}
