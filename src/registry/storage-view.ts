import type { StoredKubeObject } from '../api/types.ts';
import type {
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
import { storedObjectCheck } from './stored-object-check.ts';

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
  if (kind.storage) return new ConvertingStorage(storage, kind.storage);
  if (!kind.computed && !kind.respond) storage.registerReadCheck?.(storageRefOf(kind), storedObjectCheck(kind));
  return storage;
}

class ConvertingStorage implements Storage {
  static #views = 0;
  /** Keeps this view's shared watch memos apart from the stored form's and any other view's. */
  readonly #memoPrefix = `view${ConvertingStorage.#views++}:`;
  readonly #inner: Storage;
  readonly #m: StorageMapping;

  constructor(inner: Storage, mapping: StorageMapping) {
    this.#inner = inner;
    this.#m = mapping;
  }

  #ref(): ResourceRef {
    return { group: this.#m.group, resource: this.#m.resource };
  }

  #key(key: ObjectKey): ObjectKey {
    return { ...key, ...this.#ref() };
  }

  #out(stored: StoredObject): StoredObject {
    const object = this.#m.fromStorage(stored.object) as StoredKubeObject;
    return { object, text: JSON.stringify(object), resourceVersion: stored.resourceVersion };
  }

  #in(object: StoredKubeObject): StoredKubeObject {
    return this.#m.toStorage(object) as StoredKubeObject;
  }

  async get(key: ObjectKey): Promise<StoredObject | null> {
    const found = await this.#inner.get(this.#key(key));
    return found ? this.#out(found) : null;
  }

  async list(_ref: ResourceRef, options: ListOptions): Promise<ListResult> {
    const result = await this.#inner.list(this.#ref(), options);
    return { ...result, items: result.items.map((t) => JSON.stringify(this.#m.fromStorage(JSON.parse(t)))) };
  }

  async openList(_ref: ResourceRef, options: ListOptions): Promise<ListCursor> {
    const cursor = await this.#inner.openList(this.#ref(), options);
    const from = this.#m.fromStorage;
    return {
      resourceVersion: cursor.resourceVersion,
      unreadable: cursor.unreadable,
      next: async () => (await cursor.next()).map((t) => JSON.stringify(from(JSON.parse(t)))),
      close: () => cursor.close(),
    };
  }

  async create(key: ObjectKey, object: StoredKubeObject, options?: { requireNamespace?: boolean }): Promise<StoredObject> {
    return this.#out(await this.#inner.create(this.#key(key), this.#in(object), options));
  }

  async update(key: ObjectKey, object: StoredKubeObject, expectedVersion?: number, expectedUid?: string): Promise<StoredObject> {
    return this.#out(await this.#inner.update(this.#key(key), this.#in(object), expectedVersion, expectedUid));
  }

  async delete(key: ObjectKey, expectedVersion?: number, expectedUid?: string): Promise<StoredObject> {
    return this.#out(await this.#inner.delete(this.#key(key), expectedVersion, expectedUid));
  }

  deleteUnreadable(key: ObjectKey, expectedVersion: number, message: string): Promise<number> {
    if (!this.#inner.deleteUnreadable) return Promise.reject(new Error('the storage cannot delete unreadable objects'));
    return this.#inner.deleteUnreadable(this.#key(key), expectedVersion, message);
  }

  watch(_ref: ResourceRef, options: WatchOptions, listener: WatchListener): Promise<WatchHandle> {
    const from = this.#m.fromStorage;
    return this.#inner.watch(this.#ref(), options, {
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

  waitForVersion(version: number): Promise<void> {
    return this.#inner.waitForVersion(version);
  }

  currentVersion(): Promise<number> {
    return this.#inner.currentVersion();
  }

  compactedVersion(): Promise<number> {
    return this.#inner.compactedVersion();
  }

  ping(): Promise<void> {
    return this.#inner.ping();
  }

  close(): Promise<void> {
    return Promise.resolve();
  }
}
