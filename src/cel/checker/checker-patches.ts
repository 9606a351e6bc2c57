/**
 * Where cel-js's type checker judges differently from cel-go's, nodes get a check of their own
 * before checking:
 * - `duration + timestamp` is a timestamp (cel-js types it as the left operand, a duration);
 * - has() accepts any selection (cel-js insists the selection starts at an identifier, so
 *   `has({'a': 1}.a)` and `has(f(x).y)` would not compile); the selection itself is checked, so an
 *   undefined field of a declared object type is still an error.
 */
import { children, type Node } from './ast.ts';

/* eslint-disable @typescript-eslint/no-explicit-any -- cel-js's checker internals are untyped */

const TS = 'google.protobuf.Timestamp';
const DUR = 'google.protobuf.Duration';

export function patchChecks(root: Node): void {
  const visit = (node: Node) => {
    if (node.op === '+') {
      const original = node.meta.check as (chk: any, ast: Node, ctx: any) => any;
      node.setMeta('check', (chk: any, ast: Node, ctx: any) => {
        const t = original(chk, ast, ctx);
        const [l, r] = ast.args as [Node, Node];
        return l.checkedType?.name === DUR && r.checkedType?.name === TS ? chk.getType(TS) : t;
      });
    }
    if (node.op === 'call' && node.args[0] === 'has' && (node.args[1] as Node[]).length === 1 && node.meta.macro) {
      const macro = node.meta.macro as { typeCheck: unknown };
      const arg = (node.args[1] as Node[])[0]!;
      macro.typeCheck = (chk: any, _m: unknown, ctx: any) => {
        chk.check(arg, ctx);
        return chk.boolType;
      };
    }
    for (const c of children(node)) visit(c);
  };
  visit(root);
}
