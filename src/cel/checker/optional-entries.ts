/**
 * Type checking of optional entries (`[?x]`, `{?k: v}`), which cel-js's parser does not know: the
 * `?` was blanked before parsing, so cel-js sees `x` and `v` as plain entries. Their list and map
 * nodes get a check of their own — an optional entry must be optional(T) and contributes T.
 */
import type { Node } from './ast.ts';
import { children } from './ast.ts';

/* eslint-disable @typescript-eslint/no-explicit-any -- cel-js's checker internals are untyped */

function entry(chk: any, node: Node, ctx: any, optional: boolean): any {
  const t = chk.check(node, ctx);
  if (!optional || t.kind === 'dyn') return t.kind === 'dyn' && optional ? chk.dynType : t;
  if (t.kind === 'optional') return t.valueType;
  throw chk.createError('optional_entry', `expected type 'optional_type(${t.name})' but found '${t.name}'`, node);
}

function join(chk: any, a: any, b: any): any {
  return a === undefined ? b : a.unify(chk.registry, b) || chk.dynType;
}

/** Gives list and map nodes with optional entries their own type check. */
export function installOptionalEntryChecks(root: Node, optional: ReadonlySet<number>): void {
  if (optional.size === 0) return;
  const visit = (node: Node) => {
    if (node.op === 'list' && (node.args as Node[]).some((e) => optional.has(e.start))) {
      node.setMeta('check', (chk: any, ast: Node, ctx: any) => {
        let t: any;
        for (const el of ast.args as Node[]) t = join(chk, t, entry(chk, el, ctx, optional.has(el.start)));
        return chk.registry.getListType(t ?? chk.dynType);
      });
    }
    if (node.op === 'map' && (node.args as [Node, Node][]).some(([k]) => optional.has(k.start))) {
      node.setMeta('check', (chk: any, ast: Node, ctx: any) => {
        let kt: any;
        let vt: any;
        for (const [k, v] of ast.args as [Node, Node][]) {
          kt = join(chk, kt, chk.check(k, ctx));
          vt = join(chk, vt, entry(chk, v, ctx, optional.has(k.start)));
        }
        return chk.registry.getMapType(kt ?? chk.dynType, vt ?? chk.dynType);
      });
    }
    for (const c of children(node)) visit(c);
  };
  visit(root);
}
