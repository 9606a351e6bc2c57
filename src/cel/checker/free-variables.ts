/**
 * The variables an expression refers to (cel-go's reference map of variables): identifiers not
 * bound by a macro around them. `self.all(oldSelf, oldSelf > 0)` does not refer to `oldSelf`.
 */
import { children, type Node } from './ast.ts';

/** Macros by `name/argument count` and how many leading arguments name iteration variables. */
const BINDING_MACROS = new Map<string, number>([
  ...['all/2', 'exists/2', 'exists_one/2', 'existsOne/2', 'map/2', 'map/3', 'filter/2', 'sortBy/2', 'optMap/2', 'optFlatMap/2'].map((k): [string, number] => [k, 1]),
  ...['all/3', 'exists/3', 'exists_one/3', 'existsOne/3', 'transformList/3', 'transformList/4', 'transformMap/3', 'transformMap/4', 'transformMapEntry/3', 'transformMapEntry/4'].map((k): [string, number] => [k, 2]),
]);

/** The names of the free identifiers of an AST. */
export function freeVariables(root: Node): Set<string> {
  const found = new Set<string>();
  const visit = (node: Node, bound: ReadonlySet<string>): void => {
    if (node.op === 'id') {
      if (!bound.has(node.args as string)) found.add(node.args as string);
      return;
    }
    if (node.op === 'rcall') {
      const args = node.args[2] as Node[];
      const vars = BINDING_MACROS.get(`${node.args[0] as string}/${args.length}`);
      if (vars !== undefined && args.slice(0, vars).every((a) => a.op === 'id')) {
        visit(node.args[1] as Node, bound);
        const inner = new Set([...bound, ...args.slice(0, vars).map((a) => a.args as string)]);
        for (const a of args.slice(vars)) visit(a, inner);
        return;
      }
    }
    for (const c of children(node)) visit(c, bound);
  };
  visit(root, new Set());
  return found;
}
