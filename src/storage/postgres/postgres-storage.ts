import { randomBytes } from 'node:crypto';
import type pg from 'pg';
import type { Logger } from 'pino';
import type { StoredKubeObject } from '../../api/types.ts';
import {
  StorageError,
  type ListCursor,
  type ListOptions,
  type ListResult,
  type ObjectKey,
  type ResourceRef,
  type Storage,
  type StoredObject,
  type WatchHandle,
  type WatchListener,
  type WatchOptions,
} from '../storage.ts';
import type { Database } from './database.ts';
import { DEFAULT_LIST_CURSOR_OPTIONS, PostgresListCursor, type ListCursorOptions } from './list-cursor.ts';
import { buildListQuery, knownRemainingAfter } from './list-query.ts';
import { Slots } from './slots.ts';
import type { PreparedQueries } from './prepared-queries.ts';
import { orUnavailable } from './unavailable.ts';
import { WatchHub, type OwnChange } from './watch-hub.ts';
import { GetBatcher } from './get-batcher.ts';
import { WriteBatcher, type BatchRow, type WriteOp, type WriteResult } from './write-batcher.ts';
import { stringifyJson } from '../../codecs/deep-json.ts';
import { corruptObjectsError, ReadChecks, type CorruptObject, type ReadCheck } from '../read-check.ts';
import { checkWrittenOutside, findUnreadable, unreadableKeys, type CheckedRange } from './written-outside.ts';

export interface PostgresStorageOptions {
  readonly database: Pick<Database, 'pool' | 'queries' | 'listenConnection'> & Partial<Pick<Database, 'connectTimeoutMs' | 'statementTimeoutMs'>>;
  readonly logger: Logger;
  /** Live changes a watch may hold while it replays history (default 10,000). */
  readonly maxBufferedEvents?: number;
  /** Their object text (default WATCH_REPLAY_MAX_BUFFERED_BYTES). */
  readonly maxBufferedBytes?: number;
  readonly pollIntervalMs?: number;
  /** How long a notification waits for this process's write batches in flight (see WatchHub.ownBatchSent). */
  readonly ownBatchHoldMs?: number;
  /** How long a NotOlderThan/Exact read waits for a version that is not there yet. */
  readonly futureVersionWaitMs?: number;
  /** How long start() waits for its probe notification on the LISTEN connection. */
  readonly listenCheckTimeoutMs?: number;
  /** Chunking of streamed lists (tests make the chunks small). */
  readonly listCursor?: Partial<ListCursorOptions>;
}

/**
 * The most object text a watch holds of live changes while it replays history for a client (see
 * Watcher): past it the watch is closed as too slow. Documented in docs/operations.md.
 */
export const WATCH_REPLAY_MAX_BUFFERED_BYTES = 4 * 1024 * 1024;

/** The Storage contract on PostgreSQL: see docs/architecture.md, "Storage on PostgreSQL". */
export class PostgresStorage implements Storage {
  readonly #pool: pg.Pool;
  readonly #queries: PreparedQueries;
  readonly #writer: WriteBatcher;
  readonly #reader: GetBatcher;
  readonly hub: WatchHub;
  readonly #futureWaitMs: number;
  readonly #listCursor: ListCursorOptions;
  /** Whole lists read at once: each holds a connection, so at most half the pool (the rest wait). */
  readonly #cursorSlots: Slots;
  readonly #statementTimeoutMs: number;
  /** How rows written outside the server are checked when read, by resource. */
  readonly #readChecks = new ReadChecks();

  constructor(options: PostgresStorageOptions) {
    const { database } = options;
    this.#pool = database.pool;
    this.#queries = database.queries;
    this.#writer = new WriteBatcher(database.queries, {
      logger: options.logger,
      maxQueueWaitMs: database.connectTimeoutMs,
      committed: (ops, rows) => this.#committed(ops, rows),
      sending: () => this.hub.ownBatchSent(),
    });
    this.#reader = new GetBatcher(database.queries);
    this.#futureWaitMs = options.futureVersionWaitMs ?? 3000;
    this.#listCursor = { ...DEFAULT_LIST_CURSOR_OPTIONS, ...options.listCursor };
    this.#cursorSlots = new Slots(Math.floor((database.pool.options.max ?? 10) / 2));
    this.#statementTimeoutMs = database.statementTimeoutMs ?? 0;
    this.hub = new WatchHub({
      pool: database.pool,
      queries: database.queries,
      listenConnection: database.listenConnection,
      logger: options.logger,
      maxBufferedEvents: options.maxBufferedEvents ?? 10_000,
      maxBufferedBytes: options.maxBufferedBytes ?? WATCH_REPLAY_MAX_BUFFERED_BYTES,
      pollIntervalMs: options.pollIntervalMs ?? 2000,
      ownBatchHoldMs: options.ownBatchHoldMs,
      listenCheckTimeoutMs: options.listenCheckTimeoutMs ?? 5000,
    });
  }

  async start(): Promise<void> {
    await this.hub.start();
  }

  registerReadCheck(ref: ResourceRef, check: ReadCheck): void {
    this.#readChecks.set(ref, check);
  }

  async get(key: ObjectKey): Promise<StoredObject | null> {
    const row = await this.#reader.get(key);
    if (!row) return null;
    const text = row.object;
    const resourceVersion = Number(row.resource_version);
    if (row.written_outside) {
      const corrupt = this.#readChecks.check(key, text, resourceVersion);
      if (corrupt) throw corruptObjectsError([corrupt]);
    }
    return storedObjectOfText(text, resourceVersion);
  }

  async list(ref: ResourceRef, options: ListOptions): Promise<ListResult> {
    const wanted = options.exactVersion ?? options.minVersion;
    if (wanted !== undefined) await this.waitForVersion(wanted);
    const query = buildListQuery(ref, options);
    const res = await orUnavailable(() => this.#pool.query(this.#queries.timed(query)));
    const head = res.rows[0];
    const compacted = Number(head.compacted_rv);
    if (options.exactVersion !== undefined && options.exactVersion < compacted) {
      throw new StorageError('Expired', 'The resourceVersion for the provided list is too old.');
    }
    let items: string[] = [];
    for (const row of res.rows) if (row.object !== null) items.push(row.object);
    const limit = options.limit && options.limit > 0 ? options.limit : undefined;
    let next: ListResult['next'];
    if (limit !== undefined && items.length > limit) {
      items.length = limit;
      const last = res.rows[limit - 1];
      next = { namespace: last.namespace, name: last.name };
    }
    const total = knownRemainingAfter(options) ?? (head.total === null ? undefined : Number(head.total));
    const remaining = next && total !== undefined ? total - items.length : undefined;
    // A page meets the rows up to its last one (and, with selectors, more than it returns).
    let unreadable: ListResult['unreadable'];
    if (head.outside) {
      if (!options.skipUnreadable) {
        await this.#checkWrittenOutside(ref, options, next);
      } else {
        unreadable = await this.#findUnreadable(ref, options, next);
        const skipped = unreadableKeys(unreadable);
        // Rows and items agree one to one up to the page's end (the empty list's row has no item).
        if (skipped.size > 0) items = items.filter((_, i) => !skipped.has(`${res.rows[i].namespace}/${res.rows[i].name}`));
      }
    }
    return { items, resourceVersion: Number(head.list_rv), next, remaining, ...(unreadable ? { unreadable } : {}) };
  }

  async openList(ref: ResourceRef, options: ListOptions): Promise<ListCursor> {
    const wanted = options.exactVersion ?? options.minVersion;
    if (wanted !== undefined) await this.waitForVersion(wanted);
    const cursor = await PostgresListCursor.open({ pool: this.#pool, ref, options, slots: this.#cursorSlots, cursor: this.#listCursor, statementTimeoutMs: this.#statementTimeoutMs });
    // The whole list is written as it is read: a corrupt object in it must fail it before the first
    // byte (or, for an informer, be known to be left out before the first item is taken).
    if (cursor.writtenOutside) {
      try {
        if (options.skipUnreadable) cursor.leaveOut(await this.#findUnreadable(ref, options));
        else await this.#checkWrittenOutside(ref, options);
      } catch (err) {
        await cursor.close();
        throw err;
      }
    }
    return cursor;
  }

  /** Fails with Corrupt when a row written outside the server in the list's range does not read. */
  #checkWrittenOutside(ref: ResourceRef, options: ListOptions, through?: CheckedRange['through']): Promise<void> {
    return checkWrittenOutside((t, v) => this.#runCheck(t, v), this.#readChecks, ref, checkedRange(options, through));
  }

  /** Every row written outside the server in the list's range that does not read (for a list that leaves them out). */
  async #findUnreadable(ref: ResourceRef, options: ListOptions, through?: CheckedRange['through']): Promise<CorruptObject[]> {
    return (await findUnreadable((t, v) => this.#runCheck(t, v), this.#readChecks, ref, checkedRange(options, through))).corrupt;
  }

  /** Runs one query of those checks. */
  #runCheck(text: string, values: unknown[]): Promise<pg.QueryResult> {
    return orUnavailable(() => this.#pool.query(this.#queries.timed({ text, values })));
  }

  async create(key: ObjectKey, given: StoredKubeObject, options: { requireNamespace?: boolean } = {}): Promise<StoredObject> {
    const { object, text } = storableWithVersionSlot(given);
    const result = await this.#write({ op: 'create', ...opKey(key), objectText: text, nsgate: options.requireNamespace });
    switch (result.outcome) {
      case 'ok':
        return written(object, text, result);
      case 'namespace_missing':
        throw new StorageError('NamespaceMissing', `namespaces "${key.namespace}" not found`);
      case 'namespace_terminating':
        throw new StorageError('NamespaceTerminating', `namespace ${key.namespace} is being terminated`);
      default:
        throw new StorageError('Exists', `${key.resource} "${key.name}" already exists`, parsed(result));
    }
  }

  async update(key: ObjectKey, given: StoredKubeObject, expectedVersion?: number, expectedUid?: string): Promise<StoredObject> {
    const { object, text } = storableWithVersionSlot(given);
    const result = await this.#write({
      op: 'update',
      ...opKey(key),
      objectText: text,
      rv: expectedVersion,
      uid: expectedUid,
    });
    return result.outcome === 'ok' ? written(object, text, result) : this.#checked(key, result);
  }

  async delete(key: ObjectKey, expectedVersion?: number, expectedUid?: string): Promise<StoredObject> {
    const result = await this.#write({ op: 'delete', ...opKey(key), rv: expectedVersion, uid: expectedUid });
    return this.#checked(key, result);
  }

  async deleteUnreadable(key: ObjectKey, expectedVersion: number, message: string): Promise<number> {
    const result = await this.#write({ op: 'delete', ...opKey(key), rv: expectedVersion, unreadable: message });
    switch (result.outcome) {
      case 'ok':
        return result.resourceVersion ?? 0;
      case 'not_found':
        throw new StorageError('NotFound', `${key.resource} "${key.name}" not found`);
      default:
        // Its text is not parsed: the row is the corrupt one, or someone wrote it meanwhile.
        throw new StorageError('Conflict', `${key.resource} "${key.name}" has changed`);
    }
  }

  watch(ref: ResourceRef, options: WatchOptions, listener: WatchListener): Promise<WatchHandle> {
    // Its history replay reads the database: a database that is down is Unavailable here too.
    return orUnavailable(() => this.hub.watch(ref, options, listener));
  }

  async currentVersion(): Promise<number> {
    const res = await orUnavailable(() => this.#queries.query(
      'storage_current_version',
      'select coalesce((select max(resource_version) from history), (select compacted_resource_version from compaction)) as rv',
    ));
    return Number(res.rows[0].rv);
  }

  async compactedVersion(): Promise<number> {
    const res = await orUnavailable(() => this.#pool.query(this.#queries.timed({ text: 'select compacted_resource_version as rv from compaction' })));
    return Number(res.rows[0].rv);
  }

  /**
   * One round trip to the database. With `timeoutMs`, a database that does not answer in time
   * (frozen, unreachable, every connection busy) fails the ping then, whichever step it hangs in.
   */
  async ping(timeoutMs?: number): Promise<void> {
    if (!timeoutMs) {
      await orUnavailable(() => this.#pool.query('select 1'));
      return;
    }
    let timer: NodeJS.Timeout | undefined;
    const late = new Promise<never>((_, reject) => {
      timer = setTimeout(() => reject(new StorageError('Timeout', `the database did not answer within ${timeoutMs} ms`)), timeoutMs);
    });
    try {
      await Promise.race([orUnavailable(() => this.#pool.query({ text: 'select 1', query_timeout: timeoutMs } as pg.QueryConfig)), late]);
    } finally {
      clearTimeout(timer);
    }
  }

  async close(): Promise<void> {
    await this.hub.close();
  }

  /** A read at a version that does not exist yet waits a little, then fails as the real server does. */
  async waitForVersion(version: number): Promise<void> {
    const deadline = Date.now() + this.#futureWaitMs;
    for (;;) {
      const current = await this.currentVersion();
      if (current >= version) return;
      if (Date.now() >= deadline) {
        throw new StorageError('TooLargeVersion', `Too large resource version: ${version}, current: ${current}`);
      }
      await new Promise((r) => setTimeout(r, 100));
    }
  }

  /**
   * A batch this process committed: each created or updated object's stored text is made here, once,
   * for both its writer's answer and the watch hub, which fans the batch out without reading it back
   * (WatchHub.committedHere). A batch with a write the hub cannot rebuild (an update or delete not
   * conditioned on a version, whose previous object only the database knows, or the removal of an
   * unreadable row) is left to the hub's fetch.
   */
  #committed(ops: readonly WriteOp[], rows: BatchRow[]): void {
    const changes: OwnChange[] = [];
    let complete = true;
    for (const row of rows) {
      if (row.outcome !== 'ok') continue;
      const change = ownChange(ops[row.idx - 1], row);
      if (change) changes.push(change);
      else complete = false;
    }
    if (complete) this.hub.committedHere(changes);
  }

  #write(op: WriteOp): Promise<WriteResult> {
    return orUnavailable(() => this.#writer.write(op));
  }

  #checked(key: ObjectKey, result: WriteResult): StoredObject {
    switch (result.outcome) {
      case 'ok':
        return stored(result);
      case 'not_found':
        throw new StorageError('NotFound', `${key.resource} "${key.name}" not found`);
      case 'conflict':
        throw new StorageError('Conflict', `${key.resource} "${key.name}" has changed`, parsed(result));
      case 'uid_mismatch':
        throw new StorageError('UidMismatch', `${key.resource} "${key.name}" has another uid`, parsed(result));
      default:
        throw new StorageError('Exists', `${key.resource} "${key.name}" already exists`, parsed(result));
    }
  }
}

/** An escaped UTF-16 surrogate not itself preceded by an escaping backslash (JSON.stringify escapes only unpaired ones). */
const LONE_SURROGATE_ESCAPE = /(?<!\\)((?:\\\\)*)\\ud[89a-f][0-9a-f]{2}/g;

/**
 * The object as JSON text for jsonb, checked and normalised before it joins a batch, so that no
 * value PostgreSQL would refuse reaches the batch (where it would fail the writes of others):
 *
 * - An unpaired UTF-16 surrogate (`"\ud800"`, possible in a JSON or YAML string or a protobuf
 *   string that is not UTF-8) becomes U+FFFD, as Go's encoders write it; jsonb refuses the escape.
 *   The object is then read back from the normalised text, so what the client is answered is what
 *   was stored.
 * - PostgreSQL text (and so jsonb) cannot hold U+0000: such an object is refused (Unstorable, 400).
 */
function storable(object: StoredKubeObject): { object: StoredKubeObject; text: string } {
  let text = stringifyJson(object);
  // An escaped NUL: `\u0000` not itself preceded by an escaping backslash.
  if (text.includes('u0000') && /(?<!\\)(?:\\\\)*\\u0000/.test(text)) {
    throw new StorageError('Unstorable', 'strings containing the NUL character (\\u0000) cannot be stored');
  }
  if (!text.includes('\\ud')) return { object, text };
  const normalised = text.replace(LONE_SURROGATE_ESCAPE, '$1\ufffd');
  if (normalised === text) return { object, text };
  text = normalised;
  return { object: JSON.parse(text) as StoredKubeObject, text };
}

/**
 * A stand-in resourceVersion written into the text we send, so that the answer's text is that same
 * text with the real version put in place of the stand-in (no second encoding of the object). The
 * write function sets metadata.resourceVersion itself, so the stand-in is never stored. It is random
 * per process: no client can know it, so its first occurrence in the text is metadata's own.
 */
const VERSION_PLACEHOLDER = `pending-${randomBytes(16).toString('hex')}`;
const VERSION_SLOT = `"resourceVersion":"${VERSION_PLACEHOLDER}"`;

/**
 * storable() with metadata.resourceVersion set to the stand-in while the text is made. The caller's
 * object is left as it was (a failed write may be retried with it).
 */
function storableWithVersionSlot(given: StoredKubeObject): { object: StoredKubeObject; text: string } {
  const meta = given.metadata;
  const had = Object.hasOwn(meta, 'resourceVersion');
  const before = meta.resourceVersion;
  meta.resourceVersion = VERSION_PLACEHOLDER;
  try {
    return storable(given);
  } finally {
    if (had) meta.resourceVersion = before;
    else delete (meta as { resourceVersion?: string }).resourceVersion;
  }
}

/** The rows a list's check of rows written outside covers: its range, up to `through` for a page. */
function checkedRange(options: ListOptions, through?: CheckedRange['through']): CheckedRange {
  return { namespace: options.namespace, after: options.after, through, exactVersion: options.exactVersion };
}

function opKey(key: ObjectKey): Pick<WriteOp, 'g' | 'r' | 'ns' | 'n'> {
  return { g: key.group, r: key.resource, ns: key.namespace, n: key.name };
}

function stored(result: WriteResult): StoredObject {
  const text = result.objectText ?? 'null';
  return { text, object: JSON.parse(text) as StoredKubeObject, resourceVersion: result.resourceVersion ?? 0 };
}

/**
 * The object we sent, now carrying its version. Its text is the text we sent with the version put in
 * its slot (see storableWithVersionSlot): the object is encoded once per write, and the database
 * answers a create or update with its version alone (migrations/0005).
 */
function written(object: StoredKubeObject, sent: string, result: WriteResult): StoredObject {
  const resourceVersion = result.resourceVersion ?? 0;
  object.metadata.resourceVersion = String(resourceVersion);
  // Made when the batch committed (see #committed), or echoed by a database before 0005.
  if (result.objectText !== null) return { text: result.objectText, object, resourceVersion };
  return { text: withVersion(sent, String(resourceVersion)) ?? stringifyJson(object), object, resourceVersion };
}

/**
 * The history row a committed write made, as far as the server knows it (see WatchHub.OwnChange). A
 * created or updated object's text (the text sent, version in its slot) becomes its row's `object`,
 * which its writer is answered with.
 */
function ownChange(op: WriteOp, row: BatchRow): OwnChange | undefined {
  if (row.resource_version === null) return undefined;
  const at = { resource_version: row.resource_version, api_group: op.g, resource: op.r, namespace: op.ns, name: op.n, unreadable: null };
  if (op.op === 'delete') {
    if (op.rv === undefined || op.unreadable !== undefined || row.object === null) return undefined;
    return { ...at, event_type: 'DELETED', object: row.object, previous: null, previousVersion: op.rv };
  }
  if (row.object !== null || op.objectText === undefined) return undefined;
  if (op.op === 'update' && op.rv === undefined) return undefined;
  const text = withVersion(op.objectText, row.resource_version);
  if (text === undefined) return undefined;
  row.object = text;
  if (op.op === 'create') return { ...at, event_type: 'ADDED', object: text, previous: null };
  return { ...at, event_type: 'MODIFIED', object: text, previous: null, previousVersion: op.rv };
}

/** The text sent with the version in its slot: the object as stored (undefined if the slot is not there). */
function withVersion(sent: string, resourceVersion: string): string | undefined {
  const at = sent.indexOf(VERSION_SLOT);
  if (at < 0) return undefined;
  return `${sent.slice(0, at)}"resourceVersion":"${resourceVersion}"${sent.slice(at + VERSION_SLOT.length)}`;
}

function parsed(result: WriteResult): StoredObject | undefined {
  return result.objectText ? stored(result) : undefined;
}

/**
 * A stored object whose `object` is parsed when first read: a JSON get answers with `text` as stored
 * and never needs the parsed form, which was about 3% of a get's CPU.
 */
function storedObjectOfText(text: string, resourceVersion: number): StoredObject {
  let parsed: StoredKubeObject | undefined;
  return {
    text,
    resourceVersion,
    get object(): StoredKubeObject {
      return (parsed ??= JSON.parse(text) as StoredKubeObject);
    },
  };
}
