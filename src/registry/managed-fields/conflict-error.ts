import { ApiError } from '../../api/errors.ts';
import { goQuote } from '../../api/go/quote.ts';
import { compareGoStrings } from '../../api/go/strings.ts';
import type { StatusCause } from '../../api/types.ts';
import type { Conflict } from '../../ssa/conflicts.ts';
import { pathString } from '../../ssa/fieldpath/index.ts';
import { OPERATION_UPDATE } from './entry.ts';
import { parseManagerIdentifier } from './identifier.ts';

/**
 * A manager identifier as conflict messages name it: `"kubectl"`, `"kubelet" with subresource
 * "status"`, and for updaters the version they wrote with (`"kube-controller" using apps/v1`).
 */
export function printManager(identifier: string): string {
  const id = parseManagerIdentifier(identifier);
  if (!id) return goQuote(identifier);
  let text = goQuote(id.manager);
  if (id.subresource) text += ` with subresource ${goQuote(id.subresource)}`;
  if (id.operation === OPERATION_UPDATE) {
    text += ` using ${id.apiVersion}`;
    if (id.time) text += ` at ${id.time}`;
  }
  return text;
}

/** The Status message: one conflict inline, several grouped by manager (managers in byte order). */
function conflictMessage(conflicts: readonly Conflict[]): string {
  if (conflicts.length === 1) {
    const [only] = conflicts as [Conflict];
    return `Apply failed with 1 conflict: conflict with ${printManager(only.manager)}: ${pathString(only.path)}`;
  }
  const byManager = new Map<string, string[]>();
  for (const c of conflicts) {
    const paths = byManager.get(c.manager) ?? [];
    paths.push(pathString(c.path));
    byManager.set(c.manager, paths);
  }
  const lines: string[] = [];
  for (const manager of [...byManager.keys()].sort(compareGoStrings)) {
    lines.push(`conflicts with ${printManager(manager)}:`);
    for (const path of byManager.get(manager)!) lines.push(`- ${path}`);
  }
  return `Apply failed with ${conflicts.length} conflicts: ${lines.join('\n')}`;
}

/**
 * 409 Conflict for an apply that would take fields other managers own (upstream's NewApplyConflict):
 * one FieldManagerConflict cause per conflicting field, in the order the merge reported them.
 */
export function applyConflictError(conflicts: readonly Conflict[]): ApiError {
  const causes: StatusCause[] = conflicts.map((c) => ({
    reason: 'FieldManagerConflict',
    message: `conflict with ${printManager(c.manager)}`,
    field: pathString(c.path),
  }));
  return new ApiError(409, 'Conflict', conflictMessage(conflicts), { causes });
}
