/**
 * The checks cel-go makes before types: every identifier and function must be declared, and macro
 * arguments must have the right shape. cel-js stops at its first problem; cel-go reports every
 * undeclared reference, so this pass walks the whole expression and collects them (cel-js's own
 * functions that Kubernetes lacks — bytes.json() and the like — are undeclared here as there).
 */
import type { Issue } from '../errors.ts';
import { INT64_MAX } from '../values.ts';
import { callPosition, children, positionOf, type Node } from './ast.ts';

/** What a pass needs to know about the environment. */
export interface Scope {
  readonly variables: ReadonlySet<string>;
  /** Declared function names, namespaced ones with their namespace (`sets.contains`). */
  readonly functions: ReadonlySet<string>;
  /** Namespaces of functions (`sets`, `lists`, `strings`, `format`, `optional`, `ip`). */
  readonly namespaces: ReadonlySet<string>;
  /** Macros by `name/argument count`, receiver-style. */
  readonly macros: ReadonlyMap<string, MacroShape>;
}

/** How many leading arguments of a macro are iteration variables, and what cel-go says when one is not. */
export interface MacroShape {
  readonly vars: number;
  readonly notIdent: string;
}

/** Identifiers that name types (`type(x) == int`). */
const TYPE_IDENTS = new Set(['int', 'uint', 'double', 'bool', 'string', 'bytes', 'list', 'map', 'null_type', 'type', 'optional_type']);
/** Qualified type names: `net.IP`, `google.protobuf.Timestamp`. */
const QUALIFIED_TYPES = new Set(['net.IP', 'net.CIDR', 'google.protobuf.Timestamp', 'google.protobuf.Duration']);

const undeclared = (at: number, name: string): Issue => ({ at, message: `undeclared reference to '${name}' (in container '')` });

/** The dotted name a select chain spells (`a.b.c`), if it is one. */
export function qualifiedName(node: Node): string | undefined {
  if (node.op === 'id') return node.args as string;
  if (node.op === '.') {
    const left = qualifiedName(node.args[0] as Node);
    return left === undefined ? undefined : `${left}.${node.args[1]}`;
  }
  return undefined;
}

export function referenceIssues(root: Node, scope: Scope): Issue[] {
  const issues: Issue[] = [];
  const isBound = (name: string, bound: ReadonlySet<string>) => bound.has(name) || scope.variables.has(name);

  const visit = (node: Node, bound: ReadonlySet<string>): void => {
    switch (node.op) {
      case 'value':
        // Integer literals must fit int64 (cel-js accepts any size).
        if (typeof node.args === 'bigint' && node.args > INT64_MAX) issues.push({ at: node.pos, message: 'invalid int literal' });
        return;
      case '-_': {
        const operand = node.args as Node;
        // `-9223372036854775808` is one literal, the smallest int.
        if (operand.op === 'value' && typeof operand.args === 'bigint' && /^-\s*$/.test(node.input.slice(node.pos, operand.start))) {
          if (operand.args > INT64_MAX + 1n) issues.push({ at: node.pos, message: 'invalid int literal' });
          return;
        }
        visit(operand, bound);
        return;
      }
      case 'id': {
        const name = node.args as string;
        if (!isBound(name, bound) && !TYPE_IDENTS.has(name)) issues.push(undeclared(node.pos, name));
        return;
      }
      case '.': {
        const q = qualifiedName(node);
        const root = q?.split('.')[0];
        if (q !== undefined && QUALIFIED_TYPES.has(q) && !isBound(root!, bound)) return;
        visit(node.args[0], bound);
        return;
      }
      case 'call': {
        const [name, args] = node.args as [string, Node[]];
        if (name === 'has' && args.length === 1) {
          const arg = args[0]!;
          if (arg.op !== '.') issues.push({ at: positionOf(arg), message: 'invalid argument to has() macro' });
          else visit(arg, bound);
          return;
        }
        for (const a of args) visit(a, bound);
        if (!scope.functions.has(name)) issues.push(undeclared(callPosition(node), name));
        return;
      }
      case 'rcall': {
        const [name, receiver, args] = node.args as [string, Node, Node[]];
        const shape = scope.macros.get(`${name}/${args.length}`);
        if (shape) {
          visit(receiver, bound);
          const inner = new Set(bound);
          args.slice(0, shape.vars).forEach((a, i) => {
            if (a.op !== 'id') issues.push({ at: positionOf(a), message: shape.notIdent });
            else if (i === 1 && args[0]?.op === 'id' && args[0].args === a.args) issues.push({ at: positionOf(a), message: `duplicate variable name: ${a.args}` });
            else inner.add(a.args as string);
          });
          for (const a of args.slice(shape.vars)) visit(a, inner);
          return;
        }
        const ns = qualifiedName(receiver);
        if (ns !== undefined && scope.functions.has(`${ns}.${name}`) && !isBound(ns.split('.')[0]!, bound)) {
          for (const a of args) visit(a, bound);
          return;
        }
        for (const a of args) visit(a, bound);
        visit(receiver, bound);
        if (!scope.functions.has(name)) issues.push(undeclared(callPosition(node), name));
        return;
      }
      default:
        for (const c of children(node)) visit(c, bound);
    }
  };
  visit(root, new Set());
  return issues;
}
