/**
 * Apply conflicts (upstream's merge.Conflict and merge.Conflicts): fields an apply would change that
 * another manager owns.
 */
import { goQuote } from '../api/go/quote.ts';
import { compareGoStrings } from '../api/go/strings.ts';
import type { FieldSet } from './fieldpath/field-set.ts';
import { pathString, type Path } from './fieldpath/path-element.ts';

export interface Conflict {
  /** The manager identifier, as the Updater was given it. */
  readonly manager: string;
  readonly path: Path;
}

/** Upstream's Conflicts.Error(): one line for a single conflict, else grouped under sorted managers. */
function conflictsText(conflicts: readonly Conflict[]): string {
  if (conflicts.length === 1) return `conflict with ${goQuote(conflicts[0]!.manager)}: ${pathString(conflicts[0]!.path)}`;
  const byManager = new Map<string, Path[]>();
  for (const c of conflicts) {
    let paths = byManager.get(c.manager);
    if (!paths) byManager.set(c.manager, (paths = []));
    paths.push(c.path);
  }
  const lines: string[] = [];
  for (const manager of [...byManager.keys()].sort(compareGoStrings)) {
    lines.push(`conflicts with ${goQuote(manager)}:`);
    for (const path of byManager.get(manager)!) lines.push(`- ${pathString(path)}`);
  }
  return lines.join('\n');
}

export class ConflictsError extends Error {
  /**
   * Sorted by manager, then in upstream's set iteration order (a level's own fields before the fields
   * below its children). Upstream lists managers in Go map order, which is random; kube-apiserver's
   * Status causes follow this list, its message groups by sorted manager as here.
   */
  readonly conflicts: readonly Conflict[];

  constructor(conflicts: readonly Conflict[]) {
    super(conflictsText(conflicts));
    this.name = 'ConflictsError';
    this.conflicts = conflicts;
  }
}

/** Upstream's ConflictsFromManagers: one conflict per path of each manager's conflicting set. */
export function conflictsFromManagers(sets: ReadonlyMap<string, FieldSet>): Conflict[] {
  const managers = [...sets.keys()].sort(compareGoStrings);
  const out: Conflict[] = [];
  for (const manager of managers) {
    for (const path of sets.get(manager)!.paths()) out.push({ manager, path });
  }
  return out;
}
