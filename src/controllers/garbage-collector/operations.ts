/**
 * What the collector asks of the API, through the served stores as a client would (admission runs):
 * read an object, delete it with uid (and resourceVersion) preconditions so that a re-created object
 * of the same name is never touched, strip owner references from it, remove a finalizer from it.
 */
import { ApiError, conflict } from '../../api/errors.ts';
import type { KubeObject, StoredKubeObject } from '../../api/types.ts';
import type { ApiSurface } from '../../registry/api-surface.ts';
import type { DeleteOptions } from '../../registry/delete-options.ts';
import { controllerContext } from '../controller-context.ts';
import { sameOwnerReference, type ObjectReference, type OwnerReference } from './graph.ts';
import { restMapping, type Mapping } from './rest-mapping.ts';

/** A namespaced kind named as owner by a cluster-scoped object: wrong, and no retry will help. */
export const NAMESPACED_OWNER_OF_CLUSTER_SCOPED_OBJECT = new Error('cluster-scoped objects cannot refer to namespaced owners');

/** Upstream's retry.DefaultBackoff, for conflicts on finalizer removal: 4 tries, 10 ms growing fivefold. */
const CONFLICT_RETRIES = 4;
const CONFLICT_DELAY_MS = 10;

export type DeletionPropagation = NonNullable<DeleteOptions['propagationPolicy']>;

export function isNotFound(err: unknown): boolean {
  return err instanceof ApiError && err.code === 404;
}

export function isConflict(err: unknown): boolean {
  return err instanceof ApiError && err.code === 409;
}

export function ownerReferencesOf(obj: KubeObject): OwnerReference[] {
  const refs = obj.metadata?.ownerReferences;
  return Array.isArray(refs) ? (refs as OwnerReference[]) : [];
}

function sameOwners(a: readonly OwnerReference[], b: readonly OwnerReference[]): boolean {
  return a.length === b.length && a.every((r, i) => sameOwnerReference(r, b[i]!));
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

export class ClusterOperations {
  readonly #surface: ApiSurface;

  constructor(surface: ApiSurface) {
    this.#surface = surface;
  }

  mapping(apiVersion: string, kind: string): Mapping {
    return restMapping(this.#surface, apiVersion, kind);
  }

  /** Where the object lives: its mapping and namespace ('' for cluster-scoped kinds). */
  #locate(item: ObjectReference): { mapping: Mapping; namespace: string } {
    const mapping = this.mapping(item.apiVersion, item.kind);
    const namespace = mapping.namespaced ? item.namespace : '';
    // Only a cluster-scoped dependent gives a namespaced owner no namespace.
    if (mapping.namespaced && namespace === '') throw NAMESPACED_OWNER_OF_CLUSTER_SCOPED_OBJECT;
    return { mapping, namespace };
  }

  /** The object as stored now (404 ApiError when it is not). */
  async getObject(item: ObjectReference): Promise<StoredKubeObject> {
    const { mapping, namespace } = this.#locate(item);
    return (await mapping.store.get(controllerContext(), namespace, item.name)).object;
  }

  /**
   * Deletes the object if it is still the one seen: same uid and, when given, same resourceVersion.
   * A version conflict where only the version moved (the owners are as they were) is retried on
   * the uid alone, as upstream does; a NotFound is the caller's to handle.
   */
  async deleteObject(item: ObjectReference, resourceVersion: string, ownersAtResourceVersion: readonly OwnerReference[], policy: DeletionPropagation): Promise<void> {
    const { mapping, namespace } = this.#locate(item);
    const options = (rv?: string): DeleteOptions => ({ dryRun: false, propagationPolicy: policy, preconditions: { uid: item.uid, ...(rv ? { resourceVersion: rv } : {}) } });
    try {
      await mapping.store.delete(controllerContext(), namespace, item.name, options(resourceVersion || undefined));
    } catch (err) {
      if (!isConflict(err) || !resourceVersion) throw err;
      let live: StoredKubeObject;
      try {
        live = (await mapping.store.get(controllerContext(), namespace, item.name)).object;
      } catch (liveErr) {
        if (isNotFound(liveErr)) throw liveErr;
        throw err;
      }
      if (live.metadata.uid !== item.uid || live.metadata.resourceVersion === resourceVersion || !sameOwners(ownerReferencesOf(live), ownersAtResourceVersion)) throw err;
      await mapping.store.delete(controllerContext(), namespace, item.name, options());
    }
  }

  /** Strips the references to these owner uids from the object (a no-op when there are none). */
  async removeOwnerReferences(item: ObjectReference, ownerUids: readonly string[]): Promise<void> {
    const drop = new Set(ownerUids);
    await this.#changeOwnerReferences(item, (refs) => refs.filter((r) => !drop.has(r.uid)));
  }

  /** Turns blockOwnerDeletion off on the references to these owner uids. */
  async unblockOwnerReferences(item: ObjectReference, ownerUids: readonly string[]): Promise<void> {
    const unblock = new Set(ownerUids);
    await this.#changeOwnerReferences(item, (refs) => refs.map((r) => (unblock.has(r.uid) && r.blockOwnerDeletion === true ? { ...r, blockOwnerDeletion: false } : r)));
  }

  /** Rewrites the object's ownerReferences; its uid must still be `item`'s (upstream's patches carry it as a precondition). */
  async #changeOwnerReferences(item: ObjectReference, change: (refs: OwnerReference[]) => OwnerReference[]): Promise<void> {
    const { mapping, namespace } = this.#locate(item);
    await mapping.store.update(controllerContext(), namespace, item.name, {
      build: (current) => {
        if (!current || current.metadata.uid !== item.uid) {
          throw conflict({ group: mapping.kind.group, resource: mapping.kind.plural }, item.name, `Precondition failed: UID in precondition: ${item.uid}, UID in object meta: ${current?.metadata.uid ?? ''}`);
        }
        const refs = change(ownerReferencesOf(current));
        const { ownerReferences: _dropped, ...rest } = current.metadata;
        return { ...current, metadata: refs.length > 0 ? { ...rest, ownerReferences: refs } : rest };
      },
    });
  }

  /**
   * Removes one finalizer from the object (nothing when it is gone, re-created or without it),
   * conditional on the version read, retrying a few times on conflicts. The last finalizer of a
   * deleted object going takes the object out of storage.
   */
  async removeFinalizer(item: ObjectReference, finalizer: string): Promise<void> {
    const { mapping, namespace } = this.#locate(item);
    for (let attempt = 0; ; attempt++) {
      let current;
      try {
        current = await mapping.store.get(controllerContext(), namespace, item.name);
      } catch (err) {
        if (isNotFound(err)) return;
        throw err;
      }
      const finalizers = current.object.metadata.finalizers ?? [];
      if (current.object.metadata.uid !== item.uid || !finalizers.includes(finalizer)) return;
      try {
        await mapping.store.update(controllerContext(), namespace, item.name, {
          precondition: current.resourceVersion,
          build: (obj) => {
            const { finalizers: _old, ...metadata } = obj!.metadata;
            const kept = finalizers.filter((f) => f !== finalizer);
            return { ...obj!, metadata: kept.length > 0 ? { ...metadata, finalizers: kept } : metadata };
          },
        });
        return;
      } catch (err) {
        if (isNotFound(err)) return;
        if (!isConflict(err) || attempt + 1 >= CONFLICT_RETRIES) throw err;
        await sleep(CONFLICT_DELAY_MS * 5 ** attempt);
      }
    }
  }
}
