import type { StoredKubeObject } from '../../api/types.ts';
import type { ResourceRef, WatchCloseReason, WatchDelivery, WatchListener, WatchOptions } from '../storage.ts';
import type { LazyChange } from './change.ts';

/** What a watcher may hold while it replays history: past either bound the watch is closed as 'slow'. */
export interface WatcherLimits {
  /** Live changes held. */
  readonly maxEvents: number;
  /** Their object text, in UTF-16 code units (about bytes). */
  readonly maxBytes: number;
}

/**
 * One watch on one resource: decides which changes it sees (namespace, name, selector, with the
 * transitions a selector implies) and delivers them in version order exactly once.
 */
export class Watcher {
  readonly ref: ResourceRef;
  readonly options: WatchOptions;
  readonly #listener: WatchListener;
  readonly #limits: WatcherLimits;
  /** Highest version this watcher has considered; changes at or below it are never delivered again. */
  sentVersion: number;
  /** While history is being replayed, live changes wait here. */
  #buffer: LazyChange[] | null = [];
  /** Object text held in #buffer. */
  #bufferedBytes = 0;
  closed = false;
  #onClose: (w: Watcher) => void;

  constructor(ref: ResourceRef, options: WatchOptions, listener: WatchListener, limits: WatcherLimits, onClose: (w: Watcher) => void) {
    this.ref = ref;
    this.options = options;
    this.#listener = listener;
    this.#limits = limits;
    this.sentVersion = options.fromVersion;
    this.#onClose = onClose;
  }

  get catchingUp(): boolean {
    return this.#buffer !== null;
  }

  /** A live change from the hub. */
  offer(change: LazyChange): void {
    if (this.closed) return;
    if (this.#buffer) {
      this.#bufferedBytes += change.objectText.length;
      if (this.#buffer.length >= this.#limits.maxEvents || this.#bufferedBytes > this.#limits.maxBytes) return this.close('slow');
      this.#buffer.push(change);
      return;
    }
    this.deliver(change);
  }

  /**
   * Replays changes from history in order, waiting whenever the listener asks for room (a client
   * slower than the replay); live changes meanwhile wait in the buffer, within its bounds.
   */
  async replay(changes: Iterable<LazyChange>): Promise<void> {
    for (const change of changes) {
      if (this.closed) return;
      this.deliver(change);
      const wait = this.#listener.room?.();
      if (wait) await wait;
    }
  }

  /** Ends catch-up: delivers what arrived during the replay, then goes live. */
  goLive(): void {
    const pending = this.#buffer ?? [];
    this.#buffer = null;
    this.#bufferedBytes = 0;
    for (const change of pending) {
      if (this.closed) return;
      this.deliver(change);
    }
  }

  deliver(change: LazyChange): void {
    if (this.closed || change.resourceVersion <= this.sentVersion) return;
    this.sentVersion = change.resourceVersion;
    // An object that cannot be read cannot be judged by a selector or sent: every watcher of its key
    // ends, told why, as upstream's watch ends on an object it cannot decode; clients list again.
    if (change.unreadable !== null) {
      if (this.#inScope(change)) this.close('unreadable', change.unreadable);
      return;
    }
    const event = this.#select(change);
    if (event && this.#listener.onEvent(event) === false) this.close('slow');
  }

  /** Records that every change up to `version` has been considered (nothing matched). */
  advanceTo(version: number): void {
    if (!this.#buffer && version > this.sentVersion) this.sentVersion = version;
  }

  close(reason: WatchCloseReason, detail?: string): void {
    if (this.closed) return;
    this.closed = true;
    this.#buffer = null;
    this.#bufferedBytes = 0;
    this.#onClose(this);
    this.#listener.onClose(reason, detail);
  }

  /** Whether the change is of a key this watch covers (its namespace and name, selectors aside). */
  #inScope(change: LazyChange): boolean {
    const { namespace, name } = this.options;
    return (namespace === undefined || change.namespace === namespace) && (name === undefined || change.name === name);
  }

  #select(change: LazyChange): WatchDelivery | null {
    const { filter } = this.options;
    if (!this.#inScope(change)) return null;
    // Without a selector nothing needs the parsed object: consumers that only send text never parse it.
    // One delivery for every watcher without a selector: nothing in it is per watcher.
    if (!filter) return change.memo('delivery', () => delivery(change.type, change, 'stored', () => change.object, () => change.objectText));

    if (change.type === 'DELETED') {
      return filter.matches(change.object) ? delivery('DELETED', change, 'stored', () => change.object, () => change.objectText) : null;
    }
    const nowMatches = filter.matches(change.object);
    const previous = change.previous;
    const usedToMatch = previous !== undefined && filter.matches(previous);
    if (nowMatches) {
      const type = change.type === 'MODIFIED' && usedToMatch ? 'MODIFIED' : 'ADDED';
      return delivery(type, change, 'stored', () => change.object, () => change.objectText);
    }
    if (usedToMatch && previous) {
      // Leaving the selector looks like a deletion: the old content, at the version of the change.
      const gone = withVersion(previous, change.resourceVersion);
      return delivery('DELETED', change, 'left-selector', () => gone, () => change.memo('left-selector:text', () => JSON.stringify(gone)));
    }
    return null;
  }
}

/** `form` names which object the delivery carries (the stored one, or the last content before it left a selector). */
function delivery(
  type: WatchDelivery['type'],
  change: LazyChange,
  form: string,
  object: () => StoredKubeObject,
  text: () => string,
): WatchDelivery {
  const seen = new Map<string, unknown>();
  return {
    type,
    resourceVersion: change.resourceVersion,
    get object() {
      return object();
    },
    text,
    // Keyed per form on the change (shared by all its watchers); the delivery keeps what it looked up,
    // so that a delivery shared by many watchers does not build the prefixed key for each.
    memo: <T>(key: string, build: () => T): T => {
      if (seen.has(key)) return seen.get(key) as T;
      const value = change.memo(`${form}:${key}`, build);
      seen.set(key, value);
      return value;
    },
  };
}

function withVersion(obj: StoredKubeObject, version: number): StoredKubeObject {
  return { ...obj, metadata: { ...obj.metadata, resourceVersion: String(version) } };
}
