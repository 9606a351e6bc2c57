import type { StoredKubeObject } from '../api/types.ts';
import type { FieldSelector } from '../api/selectors/field-selector.ts';
import type { LabelSelector } from '../api/selectors/label-selector.ts';
import type { CorruptObject, ReadCheck } from './read-check.ts';

/** Which collection an operation is about: storage knows resources, not kinds. */
export interface ResourceRef {
  readonly group: string;
  readonly resource: string;
}

export interface ObjectKey extends ResourceRef {
  /** '' for cluster-scoped resources. */
  readonly namespace: string;
  readonly name: string;
}

/** A position in (namespace, name) keyset order. */
export interface ListKey {
  readonly namespace: string;
  readonly name: string;
}

/**
 * Label and field selectors (parsed, plain data) that storage pushes into its queries, plus the
 * same test in memory for watch fan-out. The registry builds these from the request.
 */
export interface ObjectFilter {
  readonly labels: LabelSelector;
  readonly fields: FieldSelector;
  matches(obj: StoredKubeObject): boolean;
}

export interface ListOptions {
  /** Undefined lists every namespace. */
  readonly namespace?: string;
  readonly filter?: ObjectFilter;
  readonly limit?: number;
  /** Exclusive start key (from a continue token). */
  readonly after?: ListKey;
  /** Read the state exactly as of this version (continue tokens, resourceVersionMatch=Exact). */
  readonly exactVersion?: number;
  /** The list's version must be at least this (NotOlderThan). */
  readonly minVersion?: number;
  /**
   * resourceVersion=0 ("Any"): the caller accepts any version, however old, so a watch cache may
   * answer without asking the database (src/storage/cache). Storage without a cache reads the latest.
   */
  readonly anyVersion?: boolean;
  /** Whether to count the items after this page (costs a count; skipped with selectors). */
  readonly countRemaining?: boolean;
  /**
   * The items after `after` in the snapshot of `exactVersion`, as the page before counted them (a
   * continue token carries it): the items after this page are then that number less this page's,
   * without a count. Only read with `countRemaining`, no filter, and an exact version.
   */
  readonly remainingAfter?: number;
  /**
   * Rows that cannot be read (corrupt objects) are left out of the items and named in `unreadable`,
   * instead of failing the list with Corrupt. Only for the server's own informers, which must keep
   * running so that the object can be deleted: a client's list fails, as upstream's does, and no
   * request parameter sets this.
   */
  readonly skipUnreadable?: boolean;
}

/** How fresh a get must be; without options it reads the latest (a consistent read). */
export interface GetOptions {
  /**
   * The object may come from a cache that has reached at least this version (resourceVersion=N,
   * NotOlderThan; 0: any version). Storage without a cache reads the latest, which always qualifies.
   */
  readonly minVersion?: number;
}

export interface ListResult {
  /** Items as JSON text, in keyset order; parse only when needed. */
  readonly items: string[];
  readonly resourceVersion: number;
  /** Key of the last item when more items follow. */
  readonly next?: ListKey;
  readonly remaining?: number;
  /** With `skipUnreadable`: the objects of the page's range that were left out because they cannot be read. */
  readonly unreadable?: readonly CorruptObject[];
}

/**
 * A whole list read piece by piece from one snapshot (Storage.openList), for writing out as it is
 * read: memory follows one chunk, not the collection.
 */
export interface ListCursor {
  /** The list's resourceVersion (known before any item is read). */
  readonly resourceVersion: number;
  /** With `skipUnreadable`: the objects left out of the list because they cannot be read (known before any item is read). */
  readonly unreadable?: readonly CorruptObject[];
  /** The next items as JSON text, in keyset order; empty once all were read. */
  next(): Promise<string[]>;
  /** Releases the snapshot and its connection; safe to call more than once, and at any point. */
  close(): Promise<void>;
}

export interface StoredObject {
  readonly object: StoredKubeObject;
  readonly text: string;
  readonly resourceVersion: number;
}

export type ChangeType = 'ADDED' | 'MODIFIED' | 'DELETED';

/** One committed change as read from history. */
export interface Change {
  readonly resourceVersion: number;
  readonly group: string;
  readonly resource: string;
  readonly namespace: string;
  readonly name: string;
  readonly type: ChangeType;
  readonly object: StoredKubeObject;
  readonly objectText: string;
  readonly previous?: StoredKubeObject;
}

/** An event delivered to one watcher after selector filtering. */
export interface WatchDelivery {
  readonly type: 'ADDED' | 'MODIFIED' | 'DELETED';
  readonly resourceVersion: number;
  readonly object: StoredKubeObject;
  /** The object as JSON text (cached per change). */
  text(): string;
  /**
   * A value derived from this delivery's object, built once and shared by every watcher that gets
   * the same change in the same form (encodings, table rows): N watchers, one encoding.
   */
  memo<T>(key: string, build: () => T): T;
}

export interface WatchOptions {
  readonly namespace?: string;
  readonly name?: string;
  readonly filter?: ObjectFilter;
  /** Deliver changes after this version. */
  readonly fromVersion: number;
  /**
   * A watch the server keeps for itself (the watch cache's feed): it is not counted among a
   * resource's watchers, which stand for clients (flow control's cost of a write, metrics).
   */
  readonly internal?: boolean;
}

export interface WatchListener {
  /** Returns false when the consumer cannot keep up; the watch is then closed as 'slow'. */
  onEvent(event: WatchDelivery): boolean | void;
  /**
   * Backpressure while history is replayed (a watch from an older version): a promise means "wait
   * before the next replayed change". Live changes cannot wait (they go to every watcher at once);
   * they are held in the watcher meanwhile, within its bounds, past which the watch is 'slow'.
   */
  room?(): Promise<void> | undefined;
  /**
   * The watch ended on the storage side (watcher too slow, shutdown, or history expired). For
   * 'unreadable' (a change whose object cannot be read: the deletion of a corrupt object), `detail`
   * says why, and the consumer should start over from a list.
   */
  onClose(reason: WatchCloseReason, detail?: string): void;
}

export type WatchCloseReason = 'slow' | 'shutdown' | 'expired' | 'stopped' | 'unreadable';

export interface WatchHandle {
  /** Highest version this watcher has been brought up to (for bookmarks). */
  currentVersion(): number;
  stop(): void;
}

export interface WriteOptions {
  readonly dryRun?: boolean;
}

/**
 * The storage contract. Errors are the storage errors below; the registry maps them to API errors.
 * All versions are numbers (a bigint sequence well below 2^53).
 */
export interface Storage {
  get(key: ObjectKey, options?: GetOptions): Promise<StoredObject | null>;
  list(ref: ResourceRef, options: ListOptions): Promise<ListResult>;
  /**
   * The same list as `list` without a limit (`limit`, `countRemaining` are ignored), as a cursor. Errors
   * about the request (Expired, TooLargeVersion, Unavailable) come from this call, before any item.
   */
  openList(ref: ResourceRef, options: ListOptions): Promise<ListCursor>;
  /**
   * Stores a new object. With `requireNamespace` the namespace must exist and not be terminating at
   * commit time (NamespaceMissing / NamespaceTerminating otherwise).
   */
  create(key: ObjectKey, object: StoredKubeObject, options?: { requireNamespace?: boolean }): Promise<StoredObject>;
  /** Replaces the object; `expectedVersion` (when set) must equal the stored version. */
  update(key: ObjectKey, object: StoredKubeObject, expectedVersion?: number, expectedUid?: string): Promise<StoredObject>;
  delete(key: ObjectKey, expectedVersion?: number, expectedUid?: string): Promise<StoredObject>;
  /**
   * Removes a row that cannot be read (a corrupt object), without reading it: the row must still be
   * at `expectedVersion` (Conflict otherwise). Its watchers are told `unreadable` (with `message`)
   * instead of getting an object. Returns the version of the deletion.
   */
  deleteUnreadable?(key: ObjectKey, expectedVersion: number, message: string): Promise<number>;
  /**
   * How rows of a resource that were changed outside the server are checked when read; resources
   * without one get a structural check (src/storage/read-check.ts). Reads of such a row that fails its
   * check fail with Corrupt.
   */
  registerReadCheck?(ref: ResourceRef, check: ReadCheck): void;
  watch(ref: ResourceRef, options: WatchOptions, listener: WatchListener): Promise<WatchHandle>;
  /** Resolves once the store has reached `version`; fails with TooLargeVersion after a short wait. */
  waitForVersion(version: number): Promise<void>;
  /** The newest committed version. */
  currentVersion(): Promise<number>;
  /** The oldest version still answerable from history. */
  compactedVersion(): Promise<number>;
  /** One round trip to the database; with `timeoutMs`, fails once that has passed without an answer. */
  ping(timeoutMs?: number): Promise<void>;
  close(): Promise<void>;
}

export class StorageError extends Error {
  constructor(
    /**
     * Unavailable: the database cannot be reached (answered 503 with Retry-After; clients retry).
     * Timeout: a statement was sent and no answer came in time, so a write may still be applied
     * (answered 504 without Retry-After, as upstream answers a request past its deadline).
     */
    readonly code:
      | 'NotFound'
      | 'Exists'
      | 'Conflict'
      | 'UidMismatch'
      | 'Expired'
      | 'TooLargeVersion'
      | 'Unavailable'
      | 'Timeout'
      | 'Unstorable'
      | 'NamespaceMissing'
      | 'NamespaceTerminating'
      /** Stored objects that cannot be read (see `corrupt`), upstream's corrupt object error. */
      | 'Corrupt',
    message: string,
    readonly current?: StoredObject,
    /** For Corrupt: the objects, at most MAX_REPORTED_CORRUPT_OBJECTS. */
    readonly corrupt?: readonly CorruptObject[],
    /** For Corrupt: more objects could not be read than are reported. */
    readonly truncated?: boolean,
  ) {
    super(message);
    this.name = 'StorageError';
  }
}
