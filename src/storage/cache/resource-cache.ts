import type { StoredKubeObject } from '../../api/types.ts';
import type { FieldSelector } from '../../api/selectors/field-selector.ts';
import type { ListKey, ListResult, ObjectFilter, ResourceRef, Storage, StoredObject, WatchDelivery, WatchHandle } from '../storage.ts';
import { compareKeys } from './key-order.ts';

/**
 * One cached object: its stored JSON text as the database returns it (served as it is, no
 * re-encoding), its version, and its labels (selectors run on these without parsing the text again).
 */
interface Entry {
  readonly namespace: string;
  readonly name: string;
  text: string;
  resourceVersion: number;
  labels: Readonly<Record<string, string>> | undefined;
}

/** Text held by every cache of a process, against a limit (see CacheBudget in cached-storage.ts). */
export interface TextBudget {
  used: number;
  readonly max: number;
}

/** What a list from the cache may ask (the rest of ListOptions is the database's: see CachedStorage). */
export interface CacheListOptions {
  readonly namespace?: string;
  readonly filter?: ObjectFilter;
  readonly limit?: number;
  readonly countRemaining?: boolean;
}

export type CacheState = 'building' | 'ready' | 'closed';

/** Per-object bookkeeping beside the text (entry, map slot, array slot), for the budget: an estimate. */
const ENTRY_OVERHEAD = 160;

/**
 * The objects of one resource in memory, kept by a watch from the Storage API (upstream's watch
 * cache, one per resource): filled from one list at version R, then every change after R applied in
 * version order as the watch delivers it. Objects are held in keyset order, so lists page in the
 * database's order. Its version is the watch's: every change up to it has been applied, none after.
 *
 * Everything here is synchronous except building: a list or get reads one consistent state, because
 * changes are applied between, never during, the reads.
 */
export class ResourceCache {
  readonly ref: ResourceRef;
  state: CacheState = 'building';
  /** Why it closed (for logs and tests). */
  closedBecause: string | undefined;
  /** The objects it held when it closed (how many did not fit, when it went over the budget). */
  sizeAtClose = 0;
  /** Keyset order. */
  #entries: Entry[] = [];
  readonly #byKey = new Map<string, Entry>();
  #handle: WatchHandle | undefined;
  readonly #budget: TextBudget;
  #bytes = 0;
  readonly #onClose: (cache: ResourceCache) => void;

  constructor(ref: ResourceRef, budget: TextBudget, onClose: (cache: ResourceCache) => void) {
    this.ref = ref;
    this.#budget = budget;
    this.#onClose = onClose;
  }

  /** Every change up to this version has been applied (0 until the cache is ready). */
  version(): number {
    return this.state === 'ready' && this.#handle ? this.#handle.currentVersion() : 0;
  }

  get size(): number {
    return this.#entries.length;
  }

  /** Text held (with a per-object estimate of the rest). */
  get bytes(): number {
    return this.#bytes;
  }

  /**
   * Lists the resource at its latest version (streamed, one chunk in memory at a time besides what is
   * kept), then watches from that version. Resolves once the cache is ready, or closed (over budget,
   * an error: the caller builds again later).
   */
  async build(storage: Storage): Promise<void> {
    let listVersion: number;
    const cursor = await storage.openList(this.ref, {});
    try {
      listVersion = cursor.resourceVersion;
      for (;;) {
        const chunk = await cursor.next();
        if (chunk.length === 0) break;
        if (this.state !== 'building') return;
        // In keyset order already: appended as they come.
        for (const text of chunk) this.#append(entryOf(text));
        if (this.#overBudget()) return;
      }
    } finally {
      await cursor.close();
    }
    if (this.state !== 'building') return;
    const handle = await storage.watch(this.ref, { fromVersion: listVersion, internal: true }, {
      onEvent: (event) => this.#apply(event),
      onClose: (reason, detail) => this.close(reason === 'unreadable' ? `unreadable: ${detail ?? ''}` : reason),
    });
    this.#handle = handle;
    // Closed while the watch was being set up (history replayed into a cache that went over budget).
    if (this.state !== 'building') {
      handle.stop();
      return;
    }
    this.state = 'ready';
  }

  /** Drops everything and stops the watch; the owner may build a new cache later. */
  close(reason: string): void {
    if (this.state === 'closed') return;
    this.state = 'closed';
    this.closedBecause = reason;
    this.sizeAtClose = this.#entries.length;
    this.#handle?.stop();
    this.#budget.used -= this.#bytes;
    this.#bytes = 0;
    this.#entries = [];
    this.#byKey.clear();
    this.#onClose(this);
  }

  get(namespace: string, name: string): StoredObject | null {
    const entry = this.#byKey.get(mapKey(namespace, name));
    return entry ? storedObject(entry.text, entry.resourceVersion) : null;
  }

  /**
   * One page (or all) of the matching objects at the cache's version, as the database's list answers
   * it: items in keyset order, `next` when more follow, and without selectors the count after the page.
   */
  list(options: CacheListOptions): ListResult {
    const resourceVersion = this.version();
    const [start, end] = this.#range(options.namespace);
    const limit = options.limit && options.limit > 0 ? options.limit : undefined;
    const match = matcherOf(options.filter);
    const items: string[] = [];
    let next: ListKey | undefined;
    let last = -1;
    for (let i = start; i < end; i++) {
      const entry = this.#entries[i];
      if (match && !match(entry)) continue;
      if (limit !== undefined && items.length === limit) {
        const lastEntry = this.#entries[last];
        next = { namespace: lastEntry.namespace, name: lastEntry.name };
        break;
      }
      items.push(entry.text);
      last = i;
    }
    const remaining = next && options.countRemaining && !options.filter ? end - (last + 1) : undefined;
    return { items, resourceVersion, ...(next ? { next } : {}), ...(remaining !== undefined ? { remaining } : {}) };
  }

  /** The slice of #entries in a namespace (or all of them). */
  #range(namespace: string | undefined): [number, number] {
    if (namespace === undefined) return [0, this.#entries.length];
    const start = this.#lowerBound(namespace, '');
    let end = start;
    while (end < this.#entries.length && this.#entries[end].namespace === namespace) end++;
    return [start, end];
  }

  /** The first index whose key is not below (namespace, name). */
  #lowerBound(namespace: string, name: string): number {
    let lo = 0;
    let hi = this.#entries.length;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      const e = this.#entries[mid];
      if (compareKeys(e.namespace, e.name, namespace, name) < 0) lo = mid + 1;
      else hi = mid;
    }
    return lo;
  }

  #apply(event: WatchDelivery): void {
    if (this.state === 'closed') return;
    const object = event.object;
    const namespace = object.metadata?.namespace ?? '';
    const name = object.metadata?.name ?? '';
    const key = mapKey(namespace, name);
    const existing = this.#byKey.get(key);
    if (event.type === 'DELETED') {
      if (!existing) return;
      this.#byKey.delete(key);
      this.#entries.splice(this.#lowerBound(namespace, name), 1);
      this.#account(-weight(existing.text));
      return;
    }
    const text = event.text();
    if (existing) {
      this.#account(weight(text) - weight(existing.text));
      existing.text = text;
      existing.resourceVersion = event.resourceVersion;
      existing.labels = labelsOf(object);
    } else {
      const entry: Entry = { namespace, name, text, resourceVersion: event.resourceVersion, labels: labelsOf(object) };
      this.#byKey.set(key, entry);
      const at = this.#lowerBound(namespace, name);
      // New names usually sort last (generated and sequential names): a push, not a splice.
      if (at === this.#entries.length) this.#entries.push(entry);
      else this.#entries.splice(at, 0, entry);
      this.#account(weight(text));
    }
    this.#overBudget();
  }

  #append(entry: Entry): void {
    this.#byKey.set(mapKey(entry.namespace, entry.name), entry);
    this.#entries.push(entry);
    this.#account(weight(entry.text));
  }

  #account(delta: number): void {
    this.#bytes += delta;
    this.#budget.used += delta;
  }

  /** Past the process's budget this cache gives its memory back (the resource is then read from the database). */
  #overBudget(): boolean {
    if (this.#budget.used <= this.#budget.max) return false;
    this.close('over budget');
    return true;
  }
}

function weight(text: string): number {
  return text.length + ENTRY_OVERHEAD;
}

function mapKey(namespace: string, name: string): string {
  return `${namespace}\u0000${name}`;
}

function labelsOf(object: StoredKubeObject): Readonly<Record<string, string>> | undefined {
  const labels = object.metadata?.labels;
  return labels && typeof labels === 'object' && Object.keys(labels).length > 0 ? labels : undefined;
}

function entryOf(text: string): Entry {
  const object = JSON.parse(text) as StoredKubeObject;
  return {
    namespace: object.metadata?.namespace ?? '',
    name: object.metadata?.name ?? '',
    text,
    resourceVersion: Number(object.metadata?.resourceVersion ?? 0),
    labels: labelsOf(object),
  };
}

/** A stored object whose parsed form is made only when someone asks for it (JSON answers need just the text). */
function storedObject(text: string, resourceVersion: number): StoredObject {
  let parsed: StoredKubeObject | undefined;
  return {
    text,
    resourceVersion,
    get object() {
      parsed ??= JSON.parse(text) as StoredKubeObject;
      return parsed;
    },
  };
}

const NAME_FIELDS = new Set(['metadata.name', 'metadata.namespace']);

/**
 * The filter as a test on entries. Label selectors and metadata.name / metadata.namespace need only
 * what the entry holds; other fields (spec.nodeName, status.phase, …) need the object, parsed for the
 * test and dropped again: the cache keeps text, not objects.
 */
function matcherOf(filter: ObjectFilter | undefined): ((entry: Entry) => boolean) | undefined {
  if (!filter) return undefined;
  if (onlyNameFields(filter.fields)) {
    return (entry) => filter.matches(slimObject(entry));
  }
  return (entry) => filter.matches(JSON.parse(entry.text) as StoredKubeObject);
}

function onlyNameFields(fields: FieldSelector): boolean {
  return fields.every((r) => NAME_FIELDS.has(r.field));
}

/** Just the metadata a label or name selector reads. */
function slimObject(entry: Entry): StoredKubeObject {
  const metadata: Record<string, unknown> = { name: entry.name };
  if (entry.namespace !== '') metadata.namespace = entry.namespace;
  if (entry.labels) metadata.labels = entry.labels;
  return { metadata } as unknown as StoredKubeObject;
}
