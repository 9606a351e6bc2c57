import type { StoredKubeObject } from '../../api/types.ts';
import type { Change, ChangeType } from '../storage.ts';

/** A history row as read from PostgreSQL: objects are parsed only when a watcher needs them. */
export interface HistoryRow {
  resource_version: string;
  api_group: string;
  resource: string;
  namespace: string;
  name: string;
  event_type: ChangeType;
  /**
   * Null only from the hub's live fetch, which reads the object columns of watched resources alone
   * (see WatchHub): such a change is a stub until `fill` gives it its object.
   */
  object: string | null;
  previous: string | null;
  /** On the deletion of an object that could not be read: why (see migrations/0004-rows-written-outside.ts). */
  unreadable: string | null;
}

export const HISTORY_COLUMNS =
  'resource_version, api_group, resource, namespace, name, event_type, object::text as object, previous::text as previous, unreadable';

/** A change whose object and previous object are parsed lazily and at most once. */
export class LazyChange implements Change {
  readonly resourceVersion: number;
  readonly group: string;
  readonly resource: string;
  readonly namespace: string;
  readonly name: string;
  readonly type: ChangeType;
  /** Set when the change's object cannot be read (the unsafe deletion of a corrupt object): why. */
  readonly unreadable: string | null;
  #objectText: string | null;
  #previousText: string | null;
  #object?: StoredKubeObject;
  #previous?: StoredKubeObject | null;
  /** Values derived from this change (other forms of its object, encodings), shared by watchers. */
  readonly memos = new Map<string, unknown>();

  memo<T>(key: string, build: () => T): T {
    if (this.memos.has(key)) return this.memos.get(key) as T;
    const value = build();
    this.memos.set(key, value);
    return value;
  }

  constructor(row: HistoryRow) {
    this.resourceVersion = Number(row.resource_version);
    this.group = row.api_group;
    this.resource = row.resource;
    this.namespace = row.namespace;
    this.name = row.name;
    this.type = row.event_type;
    this.#objectText = row.object;
    this.unreadable = row.unreadable ?? null;
    this.#previousText = row.previous;
  }

  /** Whether the object columns were read (a stub of an unwatched resource has none yet). */
  get hasObject(): boolean {
    return this.#objectText !== null;
  }

  /** Gives a stub its object columns, read afterwards. */
  fill(objectText: string, previousText: string | null): void {
    this.#objectText = objectText;
    this.#previousText = previousText;
  }

  /** About the memory its texts take (UTF-16 code units), for the hub's bounded ring. */
  get textLength(): number {
    return (this.#objectText?.length ?? 0) + (this.#previousText?.length ?? 0);
  }

  get objectText(): string {
    // Watchers are only ever handed changes with their object (the hub fills stubs first).
    if (this.#objectText === null) throw new Error(`history row ${this.resourceVersion}: object not read`);
    return this.#objectText;
  }

  get object(): StoredKubeObject {
    this.#object ??= JSON.parse(this.objectText) as StoredKubeObject;
    return this.#object;
  }

  get previous(): StoredKubeObject | undefined {
    if (this.#previous === undefined) {
      this.#previous = this.#previousText === null ? null : (JSON.parse(this.#previousText) as StoredKubeObject);
    }
    return this.#previous ?? undefined;
  }

  get previousText(): string | null {
    return this.#previousText;
  }
}
