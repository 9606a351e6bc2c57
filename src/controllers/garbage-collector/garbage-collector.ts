/**
 * Upstream's garbage-collector-controller: deletes objects whose owners are all gone, deletes the
 * dependents of an owner deleted in the foreground (then lets the owner go), and orphans the
 * dependents of an owner deleted with the orphan finalizer. Monitors on every collectable kind feed
 * the graph (graph-builder.ts); two queues of nodes are worked on by the decisions below, which
 * follow upstream's garbagecollector.go. It starts from a fresh list and watch, so a restart or a
 * new leader rebuilds everything from storage.
 */
import type { Logger } from 'pino';
import type { StoredKubeObject } from '../../api/types.ts';
import type { ApiSurface } from '../../registry/api-surface.ts';
import { FINALIZER_DELETE_DEPENDENTS, FINALIZER_ORPHAN } from '../../registry/gc-finalizers.ts';
import { decide, type ClassifiedReferences } from './decisions.ts';
import { EventRecorder } from './event-recorder.ts';
import { GraphBuilder } from './graph-builder.ts';
import { describeReference, referenceOf, type GraphNode, type ObjectReference, type OwnerReference } from './graph.ts';
import { Monitors } from './monitors.ts';
import {
  ClusterOperations,
  isNotFound,
  NAMESPACED_OWNER_OF_CLUSTER_SCOPED_OBJECT,
  ownerReferencesOf,
  type DeletionPropagation,
} from './operations.ts';
import { WorkQueue, type WorkResult } from './work-queue.ts';

/** The name its events carry as their source. */
export const GARBAGE_COLLECTOR_COMPONENT = 'garbage-collector-controller';

/** A worker found the node's object gone and told the graph so; nothing to retry. */
const ENQUEUED_VIRTUAL_DELETE_EVENT = new Error('enqueued virtual delete event');

export interface GarbageCollectorOptions {
  /** Nodes worked on at once per queue (upstream's --concurrent-gc-syncs, 20). */
  readonly concurrency?: number;
  /** How often the monitored kinds are compared with the served ones (upstream: 30 s). */
  readonly resyncMs?: number;
  /** How long the workers wait for the monitors' first lists before they start anyway. */
  readonly initialSyncTimeoutMs?: number;
  /**
   * How often the served kinds are checked for a change (custom resource kinds come and go): a
   * change starts or stops monitors at once rather than at the next resync.
   */
  readonly surfaceCheckMs?: number;
}

export class GarbageCollector {
  readonly #surface: ApiSurface;
  readonly #logger: Logger;
  readonly #options: GarbageCollectorOptions;
  readonly #operations: ClusterOperations;
  readonly #events: EventRecorder;
  #run: Run | undefined;

  constructor(surface: ApiSurface, logger: Logger, options: GarbageCollectorOptions = {}) {
    this.#surface = surface;
    this.#logger = logger.child({ controller: 'garbagecollector' });
    this.#options = options;
    this.#operations = new ClusterOperations(surface);
    this.#events = new EventRecorder(() => surface.findStore('', 'events'), GARBAGE_COLLECTOR_COMPONENT, this.#logger);
  }

  /** Builds the graph from scratch (list and watch of every collectable kind) and starts collecting. */
  async start(): Promise<void> {
    this.#run?.stop();
    const run = new Run(this.#surface, this.#logger, this.#options, this.#operations, this.#events);
    this.#run = run;
    await run.start();
  }

  stop(): void {
    this.#run?.stop();
    this.#run = undefined;
  }
}

/** One leadership term's collector: its graph, queues and monitors, thrown away when it stops. */
class Run {
  readonly graph: GraphBuilder;
  readonly #logger: Logger;
  readonly #options: GarbageCollectorOptions;
  readonly #operations: ClusterOperations;
  readonly #events: EventRecorder;
  readonly #attemptToDelete: WorkQueue<GraphNode>;
  readonly #attemptToOrphan: WorkQueue<GraphNode>;
  readonly #monitors: Monitors;
  #resync: NodeJS.Timeout | undefined;
  #surfaceCheck: NodeJS.Timeout | undefined;
  readonly #surface: ApiSurface;
  #stopped = false;

  constructor(surface: ApiSurface, logger: Logger, options: GarbageCollectorOptions, operations: ClusterOperations, events: EventRecorder) {
    this.#logger = logger;
    this.#options = options;
    this.#operations = operations;
    this.#events = events;
    const concurrency = options.concurrency ?? 20;
    const onError = (node: GraphNode, err: unknown) => this.#logger.warn({ err, item: node.identity }, 'garbage collector: error syncing item');
    this.#attemptToDelete = new WorkQueue((node) => this.#attemptToDeleteWorker(node), onError, { concurrency });
    this.#attemptToOrphan = new WorkQueue((node) => this.#attemptToOrphanWorker(node), onError, { concurrency });
    this.graph = new GraphBuilder(this.#attemptToDelete, this.#attemptToOrphan, (dependent, owner) => this.#reportInvalidNamespaceOwnerRef(dependent, owner));
    this.#monitors = new Monitors(surface, logger, (event) => this.graph.process(event));
    this.#surface = surface;
  }

  async start(): Promise<void> {
    // Workers wait for the first lists (so that owners are known before their dependents are judged), but not forever.
    const timeout = this.#options.initialSyncTimeoutMs ?? 30_000;
    let timer: NodeJS.Timeout | undefined;
    const synced = await Promise.race([
      this.#monitors.sync().then(() => true),
      new Promise<false>((resolve) => {
        timer = setTimeout(() => resolve(false), timeout);
        timer.unref();
      }),
    ]);
    clearTimeout(timer);
    if (this.#stopped) return;
    if (!synced) this.#logger.info('garbage collector: not all monitors synced, proceeding anyway');
    this.#attemptToDelete.run();
    this.#attemptToOrphan.run();
    this.#resync = setInterval(() => {
      this.#monitors.sync().catch((err: unknown) => this.#logger.warn({ err }, 'garbage collector: monitor resync failed'));
    }, this.#options.resyncMs ?? 30_000);
    this.#resync.unref();
    // Upstream learns of new kinds from discovery every 30 s; here the surface's generation is
    // compared every second, so a custom resource kind is collected as soon as it is served.
    let seen = this.#surface.generation;
    this.#surfaceCheck = setInterval(() => {
      if (this.#surface.generation === seen) return;
      seen = this.#surface.generation;
      this.#monitors.sync().catch((err: unknown) => this.#logger.warn({ err }, 'garbage collector: monitor sync failed'));
    }, this.#options.surfaceCheckMs ?? 1000);
    this.#surfaceCheck.unref();
  }

  stop(): void {
    this.#stopped = true;
    if (this.#resync) clearInterval(this.#resync);
    if (this.#surfaceCheck) clearInterval(this.#surfaceCheck);
    this.#monitors.stop();
    this.#attemptToDelete.shutDown();
    this.#attemptToOrphan.shutDown();
  }

  async #attemptToDeleteWorker(queued: GraphNode): Promise<WorkResult> {
    if (this.#stopped) return 'forget';
    let item = queued;
    const inGraph = this.graph.uidToNode.get(item.identity.uid);
    if (!item.observed) {
      // A requeued virtual node whose object was seen meanwhile, or which left the graph, is done with.
      if (!inGraph || inGraph.observed) return 'forget';
    }
    if (inGraph && (inGraph.identity.apiVersion !== item.identity.apiVersion || inGraph.identity.kind !== item.identity.kind)) {
      item = item.clone();
      item.identity = { ...item.identity, apiVersion: inGraph.identity.apiVersion, kind: inGraph.identity.kind };
    }
    try {
      await this.attemptToDeleteItem(item);
    } catch (err) {
      if (err === ENQUEUED_VIRTUAL_DELETE_EVENT || err === NAMESPACED_OWNER_OF_CLUSTER_SCOPED_OBJECT) return 'forget';
      if (this.#stopped) return 'forget';
      this.#logger.warn({ err, item: item.identity }, 'garbage collector: error syncing item');
      return 'requeue';
    }
    // A virtual node is looked at again until a monitor sees its object (or storage says it is gone).
    return item.observed ? 'forget' : 'requeue';
  }

  /**
   * Looks the node's object up in storage and deletes it if all its owners are gone (dangling), or
   * waiting for their dependents to go (then in the foreground, when it has dependents itself);
   * removes the references to absent or waiting owners when a live owner remains. Throws
   * ENQUEUED_VIRTUAL_DELETE_EVENT when the object turned out not to exist.
   */
  async attemptToDeleteItem(item: GraphNode): Promise<void> {
    // Being deleted is a one-way trip: its dependents are handled when it is gone.
    if (item.beingDeleted && !item.deletingDependents) return;
    let latest: StoredKubeObject;
    try {
      latest = await this.#operations.getObject(item.identity);
    } catch (err) {
      if (isNotFound(err)) return this.#virtualDelete(item);
      throw err;
    }
    if (latest.metadata.uid !== item.identity.uid) return this.#virtualDelete(item);
    if (item.deletingDependents) return this.#processDeletingDependentsItem(item);

    const ownerReferences = ownerReferencesOf(latest);
    if (ownerReferences.length === 0) return;
    const decision = decide(await this.#classifyReferences(item, ownerReferences), latest.metadata.finalizers ?? [], [...item.dependents]);
    if (decision.action === 'keep') return;
    if (decision.action === 'removeReferences') {
      await this.#operations.removeOwnerReferences(item.identity, decision.uids);
      return;
    }
    if (decision.unblockFirst) {
      this.#logger.info({ item: item.identity }, 'garbage collector: unblocking owner references to break a possible cycle of foreground deletions');
      await this.#unblockOwnerReferences(item);
    }
    this.#logger.debug({ item: item.identity, propagationPolicy: decision.policy }, 'garbage collector: deleting item');
    return this.#deleteOrVirtual(item, latest, decision.policy);
  }

  async #deleteOrVirtual(item: GraphNode, latest: StoredKubeObject, policy: DeletionPropagation): Promise<void> {
    try {
      await this.#operations.deleteObject(item.identity, latest.metadata.resourceVersion, ownerReferencesOf(latest), policy);
    } catch (err) {
      if (isNotFound(err)) return this.#virtualDelete(item);
      throw err;
    }
  }

  #virtualDelete(item: GraphNode): never {
    this.graph.enqueueVirtualDeleteEvent(item.identity);
    throw ENQUEUED_VIRTUAL_DELETE_EVENT;
  }

  /** An owner waiting for its dependents: done when no dependent blocks it, else its blocking dependents are looked at. */
  async #processDeletingDependentsItem(item: GraphNode): Promise<void> {
    const blocking = item.blockingDependents();
    if (blocking.length === 0) {
      await this.#operations.removeFinalizer(item.identity, FINALIZER_DELETE_DEPENDENTS);
      return;
    }
    for (const dep of blocking) if (!dep.deletingDependents) this.#attemptToDelete.add(dep);
  }

  /** Sorts references by their owner's state, asking storage (an owner absent by uid is dangling). */
  async #classifyReferences(item: GraphNode, references: readonly OwnerReference[]): Promise<ClassifiedReferences> {
    const out = { solid: [] as OwnerReference[], dangling: [] as OwnerReference[], waitingForDependentsDeletion: [] as OwnerReference[] };
    for (const reference of references) {
      const { dangling, owner } = await this.#isDangling(reference, item);
      if (dangling) {
        out.dangling.push(reference);
      } else if (owner!.metadata.deletionTimestamp && (owner!.metadata.finalizers ?? []).includes(FINALIZER_DELETE_DEPENDENTS)) {
        out.waitingForDependentsDeletion.push(reference);
      } else {
        out.solid.push(reference);
      }
    }
    return out;
  }

  /** Whether the reference names no existing object (by name in the dependent's namespace, then by uid). */
  async #isDangling(reference: OwnerReference, item: GraphNode): Promise<{ dangling: boolean; owner?: StoredKubeObject }> {
    const clusterKey = referenceOf(reference, '');
    if (this.graph.absentOwnerCache.has(clusterKey)) return { dangling: true };
    const namespacedKey = referenceOf(reference, item.identity.namespace);
    if (this.graph.absentOwnerCache.has(namespacedKey)) return { dangling: true };
    const mapping = this.#operations.mapping(reference.apiVersion, reference.kind);
    const absentKey = mapping.namespaced ? namespacedKey : clusterKey;
    if (item.identity.namespace === '' && mapping.namespaced) throw NAMESPACED_OWNER_OF_CLUSTER_SCOPED_OBJECT;
    let owner: StoredKubeObject;
    try {
      owner = await this.#operations.getObject(absentKey);
    } catch (err) {
      if (!isNotFound(err)) throw err;
      this.graph.absentOwnerCache.add(absentKey);
      return { dangling: true };
    }
    if (owner.metadata.uid !== reference.uid) {
      this.graph.absentOwnerCache.add(absentKey);
      return { dangling: true };
    }
    return { dangling: false, owner };
  }

  /** Sets blockOwnerDeletion false on the item's blocking references (for owners waiting on it). */
  async #unblockOwnerReferences(item: GraphNode): Promise<void> {
    const blocking = item.owners.filter((o) => o.blockOwnerDeletion === true).map((o) => o.uid);
    if (blocking.length > 0) await this.#operations.unblockOwnerReferences(item.identity, blocking);
  }

  /** Strips the owner from each dependent's references, then removes the orphan finalizer from the owner. */
  async #attemptToOrphanWorker(owner: GraphNode): Promise<WorkResult> {
    if (this.#stopped) return 'forget';
    const dependents = [...owner.dependents];
    const failures: unknown[] = [];
    await Promise.all(
      dependents.map(async (dep) => {
        try {
          await this.#operations.removeOwnerReferences(dep.identity, [owner.identity.uid]);
        } catch (err) {
          if (!isNotFound(err)) failures.push(err);
        }
      }),
    );
    if (failures.length > 0) {
      this.#logger.warn({ errors: failures, owner: owner.identity }, 'garbage collector: orphaning dependents failed');
      return 'requeue';
    }
    try {
      await this.#operations.removeFinalizer(owner.identity, FINALIZER_ORPHAN);
    } catch (err) {
      this.#logger.warn({ err, owner: owner.identity }, 'garbage collector: removing the orphan finalizer failed');
      return 'requeue';
    }
    return 'forget';
  }

  #reportInvalidNamespaceOwnerRef(dependent: GraphNode, owner: OwnerReference): void {
    const invalid: ObjectReference = referenceOf(owner, dependent.identity.namespace);
    const message = `ownerRef ${describeReference(invalid)} does not exist in namespace ${JSON.stringify(dependent.identity.namespace)}`;
    void this.#events.record(dependent.identity, 'Warning', 'OwnerRefInvalidNamespace', message);
  }
}
