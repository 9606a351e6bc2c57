/**
 * What the collector does with an object once it knows how its owners stand (upstream's
 * attemptToDeleteItem, after classifyReferences): kept while a live owner remains (minus the
 * references to absent or waiting owners), deleted once none does.
 */
import { FINALIZER_DELETE_DEPENDENTS, FINALIZER_ORPHAN } from '../../registry/gc-finalizers.ts';
import type { GraphNode, OwnerReference } from './graph.ts';
import type { DeletionPropagation } from './operations.ts';

/** How the object's owner references stand. */
export interface ClassifiedReferences {
  /** The owner exists and is not waiting for its dependents. */
  readonly solid: readonly OwnerReference[];
  /** The owner does not exist (by name, or not with that uid). */
  readonly dangling: readonly OwnerReference[];
  /** The owner is being deleted in the foreground (deletionTimestamp and foregroundDeletion). */
  readonly waitingForDependentsDeletion: readonly OwnerReference[];
}

export type Decision =
  | { readonly action: 'keep' }
  /** A live owner remains: only these references go (a waiting owner would otherwise wait for this object forever). */
  | { readonly action: 'removeReferences'; readonly uids: readonly string[] }
  /**
   * No live owner: delete with this policy. `unblockFirst`: a dependent of the object is itself
   * deleting its dependents while an owner waits on the object, a possible cycle that the object's
   * references stop blocking first.
   */
  | { readonly action: 'delete'; readonly policy: DeletionPropagation; readonly unblockFirst: boolean };

export function decide(refs: ClassifiedReferences, finalizers: readonly string[], dependents: readonly GraphNode[]): Decision {
  if (refs.solid.length > 0) {
    if (refs.dangling.length === 0 && refs.waitingForDependentsDeletion.length === 0) return { action: 'keep' };
    return { action: 'removeReferences', uids: [...refs.dangling, ...refs.waitingForDependentsDeletion].map((r) => r.uid) };
  }
  if (refs.waitingForDependentsDeletion.length > 0 && dependents.length > 0) {
    // Deleted in the foreground, it comes back deleting its own dependents, and goes after them.
    return { action: 'delete', policy: 'Foreground', unblockFirst: dependents.some((d) => d.deletingDependents) };
  }
  // An owner's wish already on the object (a finalizer) is honoured; background otherwise.
  const policy: DeletionPropagation = finalizers.includes(FINALIZER_ORPHAN) ? 'Orphan' : finalizers.includes(FINALIZER_DELETE_DEPENDENTS) ? 'Foreground' : 'Background';
  return { action: 'delete', policy, unblockFirst: false };
}
