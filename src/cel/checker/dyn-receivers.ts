/**
 * cel-js's checker lets any method call on a dyn receiver through; cel-go's resolves the overloads
 * against the argument types all the same, so `object.name.startsWith(1)` does not compile there.
 * This pass finds such calls whose arguments fit no member overload of the function.
 */
import type { Issue } from '../errors.ts';
import { overloadsNamed } from '../lib/index.ts';
import { candidates } from '../runtime/dispatch.ts';
import { callPosition, children, type Node } from './ast.ts';
import { qualifiedName, type Scope } from './references.ts';
import { errorTypeName } from './type-names.ts';

/** Methods the compiler evaluates itself (macros and optional's lazy or/orValue). */
const SPECIAL = new Set(['all', 'exists', 'exists_one', 'existsOne', 'map', 'filter', 'transformList', 'transformMap', 'transformMapEntry', 'sortBy', 'optMap', 'optFlatMap', 'or', 'orValue']);

export function dynReceiverIssues(root: Node, scope: Scope, storedOnly: boolean): Issue[] {
  const issues: Issue[] = [];
  const visit = (node: Node) => {
    if (node.op === 'rcall' && !node.meta.alternate && !node.meta.macro) {
      const [name, receiver, args] = node.args as [string, Node, Node[]];
      const ns = qualifiedName(receiver);
      const namespaced = ns !== undefined && scope.functions.has(`${ns}.${name}`);
      if (!namespaced && !SPECIAL.has(name) && receiver.checkedType?.kind === 'dyn') {
        const members = overloadsNamed(name).filter((o) => o.member && o.params.length === args.length + 1 && (storedOnly || !o.storedOnly));
        if (candidates(members, [receiver.checkedType, ...args.map((a) => a.checkedType)]).length === 0) {
          const types = args.map((a) => errorTypeName(a.checkedType?.name ?? 'dyn')).join(', ');
          issues.push({ at: callPosition(node), message: `found no matching overload for '${name}' applied to 'dyn.(${types})'` });
        }
      }
    }
    for (const c of children(node)) visit(c);
  };
  visit(root);
  return issues;
}
