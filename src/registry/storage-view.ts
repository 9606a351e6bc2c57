import type { KubeObject, StoredKubeObject } from '../api/types.ts';
import type {
  GetOptions,
  ListCursor,
  ListOptions,
  ListResult,
  ObjectKey,
  ResourceRef,
  Storage,
  StoredObject,
  WatchDelivery,
  WatchHandle,
  WatchListener,
  WatchOptions,
} from '../storage/storage.ts';
import type { KindDefinition, StorageMapping } from './kind.ts';
import { ServedTextMemo } from './served-text-memo.ts';
import { storedObjectCheck } from './stored-object-check.ts';

/**
 * A storage mapping whose conversion may have to wait (a custom resource's conversion webhook): the
 * storage view then converts through these instead of the synchronous functions, which stay for
 * callers that cannot wait (admission's equivalent-resource matching) and may throw. Errors thrown
 * here reach the client as they are (make them ApiErrors).
 */
export interface AsyncStorageMapping extends StorageMapping {
  /** One object in the served form to the stored form. */
  toStorageAsync(obj: KubeObject): Promise<KubeObject>;
  /**
   * Stored objects to the served form, in order; a list page or a cursor batch goes in one call.
   * `owned`: the objects were parsed for this call alone, so the conversion may change and return them
   * instead of copying each one (a list of 10,000 would otherwise pay a deep copy per item).
   */
  fromStorageAsync(objs: readonly KubeObject[], owned?: boolean): Promise<KubeObject[]>;
  /**
   * What fromStorageAsync makes of an object depends on that object alone, for as long as the mapping
   * lives (no webhook, whose answers may change): the view may serve again what it made of the same
   * stored text (served-text-memo.ts).
   */
  readonly deterministic?: boolean;
}

function isAsync(m: StorageMapping): m is AsyncStorageMapping {
  return typeof (m as Partial<AsyncStorageMapping>).fromStorageAsync === 'function' && typeof (m as Partial<AsyncStorageMapping>).toStorageAsync === 'function';
}

/** Where a kind's objects live: its own resource, or the one its storage mapping names. */
export function storageRefOf(kind: KindDefinition): ResourceRef {
  return kind.storage ? { group: kind.storage.group, resource: kind.storage.resource } : { group: kind.group, resource: kind.plural };
}

/**
 * Storage as one kind sees it. Most kinds are stored as they are served and get storage itself; a
 * kind that shares another's storage (events.k8s.io/v1 Event is stored as core v1 Event, as upstream)
 * gets a view that converts every object on the way in and out, so the generic store, lists and
 * watches never know. Selectors run against the stored form, so such a kind's field selectors name
 * stored paths.
 *
 * A kind stored as itself also tells storage how its rows decode (stored-object-check.ts), for the
 * rows that were changed outside the server; a converted kind's rows are the stored kind's.
 */
export function storageFor(kind: KindDefinition, storage: Storage): Storage {
  if (kind.storage) return isAsync(kind.storage) ? new AsyncConvertingStorage(storage, kind.storage) : new ConvertingStorage(storage, kind.storage);
  if (!kind.computed && !kind.respond) storage.registerReadCheck?.(storageRefOf(kind), storedObjectCheck(kind));
  return storage;
}

/**
 * What every view of storage passes through untouched: versions, health, and a close that leaves
 * the shared storage open (the view does not own it).
 */
abstract class StorageView {
  protected readonly inner: Storage;
  /** The resource whose rows the view's kind is stored as. */
  protected readonly ref: ResourceRef;

  constructor(inner: Storage, stored: ResourceRef) {
    this.inner = inner;
    this.ref = { group: stored.group, resource: stored.resource };
  }

  /** A key of the view's kind, as a key of the stored resource. */
  protected storedKey(key: ObjectKey): ObjectKey {
    return { ...key, ...this.ref };
  }

  waitForVersion(version: number): Promise<void> {
    return this.inner.waitForVersion(version);
  }

  currentVersion(): Promise<number> {
    return this.inner.currentVersion();
  }

  compactedVersion(): Promise<number> {
    return this.inner.compactedVersion();
  }

  ping(timeoutMs?: number): Promise<void> {
    return this.inner.ping(timeoutMs);
  }

  close(): Promise<void> {
    return Promise.resolve();
  }
}

class ConvertingStorage extends StorageView implements Storage {
  static #views = 0;
  /** Keeps this view's shared watch memos apart from the stored form's and any other view's. */
  readonly #memoPrefix = `view${ConvertingStorage.#views++}:`;
  readonly #m: StorageMapping;

  constructor(inner: Storage, mapping: StorageMapping) {
    super(inner, mapping);
    this.#m = mapping;
  }

  #out(stored: StoredObject): StoredObject {
    const object = this.#m.fromStorage(stored.object) as StoredKubeObject;
    return { object, text: JSON.stringify(object), resourceVersion: stored.resourceVersion };
  }

  #in(object: StoredKubeObject): StoredKubeObject {
    return this.#m.toStorage(object) as StoredKubeObject;
  }

  async get(key: ObjectKey, options?: GetOptions): Promise<StoredObject | null> {
    const found = await this.inner.get(this.storedKey(key), options);
    return found ? this.#out(found) : null;
  }

  async list(_ref: ResourceRef, options: ListOptions): Promise<ListResult> {
    const result = await this.inner.list(this.ref, options);
    return { ...result, items: result.items.map((t) => JSON.stringify(this.#m.fromStorage(JSON.parse(t)))) };
  }

  async openList(_ref: ResourceRef, options: ListOptions): Promise<ListCursor> {
    const cursor = await this.inner.openList(this.ref, options);
    const from = this.#m.fromStorage;
    return {
      resourceVersion: cursor.resourceVersion,
      unreadable: cursor.unreadable,
      next: async () => (await cursor.next()).map((t) => JSON.stringify(from(JSON.parse(t)))),
      close: () => cursor.close(),
    };
  }

  async create(key: ObjectKey, object: StoredKubeObject, options?: { requireNamespace?: boolean }): Promise<StoredObject> {
    return this.#out(await this.inner.create(this.storedKey(key), this.#in(object), options));
  }

  async update(key: ObjectKey, object: StoredKubeObject, expectedVersion?: number, expectedUid?: string): Promise<StoredObject> {
    return this.#out(await this.inner.update(this.storedKey(key), this.#in(object), expectedVersion, expectedUid));
  }

  async delete(key: ObjectKey, expectedVersion?: number, expectedUid?: string): Promise<StoredObject> {
    return this.#out(await this.inner.delete(this.storedKey(key), expectedVersion, expectedUid));
  }

  deleteUnreadable(key: ObjectKey, expectedVersion: number, message: string): Promise<number> {
    if (!this.inner.deleteUnreadable) return Promise.reject(new Error('the storage cannot delete unreadable objects'));
    return this.inner.deleteUnreadable(this.storedKey(key), expectedVersion, message);
  }

  watch(_ref: ResourceRef, options: WatchOptions, listener: WatchListener): Promise<WatchHandle> {
    const from = this.#m.fromStorage;
    return this.inner.watch(this.ref, options, {
      onEvent: (ev) => {
        // Converted once per change and shared by every watcher of this view (keys kept apart from the stored form's).
        const prefix = this.#memoPrefix;
        const object = () => ev.memo(`${prefix}object`, () => from(ev.object) as StoredKubeObject);
        const delivery: WatchDelivery = {
          type: ev.type,
          resourceVersion: ev.resourceVersion,
          get object() {
            return object();
          },
          text: () => ev.memo(`${prefix}text`, () => JSON.stringify(object())),
          memo: (key, build) => ev.memo(`${prefix}${key}`, build),
        };
        return listener.onEvent(delivery);
      },
      onClose: (reason, detail) => listener.onClose(reason, detail),
      room: listener.room ? () => listener.room!() : undefined,
    });
  }

}

/** Changes a watcher may have waiting for conversion before it counts as one that cannot keep up. */
const MAX_CONVERTING_EVENTS = 1000;

/**
 * Characters of stored and served text one view's memo holds at most (a deterministic mapping's):
 * a list of 10,000 custom resources of ~1.2 KB each fits.
 */
export const SERVED_TEXT_MEMO_MAX_CHARS = 32 * 1024 * 1024;

/**
 * The converting view for mappings that convert asynchronously (AsyncStorageMapping). Lists convert
 * a page (or a cursor's batch) in one call, as upstream hands a conversion webhook a whole list.
 * Watch events are converted once per change for every watcher of this view and delivered in the
 * order they happened, whatever order their conversions finish in; a bookmark never claims a
 * version whose event is still converting. A change that fails to convert ends the watch, as
 * upstream's watch stops at an event it cannot encode.
 */
class AsyncConvertingStorage extends StorageView implements Storage {
  static #views = 0;
  readonly #memoPrefix = `async-view${AsyncConvertingStorage.#views++}:`;
  readonly #m: AsyncStorageMapping;
  readonly #memo: ServedTextMemo | undefined;

  constructor(inner: Storage, mapping: AsyncStorageMapping) {
    super(inner, mapping);
    this.#m = mapping;
    this.#memo = mapping.deterministic ? new ServedTextMemo(SERVED_TEXT_MEMO_MAX_CHARS) : undefined;
  }

  async #out(stored: StoredObject): Promise<StoredObject> {
    const [object] = (await this.#m.fromStorageAsync([stored.object])) as StoredKubeObject[];
    return { object: object!, text: JSON.stringify(object), resourceVersion: stored.resourceVersion };
  }

  /** Stored texts (a list page, a cursor batch) as served texts, in order. */
  async #texts(texts: readonly string[]): Promise<string[]> {
    if (texts.length === 0) return [];
    const memo = this.#memo;
    const served: string[] = new Array<string>(texts.length);
    const missing: number[] = [];
    for (let i = 0; i < texts.length; i++) {
      const known = memo?.get(texts[i]!);
      if (known === undefined) missing.push(i);
      else served[i] = known;
    }
    if (missing.length === 0) return served;
    const out = await this.#m.fromStorageAsync(
      missing.map((i) => JSON.parse(texts[i]!) as KubeObject),
      true,
    );
    missing.forEach((i, j) => {
      const text = JSON.stringify(out[j]);
      served[i] = text;
      memo?.set(texts[i]!, text);
    });
    return served;
  }

  async #in(object: StoredKubeObject): Promise<StoredKubeObject> {
    return (await this.#m.toStorageAsync(object)) as StoredKubeObject;
  }

  async get(key: ObjectKey, options?: GetOptions): Promise<StoredObject | null> {
    const found = await this.inner.get(this.storedKey(key), options);
    return found ? this.#out(found) : null;
  }

  async list(_ref: ResourceRef, options: ListOptions): Promise<ListResult> {
    const result = await this.inner.list(this.ref, options);
    return { ...result, items: await this.#texts(result.items) };
  }

  async openList(_ref: ResourceRef, options: ListOptions): Promise<ListCursor> {
    const cursor = await this.inner.openList(this.ref, options);
    // The first batch is converted before the answer starts, so that a conversion that fails (a
    // webhook down) is answered with its status rather than a list cut off halfway.
    let first: string[] | undefined;
    try {
      first = await this.#texts(await cursor.next());
    } catch (err) {
      await cursor.close();
      throw err;
    }
    return {
      resourceVersion: cursor.resourceVersion,
      unreadable: cursor.unreadable,
      next: async () => {
        if (first) {
          const batch = first;
          first = undefined;
          return batch;
        }
        return this.#texts(await cursor.next());
      },
      close: () => cursor.close(),
    };
  }

  async create(key: ObjectKey, object: StoredKubeObject, options?: { requireNamespace?: boolean }): Promise<StoredObject> {
    return this.#out(await this.inner.create(this.storedKey(key), await this.#in(object), options));
  }

  async update(key: ObjectKey, object: StoredKubeObject, expectedVersion?: number, expectedUid?: string): Promise<StoredObject> {
    return this.#out(await this.inner.update(this.storedKey(key), await this.#in(object), expectedVersion, expectedUid));
  }

  async delete(key: ObjectKey, expectedVersion?: number, expectedUid?: string): Promise<StoredObject> {
    const gone = await this.inner.delete(this.storedKey(key), expectedVersion, expectedUid);
    // The object is gone whatever its conversion does: a failed one answers with the stored form.
    return this.#out(gone).catch(() => gone);
  }

  deleteUnreadable(key: ObjectKey, expectedVersion: number, message: string): Promise<number> {
    if (!this.inner.deleteUnreadable) return Promise.reject(new Error('the storage cannot delete unreadable objects'));
    return this.inner.deleteUnreadable(this.storedKey(key), expectedVersion, message);
  }

  async watch(_ref: ResourceRef, options: WatchOptions, listener: WatchListener): Promise<WatchHandle> {
    const prefix = this.#memoPrefix;
    const from = (o: StoredKubeObject) => this.#m.fromStorageAsync([o]).then(([c]) => c as StoredKubeObject);
    // Deliveries run one after another on this chain, in the order the changes came.
    let tail: Promise<void> = Promise.resolve();
    let waiting = 0;
    let delivered = options.fromVersion;
    let closed = false;
    let inner: WatchHandle | undefined;
    const close = (reason: Parameters<WatchListener['onClose']>[0], detail?: string) => {
      if (closed) return;
      closed = true;
      inner?.stop();
      listener.onClose(reason, detail);
    };
    inner = await this.inner.watch(this.ref, options, {
      onEvent: (ev) => {
        if (closed) return;
        if (waiting >= MAX_CONVERTING_EVENTS) {
          close('slow');
          return;
        }
        // One conversion per change, shared by every watcher of this view.
        const converting = ev.memo(`${prefix}converting`, () => from(ev.object));
        converting.catch(() => undefined);
        waiting++;
        tail = tail.then(async () => {
          let object: StoredKubeObject;
          try {
            object = await converting;
          } catch {
            close('stopped');
            return;
          } finally {
            waiting--;
          }
          if (closed) return;
          delivered = ev.resourceVersion;
          const delivery: WatchDelivery = {
            type: ev.type,
            resourceVersion: ev.resourceVersion,
            object,
            text: () => ev.memo(`${prefix}text`, () => JSON.stringify(object)),
            memo: (key, build) => ev.memo(`${prefix}${key}`, build),
          };
          if (listener.onEvent(delivery) === false) close('slow');
        });
      },
      // Events already waiting go out first; a slow consumer is cut off at once.
      onClose: (reason, detail) => {
        if (reason === 'slow') close(reason, detail);
        else tail = tail.then(() => close(reason, detail));
      },
      room: () => (waiting > 0 ? tail.then(() => listener.room?.()) : listener.room?.()),
    });
    if (closed) inner.stop();
    const handle = inner;
    return {
      currentVersion: () => (waiting > 0 ? delivered : handle.currentVersion()),
      stop: () => {
        closed = true;
        handle.stop();
      },
    };
  }

}
