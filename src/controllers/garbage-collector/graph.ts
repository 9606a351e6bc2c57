/**
 * The garbage collector's picture of ownership: one node per object it has seen (or heard of as an
 * owner), keyed by uid, each knowing its owners (the object's ownerReferences) and its dependents
 * (the nodes whose references name it). Only the graph builder changes nodes; the workers read them.
 */

/** metadata.ownerReferences[i], as stored. */
export interface OwnerReference {
  readonly apiVersion: string;
  readonly kind: string;
  readonly name: string;
  readonly uid: string;
  readonly controller?: boolean;
  readonly blockOwnerDeletion?: boolean;
}

/** Where an object is: its coordinates (apiVersion, kind, name, uid) and namespace ('' when cluster-scoped). */
export interface ObjectReference {
  readonly apiVersion: string;
  readonly kind: string;
  readonly name: string;
  readonly uid: string;
  readonly namespace: string;
}

/** The coordinates of an owner reference, in the namespace given (its dependent's, where it is namespaced). */
export function referenceOf(ref: OwnerReference, namespace: string): ObjectReference {
  return { apiVersion: ref.apiVersion, kind: ref.kind, name: ref.name, uid: ref.uid, namespace };
}

/** Whether an owner reference names these coordinates exactly (namespace aside). */
export function matchesCoordinates(ref: OwnerReference, identity: ObjectReference): boolean {
  return ref.uid === identity.uid && ref.name === identity.name && ref.kind === identity.kind && ref.apiVersion === identity.apiVersion;
}

export function sameReference(a: ObjectReference, b: ObjectReference): boolean {
  return a.uid === b.uid && a.name === b.name && a.kind === b.kind && a.apiVersion === b.apiVersion && a.namespace === b.namespace;
}

/** A key for a reference (the absent-owner cache's). */
export function referenceKey(r: ObjectReference): string {
  return JSON.stringify([r.apiVersion, r.kind, r.namespace, r.name, r.uid]);
}

/** As upstream prints a reference in messages: `[v1/ConfigMap, namespace: ns, name: n, uid: u]`. */
export function describeReference(r: ObjectReference): string {
  return `[${r.apiVersion}/${r.kind}, namespace: ${r.namespace}, name: ${r.name}, uid: ${r.uid}]`;
}

/** Upstream's order of references: kind and apiVersion before namespace, then name and uid. */
export function referenceLessThan(a: ObjectReference, b: ObjectReference): boolean {
  for (const key of ['kind', 'apiVersion', 'namespace', 'name', 'uid'] as const) {
    if (a[key] !== b[key]) return a[key] < b[key];
  }
  return false;
}

/** Whether two owner references are the same in every field (blockOwnerDeletion and controller included). */
export function sameOwnerReference(a: OwnerReference, b: OwnerReference): boolean {
  return matchesCoordinates(a, { ...b, namespace: '' }) && (a.controller ?? null) === (b.controller ?? null) && (a.blockOwnerDeletion ?? null) === (b.blockOwnerDeletion ?? null);
}

export function blocks(ref: OwnerReference): boolean {
  return ref.blockOwnerDeletion === true;
}

/**
 * One frozen empty array for every node and kept object without owners (or finalizers): most objects
 * have none, and the collector keeps something of every object of the cluster.
 */
export const NONE: readonly never[] = Object.freeze([]);
/** What `dependents` answers for a node nobody names: a node holds a Set only once it has a dependent. */
const NO_DEPENDENTS: ReadonlySet<GraphNode> = new Set();

export class GraphNode {
  identity: ObjectReference;
  /**
   * The nodes whose owner references name this one, made at the first. The graph holds a node for
   * every object of the cluster and few are owners: an empty Set per node (about 200 bytes with
   * its table) was a third of the collector's memory.
   */
  #dependents: Set<GraphNode> | undefined;
  /** The object's ownerReferences as last seen. */
  owners: readonly OwnerReference[];
  /** deletionTimestamp set and the foregroundDeletion finalizer: waiting for its dependents to go. */
  deletingDependents = false;
  /** deletionTimestamp set: a one-way trip to deletion. */
  beingDeleted = false;
  /** Known only as someone's owner, not (yet) seen itself. */
  virtual = false;

  constructor(identity: ObjectReference, owners: readonly OwnerReference[] = NONE) {
    this.identity = identity;
    this.owners = owners.length === 0 ? NONE : owners;
  }

  /** The nodes whose owner references name this one (read-only: change them with addDependent and removeDependent). */
  get dependents(): ReadonlySet<GraphNode> {
    return this.#dependents ?? NO_DEPENDENTS;
  }

  addDependent(node: GraphNode): void {
    (this.#dependents ??= new Set()).add(node);
  }

  /** Whether the node was a dependent; the Set goes with the last one. */
  removeDependent(node: GraphNode): boolean {
    const dependents = this.#dependents;
    if (!dependents?.delete(node)) return false;
    if (dependents.size === 0) this.#dependents = undefined;
    return true;
  }

  /** A copy (the builder replaces a node rather than change its identity in place). */
  clone(): GraphNode {
    const c = new GraphNode(this.identity, [...this.owners]);
    for (const d of this.dependents) c.addDependent(d);
    c.deletingDependents = this.deletingDependents;
    c.beingDeleted = this.beingDeleted;
    c.virtual = this.virtual;
    return c;
  }

  get observed(): boolean {
    return !this.virtual;
  }

  /** The dependents whose reference to this node has blockOwnerDeletion: true. */
  blockingDependents(): GraphNode[] {
    return [...this.dependents].filter((dep) => dep.owners.some((o) => o.uid === this.identity.uid && blocks(o)));
  }
}
