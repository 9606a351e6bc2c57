/**
 * The finalizers a delete leaves for the garbage collector, as upstream's generic store decides them
 * (`deletionFinalizersForGarbageCollection`): `orphan` asks the collector to strip the object from
 * its dependents' ownerReferences before it goes, `foregroundDeletion` to delete the dependents that
 * block it first. Background (the default of every kind this server serves) leaves neither.
 */
import type { KubeObject } from '../api/types.ts';
import type { DeleteOptions } from './delete-options.ts';
import type { KindDefinition } from './kind.ts';

/** The dependents lose their reference to the object, then it goes (propagationPolicy Orphan). */
export const FINALIZER_ORPHAN = 'orphan';
/** The object stays until its blocking dependents are gone (propagationPolicy Foreground). */
export const FINALIZER_DELETE_DEPENDENTS = 'foregroundDeletion';

const GC_FINALIZERS: ReadonlySet<string> = new Set([FINALIZER_ORPHAN, FINALIZER_DELETE_DEPENDENTS]);

function finalizersOf(obj: KubeObject): string[] {
  const f = obj.metadata?.finalizers;
  return Array.isArray(f) ? f : [];
}

/**
 * Whether the dependents are to be orphaned: the options decide first (the legacy orphanDependents
 * before propagationPolicy), then a collector finalizer already on the object; the kinds served here
 * all default to not orphaning (no DefaultGarbageCollectionPolicy of OrphanDependents among them).
 */
function shouldOrphanDependents(obj: KubeObject, options: DeleteOptions): boolean {
  if (options.orphanDependents !== undefined) return options.orphanDependents;
  if (options.propagationPolicy) return options.propagationPolicy === 'Orphan';
  for (const f of finalizersOf(obj)) {
    if (f === FINALIZER_ORPHAN) return true;
    if (f === FINALIZER_DELETE_DEPENDENTS) return false;
  }
  return false;
}

/** Whether the dependents are to be deleted first; an explicit orphanDependents (true or false) means no. */
function shouldDeleteDependents(obj: KubeObject, options: DeleteOptions): boolean {
  if (options.orphanDependents !== undefined) return false;
  if (options.propagationPolicy) return options.propagationPolicy === 'Foreground';
  for (const f of finalizersOf(obj)) {
    if (f === FINALIZER_DELETE_DEPENDENTS) return true;
    if (f === FINALIZER_ORPHAN) return false;
  }
  return false;
}

/** The object's finalizers with the collector's put as `orphan` and `foreground` say, or undefined when that changes nothing. */
function withCollectorFinalizers(obj: KubeObject, orphan: boolean, foreground: boolean): string[] | undefined {
  const current = finalizersOf(obj);
  const next = current.filter((f) => !GC_FINALIZERS.has(f));
  if (orphan) next.push(FINALIZER_ORPHAN);
  if (foreground) next.push(FINALIZER_DELETE_DEPENDENTS);
  // Compared as sets, as upstream does: a reordering alone is no change.
  const before = new Set(current);
  const after = new Set(next);
  if (before.size === after.size && [...after].every((f) => before.has(f))) return undefined;
  return next;
}

/**
 * The generic rule: the object's new finalizers when a delete with `options` changes the collector's
 * ones (undefined when it does not). A delete that finds the object already terminating changes them
 * too (Foreground after Orphan swaps them), as upstream updates finalizers on every such delete.
 */
export function deletionFinalizersForGarbageCollection(obj: KubeObject, options: DeleteOptions): string[] | undefined {
  return withCollectorFinalizers(obj, shouldOrphanDependents(obj, options), shouldDeleteDependents(obj, options));
}

/**
 * Namespace's own rule for its first delete (upstream's namespace storage): with orphanDependents
 * set, `false` means foreground (unlike the generic rule, where it means background); a policy
 * names its finalizer; with neither, the finalizers stay as they are.
 */
export function namespaceDeletionFinalizers(obj: KubeObject, options: DeleteOptions): string[] | undefined {
  const has = new Set(finalizersOf(obj));
  let orphan = has.has(FINALIZER_ORPHAN);
  let foreground = has.has(FINALIZER_DELETE_DEPENDENTS);
  if (options.orphanDependents !== undefined) {
    orphan = options.orphanDependents;
    foreground = !options.orphanDependents;
  } else if (options.propagationPolicy) {
    orphan = options.propagationPolicy === 'Orphan';
    foreground = options.propagationPolicy === 'Foreground';
  }
  return withCollectorFinalizers(obj, orphan, foreground);
}

/** The finalizers a delete of `obj` sets for the collector under the kind's rule (the generic one unless the kind has its own). */
export function garbageCollectionFinalizers(kind: KindDefinition, obj: KubeObject, options: DeleteOptions): string[] | undefined {
  const own = kind.deleteStrategy.garbageCollectionFinalizers;
  return own ? own(obj, options) : deletionFinalizersForGarbageCollection(obj, options);
}
