/**
 * The CRD finalizer (apiextensions-apiserver pkg/controller/finalizer): a deleted CRD holding the
 * `customresourcecleanup.apiextensions.k8s.io` finalizer (src/kinds/custom-resource-definition-delete.ts)
 * has its custom resources deleted in every namespace, waits until none is left, then loses the
 * finalizer and leaves storage. The Terminating condition tells how it goes, in upstream's reasons:
 * InstanceDeletionInProgress, then InstanceDeletionCompleted, or InstanceDeletionFailed /
 * InstanceDeletionCheck (retried with backoff); a CRD never established had no instances
 * (NeverEstablished), and one whose resource overlaps a built-in one keeps them
 * (OverlappingBuiltInResource).
 */
import type { Logger } from 'pino';
import { ApiError } from '../../api/errors.ts';
import { systemContext } from '../../api/request-context.ts';
import type { StoredKubeObject } from '../../api/types.ts';
import { isConditionTrue, setCondition, type CrdCondition } from '../../crd/validation/index.ts';
import { CUSTOM_RESOURCE_CLEANUP_FINALIZER } from '../../kinds/custom-resource-definition-delete.ts';
import type { ApiSurface } from '../../registry/api-surface.ts';
import type { Informer } from '../../registry/informer.ts';
import type { ResourceStore } from '../../registry/resource-store.ts';
import { storageRefOf } from '../../registry/storage-view.ts';
import { nowTimestamp } from '../../registry/system-fields.ts';
import { deepEqualJson } from '../../crd/schema/json.ts';
import { KeyQueue } from './key-queue.ts';
import { asCrd, copyOf, updateCrdStatus, withoutCondition, type Crd } from './crd-status.ts';

/** Built-in resources stored where a CRD of the same names would be: their objects are never deleted. */
const OVERLAPPING_BUILT_IN = new Set(['apiregistration.k8s.io/apiservices', 'apiextensions.k8s.io/customresourcedefinitions']);

const PAGE = 500;

export interface CrdFinalizerOptions {
  /** How often the remaining instances are counted (upstream: 5 s). */
  readonly pollMs?: number;
  /** How long they are waited for before the CRD is queued again (upstream: 1 min). */
  readonly waitMs?: number;
}

/** utilerrors.NewAggregate's text: one error bare, several as a list. */
function aggregate(messages: readonly string[]): string {
  return messages.length === 1 ? messages[0]! : `[${messages.join(', ')}]`;
}

const messageOf = (err: unknown) => (err instanceof Error ? err.message : String(err));

function terminating(status: 'True' | 'False', reason: string, message: string): CrdCondition {
  return { type: 'Terminating', status, reason, message };
}

function holdsFinalizer(obj: StoredKubeObject): boolean {
  return Boolean(obj.metadata.deletionTimestamp) && (obj.metadata.finalizers ?? []).includes(CUSTOM_RESOURCE_CLEANUP_FINALIZER);
}

/** The CRD without its resourceVersion and Terminating condition: what, changed, is worth a sync. */
function withoutOwnProgress(obj: StoredKubeObject): unknown {
  const c = copyOf(asCrd(obj));
  delete (c.metadata as { resourceVersion?: string }).resourceVersion;
  if (c.status) c.status.conditions = withoutCondition(c.status.conditions, 'Terminating');
  return c;
}

export class CrdFinalizer {
  readonly #surface: ApiSurface;
  readonly #crds: ResourceStore;
  readonly #view: Informer;
  readonly #queue: KeyQueue;
  readonly #pollMs: number;
  readonly #waitMs: number;
  #stopped = false;

  constructor(surface: ApiSurface, crds: ResourceStore, view: Informer, logger: Logger, options: CrdFinalizerOptions = {}) {
    this.#surface = surface;
    this.#crds = crds;
    this.#view = view;
    this.#pollMs = options.pollMs ?? 5000;
    this.#waitMs = options.waitMs ?? 60_000;
    this.#queue = new KeyQueue('crd_finalizer', (key) => this.sync(key), logger, 5);
  }

  start(): void {
    this.#stopped = false;
    this.#view.on({
      added: (obj) => {
        if (holdsFinalizer(obj)) this.#queue.add(obj.metadata.name);
      },
      updated: (obj, old) => {
        if (!holdsFinalizer(obj)) return;
        // A change of the Terminating condition alone is this controller's own write: no new sync.
        if (obj.metadata.resourceVersion === old.metadata.resourceVersion || !deepEqualJson(withoutOwnProgress(obj), withoutOwnProgress(old))) {
          this.#queue.add(obj.metadata.name);
        }
      },
    });
    this.#queue.run();
  }

  stop(): void {
    this.#stopped = true;
    this.#queue.stop();
  }

  idle(): Promise<void> {
    return this.#queue.idle();
  }

  resync(): void {
    for (const obj of this.#view.list()) if (holdsFinalizer(obj)) this.#queue.add(obj.metadata.name);
  }

  async sync(name: string): Promise<void> {
    const cached = this.#view.get('', name);
    if (!cached || !holdsFinalizer(cached)) return;
    let crd = copyOf(asCrd(cached));
    const now = () => nowTimestamp();
    const status = () => (crd.status ??= {});
    status().conditions = setCondition(status().conditions, terminating('True', 'InstanceDeletionInProgress', 'CustomResource deletion is in progress'), now());
    const stored = await updateCrdStatus(this.#crds, crd, cached.metadata.resourceVersion);
    if (!stored) {
      // Changed meanwhile: usually its event brings it back, but not when the change was this
      // controller's own Terminating condition the informer has not shown yet (upstream waits
      // for its 5-minute resync there); a second later is soon enough.
      this.#queue.addAfter(name, 1000);
      return;
    }
    crd = copyOf(stored);

    const group = crd.spec?.group ?? '';
    const instances = this.#instanceStore(crd);
    if (OVERLAPPING_BUILT_IN.has(`${group}/${crd.spec?.names?.plural ?? ''}`) || instances === 'built-in') {
      status().conditions = setCondition(status().conditions, terminating('False', 'OverlappingBuiltInResource', 'instances overlap with built-in resources in storage'), now());
    } else if (isConditionTrue(crd, 'Established')) {
      const { condition, error } = await this.#deleteInstances(crd, instances);
      status().conditions = setCondition(status().conditions, condition, now());
      if (error) {
        await updateCrdStatus(this.#crds, crd, stored.metadata.resourceVersion).catch(() => undefined);
        throw error;
      }
    } else {
      status().conditions = setCondition(status().conditions, terminating('False', 'NeverEstablished', 'resource was never established'), now());
    }
    crd.metadata.finalizers = (crd.metadata.finalizers ?? []).filter((f) => f !== CUSTOM_RESOURCE_CLEANUP_FINALIZER);
    await updateCrdStatus(this.#crds, crd, stored.metadata.resourceVersion);
  }

  /** Deletes every instance, then waits until none is left; the condition to record and any error. */
  async #deleteInstances(crd: Crd, store: ResourceStore | undefined): Promise<{ condition: CrdCondition; error?: Error }> {
    const resource = `${crd.status?.acceptedNames?.plural ?? ''}.${crd.spec?.group ?? ''}`;
    if (!store) {
      const error = new Error(`unable to find a custom resource client for ${resource}: the server could not find the requested resource`);
      return { condition: terminating('True', 'InstanceDeletionFailed', `could not list instances: ${error.message}`), error };
    }
    let items: { namespace: string; name: string }[];
    try {
      items = await this.#listInstances(store);
    } catch (err) {
      return { condition: terminating('True', 'InstanceDeletionFailed', `could not list instances: ${messageOf(err)}`), error: err as Error };
    }
    // Upstream deletes a collection per namespace and keeps its first error; here the objects of
    // each namespace are deleted one by one, which is what that collection delete does.
    const failedNamespaces = new Map<string, string>();
    for (const { namespace, name } of items) {
      if (failedNamespaces.has(namespace)) continue;
      try {
        await store.delete(systemContext(), namespace, name, { dryRun: false });
      } catch (err) {
        if (err instanceof ApiError && err.code === 404) continue;
        failedNamespaces.set(namespace, messageOf(err));
      }
    }
    if (failedNamespaces.size > 0) {
      const text = aggregate([...failedNamespaces.values()]);
      return { condition: terminating('True', 'InstanceDeletionFailed', `could not issue all deletes: ${text}`), error: new Error(text) };
    }
    const waited = await this.#waitUntilNone(store);
    if (waited) {
      return { condition: terminating('True', 'InstanceDeletionCheck', `could not confirm zero CustomResources remaining: ${waited}`), error: new Error(waited) };
    }
    return { condition: terminating('False', 'InstanceDeletionCompleted', 'removed all instances') };
  }

  /**
   * The store of the CRD's own served kind. Custom resources are stored under (group, plural), as a
   * built-in kind of those names would be: when a built-in kind holds them (the serving loop never
   * lets a CRD shadow it), its objects are not this CRD's to delete ('built-in').
   */
  #instanceStore(crd: Crd): ResourceStore | 'built-in' | undefined {
    const group = crd.spec?.group ?? '';
    const plural = crd.status?.acceptedNames?.plural ?? '';
    // The storage version's kind reads stored objects without converting them (as upstream's
    // finalizer uses the storage version's storage); another served version will do.
    const storageVersion = crd.spec?.versions?.find((v) => v.storage)?.name;
    let builtIn = false;
    let found: ResourceStore | undefined;
    for (const kind of this.#surface.kinds) {
      const ref = storageRefOf(kind);
      if (!(kind.group === group && kind.plural === plural) && !(ref.group === group && ref.resource === plural)) continue;
      if (!kind.customResource) builtIn = true;
      else if (kind.customResource.crd.metadata?.uid === crd.metadata.uid && (!found || kind.version === storageVersion)) {
        found = this.#surface.lookup(kind.group, kind.version, kind.plural)?.store ?? found;
      }
    }
    return builtIn ? 'built-in' : found;
  }

  async #listInstances(store: ResourceStore, limit = PAGE): Promise<{ namespace: string; name: string }[]> {
    const ref = storageRefOf(store.kind);
    const out: { namespace: string; name: string }[] = [];
    let after: { namespace: string; name: string } | undefined;
    for (;;) {
      const page = await store.storage.list(ref, { limit, after });
      for (const text of page.items) {
        const obj = JSON.parse(text) as StoredKubeObject;
        out.push({ namespace: obj.metadata.namespace ?? '', name: obj.metadata.name });
      }
      if (!page.next) break;
      after = page.next;
    }
    return out;
  }

  /** Polls at once and then every pollMs; undefined once none is left, else why not. */
  async #waitUntilNone(store: ResourceStore): Promise<string | undefined> {
    const deadline = Date.now() + this.#waitMs;
    for (;;) {
      if (this.#stopped) return 'context canceled';
      try {
        const page = await store.storage.list(storageRefOf(store.kind), { limit: 1 });
        if (page.items.length === 0) return undefined;
      } catch (err) {
        return messageOf(err);
      }
      if (Date.now() + this.#pollMs > deadline) return 'context deadline exceeded';
      await new Promise((resolve) => setTimeout(resolve, this.#pollMs).unref());
    }
  }
}
