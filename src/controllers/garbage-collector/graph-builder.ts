/**
 * The garbage collector's graph builder (upstream's GraphBuilder.processGraphChanges): it turns what
 * the monitors see (and the "virtual" deletes the workers find) into graph changes, and queues the
 * nodes that may now be collected (attemptToDelete) or whose dependents must be orphaned
 * (attemptToOrphan). Owners not yet seen become virtual nodes, to be verified against storage.
 */
import { FINALIZER_DELETE_DEPENDENTS, FINALIZER_ORPHAN } from '../../registry/gc-finalizers.ts';
import { AbsentOwnerCache } from './absent-owner-cache.ts';
import {
  blocks,
  GraphNode,
  matchesCoordinates,
  referenceLessThan,
  referenceOf,
  sameOwnerReference,
  sameReference,
  type ObjectReference,
  type OwnerReference,
} from './graph.ts';

/** What the collector keeps of an object: where it is, whom it names as owners, and its deletion state. */
export interface ObservedObject extends ObjectReference {
  readonly ownerReferences: readonly OwnerReference[];
  readonly finalizers: readonly string[];
  readonly beingDeleted: boolean;
}

/** A change a monitor saw (`old` with updates), or a virtual delete a worker found. */
export interface GraphEvent {
  readonly type: 'add' | 'update' | 'delete';
  readonly object: ObservedObject;
  readonly old?: ObservedObject;
  /** Not seen by a monitor: the worker found the object absent from storage. */
  readonly virtual?: boolean;
}

/** The queues the builder feeds. */
export interface NodeQueue {
  add(node: GraphNode): void;
  addRateLimited(node: GraphNode): void;
}

/** Told when a dependent names an owner it cannot have: a namespaced owner in another namespace. */
export type InvalidNamespaceReporter = (dependent: GraphNode, owner: OwnerReference) => void;

function identityOf(obj: ObservedObject): ObjectReference {
  return { apiVersion: obj.apiVersion, kind: obj.kind, name: obj.name, uid: obj.uid, namespace: obj.namespace };
}

function deletionStartsWithFinalizer(old: ObservedObject | undefined, now: ObservedObject, finalizer: string): boolean {
  if (!now.beingDeleted || !now.finalizers.includes(finalizer)) return false;
  if (!old) return true;
  return !old.beingDeleted || !old.finalizers.includes(finalizer);
}

/** The references added, removed and changed (same uid, other fields) between two ownerReferences lists. */
export function referencesDiffs(old: readonly OwnerReference[], now: readonly OwnerReference[]) {
  const byUid = new Map(old.map((r) => [r.uid, r]));
  const added: OwnerReference[] = [];
  const changed: { oldRef: OwnerReference; newRef: OwnerReference }[] = [];
  for (const ref of now) {
    const before = byUid.get(ref.uid);
    if (!before) {
      added.push(ref);
      continue;
    }
    if (!sameOwnerReference(before, ref)) changed.push({ oldRef: before, newRef: ref });
    byUid.delete(ref.uid);
  }
  return { added, removed: [...byUid.values()], changed };
}

/**
 * The dependents whose reference to `owner`'s uid matches its coordinates (and namespace, for a
 * namespaced owner), and those whose reference does not; a dependent can be in both.
 */
export function partitionDependents(dependents: readonly GraphNode[], owner: ObjectReference): { matching: GraphNode[]; nonmatching: GraphNode[] } {
  const matching: GraphNode[] = [];
  const nonmatching: GraphNode[] = [];
  const ownerNamespaced = owner.namespace !== '';
  for (const dep of dependents) {
    let match = false;
    let mismatch = false;
    if (ownerNamespaced && owner.namespace !== dep.identity.namespace) {
      mismatch = true;
    } else {
      for (const ref of dep.owners) {
        if (ref.uid !== owner.uid) continue;
        if (matchesCoordinates(ref, owner)) match = true;
        else mismatch = true;
      }
    }
    if (match) matching.push(dep);
    if (mismatch) nonmatching.push(dep);
  }
  return { matching, nonmatching };
}

/**
 * Another identity the dependents give the same uid (another apiVersion, kind, name or namespace),
 * to try once the one verified absent is ruled out: the first following it in upstream's order, or
 * else the first of all; undefined when there is none.
 */
export function alternateOwnerIdentity(dependents: readonly GraphNode[], absent: ObjectReference): ObjectReference | undefined {
  const absentClusterScoped = absent.namespace === '';
  const seen = [absent];
  let first: ObjectReference | undefined;
  let firstFollowing: ObjectReference | undefined;
  for (const dep of dependents) {
    for (const ref of dep.owners) {
      if (ref.uid !== absent.uid) continue;
      if (matchesCoordinates(ref, absent) && (absentClusterScoped || absent.namespace === dep.identity.namespace)) continue;
      let candidate = referenceOf(ref, dep.identity.namespace);
      // The absent identity showed this apiVersion and kind to be cluster-scoped.
      if (absentClusterScoped && candidate.apiVersion === absent.apiVersion && candidate.kind === absent.kind) candidate = { ...candidate, namespace: '' };
      if (seen.some((s) => sameReference(s, candidate))) continue;
      seen.push(candidate);
      if (!first || referenceLessThan(candidate, first)) first = candidate;
      if (referenceLessThan(absent, candidate) && (!firstFollowing || referenceLessThan(candidate, firstFollowing))) firstFollowing = candidate;
    }
  }
  return firstFollowing ?? first;
}

export class GraphBuilder {
  /** Every node by uid. */
  readonly uidToNode = new Map<string, GraphNode>();
  /** Owners known absent, shared with the workers. */
  readonly absentOwnerCache = new AbsentOwnerCache();
  readonly #attemptToDelete: NodeQueue;
  readonly #attemptToOrphan: NodeQueue;
  readonly #reportInvalidNamespace: InvalidNamespaceReporter;

  constructor(attemptToDelete: NodeQueue, attemptToOrphan: NodeQueue, reportInvalidNamespace: InvalidNamespaceReporter) {
    this.#attemptToDelete = attemptToDelete;
    this.#attemptToOrphan = attemptToOrphan;
    this.#reportInvalidNamespace = reportInvalidNamespace;
  }

  /** A worker found a node's object absent from storage: the node leaves the graph as if deleted. */
  enqueueVirtualDeleteEvent(ref: ObjectReference): void {
    this.process({ type: 'delete', virtual: true, object: { ...ref, ownerReferences: [], finalizers: [], beingDeleted: false } });
  }

  /** Applies one change to the graph and queues what it makes worth looking at. */
  process(event: GraphEvent): void {
    const obj = event.object;
    let existing = this.uidToNode.get(obj.uid);
    if (existing && !event.virtual && !existing.observed) existing = this.#observe(existing, identityOf(obj));
    if (event.type !== 'delete') {
      if (!existing) this.#added(event);
      else this.#updated(existing, event);
      return;
    }
    if (existing) this.#deleted(existing, event);
  }

  /** A virtual node is seen for real: dependents that named it otherwise are looked at again. */
  #observe(node: GraphNode, observed: ObjectReference): GraphNode {
    let current = node;
    if (!sameReference(observed, node.identity)) {
      const { nonmatching } = partitionDependents([...node.dependents], observed);
      for (const dep of nonmatching) {
        if (observed.namespace !== '' && dep.identity.namespace !== observed.namespace) this.#reportFor(dep, observed.uid);
        this.#attemptToDelete.add(dep);
      }
      current = node.clone();
      current.identity = observed;
      this.uidToNode.set(observed.uid, current);
    }
    current.virtual = false;
    return current;
  }

  #added(event: GraphEvent): void {
    const obj = event.object;
    const node = new GraphNode(identityOf(obj), obj.ownerReferences);
    node.beingDeleted = obj.beingDeleted;
    node.deletingDependents = obj.beingDeleted && obj.finalizers.includes(FINALIZER_DELETE_DEPENDENTS);
    this.uidToNode.set(node.identity.uid, node);
    this.#addDependentToOwners(node, node.owners);
    // An object first seen already deleting (after a restart, say) still needs its transition handled.
    this.#processTransitions(event.old, obj, node);
  }

  #updated(found: GraphNode, event: GraphEvent): void {
    const obj = event.object;
    let node = found;
    if (!event.virtual && (node.identity.apiVersion !== obj.apiVersion || node.identity.kind !== obj.kind)) {
      const before = node;
      node = node.clone();
      node.identity = { ...node.identity, apiVersion: obj.apiVersion, kind: obj.kind };
      this.uidToNode.set(node.identity.uid, node);
      for (const owner of node.owners) {
        const ownerNode = this.uidToNode.get(owner.uid);
        if (ownerNode?.removeDependent(before)) ownerNode.addDependent(node);
      }
    }
    const { added, removed, changed } = referencesDiffs(node.owners, obj.ownerReferences);
    if (added.length > 0 || removed.length > 0 || changed.length > 0) {
      // An owner waiting for this dependent is unblocked when the blocking reference goes.
      this.#addUnblockedOwnersToDeleteQueue(removed, changed);
      node.owners = obj.ownerReferences;
      this.#addDependentToOwners(node, added);
      this.#removeDependentFromOwners(node, removed);
    }
    if (obj.beingDeleted) node.beingDeleted = true;
    this.#processTransitions(event.old, obj, node);
  }

  #deleted(existing: GraphNode, event: GraphEvent): void {
    let remove = true;
    if (event.virtual) {
      const deleted = identityOf(event.object);
      if (existing.virtual) {
        const { matching, nonmatching } = partitionDependents([...existing.dependents], deleted);
        if (nonmatching.length > 0) {
          // Some dependents name this uid otherwise: the node stays, under another identity to verify.
          remove = false;
          if (matching.length > 0) {
            this.absentOwnerCache.add(deleted);
            for (const dep of matching) this.#attemptToDelete.add(dep);
          }
          if (sameReference(existing.identity, deleted)) {
            const replacement = alternateOwnerIdentity(nonmatching, deleted);
            if (replacement) {
              const next = existing.clone();
              next.identity = replacement;
              this.uidToNode.set(replacement.uid, next);
              this.#attemptToDelete.addRateLimited(next);
            }
          }
        }
      } else if (!sameReference(existing.identity, deleted)) {
        // The real object is elsewhere: only the dependents that named the absent identity are dangling.
        remove = false;
        const { matching } = partitionDependents([...existing.dependents], deleted);
        if (matching.length > 0) {
          this.absentOwnerCache.add(deleted);
          for (const dep of matching) this.#attemptToDelete.add(dep);
        }
      }
    }
    if (!remove) return;
    this.uidToNode.delete(existing.identity.uid);
    this.#removeDependentFromOwners(existing, existing.owners);
    if (existing.dependents.size > 0) this.absentOwnerCache.add(identityOf(event.object));
    for (const dep of existing.dependents) this.#attemptToDelete.add(dep);
    // An owner deleting its dependents in the foreground may now be done.
    for (const owner of existing.owners) {
      const ownerNode = this.uidToNode.get(owner.uid);
      if (ownerNode?.deletingDependents) this.#attemptToDelete.add(ownerNode);
    }
  }

  /**
   * Adds `node` to its owners' dependents, making virtual nodes for owners not seen yet (queued, so
   * that storage confirms or denies them). A reference that cannot be right as the graph knows its
   * owner (another namespace, other coordinates) queues the dependent, to be judged against storage.
   */
  #addDependentToOwners(node: GraphNode, owners: readonly OwnerReference[]): void {
    let potentiallyInvalid = false;
    for (const owner of owners) {
      let ownerNode = this.uidToNode.get(owner.uid);
      const found = ownerNode !== undefined;
      if (!ownerNode) {
        ownerNode = new GraphNode(referenceOf(owner, node.identity.namespace));
        ownerNode.virtual = true;
        this.uidToNode.set(owner.uid, ownerNode);
      }
      ownerNode.addDependent(node);
      if (!found) {
        this.#attemptToDelete.add(ownerNode);
        continue;
      }
      if (potentiallyInvalid) continue;
      const ownerNamespaced = ownerNode.identity.namespace !== '';
      if (ownerNamespaced && ownerNode.identity.namespace !== node.identity.namespace) {
        // Seen for real in another namespace: certainly wrong, and said so.
        if (ownerNode.observed) this.#reportFor(node, owner.uid);
        potentiallyInvalid = true;
      } else if (!matchesCoordinates(owner, ownerNode.identity)) {
        potentiallyInvalid = true;
      } else if (!ownerNamespaced && ownerNode.identity.namespace !== node.identity.namespace && !ownerNode.observed) {
        // A virtual owner made by a cluster-scoped dependent may be a namespaced kind after all.
        potentiallyInvalid = true;
      }
    }
    if (potentiallyInvalid) this.#attemptToDelete.add(node);
  }

  #removeDependentFromOwners(node: GraphNode, owners: readonly OwnerReference[]): void {
    for (const owner of owners) this.uidToNode.get(owner.uid)?.removeDependent(node);
  }

  #addUnblockedOwnersToDeleteQueue(removed: readonly OwnerReference[], changed: readonly { oldRef: OwnerReference; newRef: OwnerReference }[]): void {
    for (const ref of removed) {
      if (!blocks(ref)) continue;
      const owner = this.uidToNode.get(ref.uid);
      if (owner) this.#attemptToDelete.add(owner);
    }
    for (const { oldRef, newRef } of changed) {
      if (!blocks(oldRef) || blocks(newRef)) continue;
      const owner = this.uidToNode.get(newRef.uid);
      if (owner) this.#attemptToDelete.add(owner);
    }
  }

  /** Deletion with the orphan finalizer starts orphaning; with foregroundDeletion, deleting the dependents. */
  #processTransitions(old: ObservedObject | undefined, now: ObservedObject, node: GraphNode): void {
    if (deletionStartsWithFinalizer(old, now, FINALIZER_ORPHAN)) {
      this.#attemptToOrphan.add(node);
      return;
    }
    if (deletionStartsWithFinalizer(old, now, FINALIZER_DELETE_DEPENDENTS)) {
      node.deletingDependents = true;
      for (const dep of node.dependents) this.#attemptToDelete.add(dep);
      this.#attemptToDelete.add(node);
    }
  }

  #reportFor(dependent: GraphNode, ownerUid: string): void {
    const ref = dependent.owners.find((o) => o.uid === ownerUid);
    if (ref) this.#reportInvalidNamespace(dependent, ref);
  }
}
