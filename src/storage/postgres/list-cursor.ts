import type pg from 'pg';
import type { CorruptObject } from '../read-check.ts';
import { StorageError, type ListCursor, type ListKey, type ListOptions, type ResourceRef } from '../storage.ts';
import { buildListQuery } from './list-query.ts';
import type { Slots } from './slots.ts';
import { orUnavailable } from './unavailable.ts';
import { unreadableKeys } from './written-outside.ts';

export interface ListCursorOptions {
  /** Rows the first fetch reads (it also gives the list's version, before anything is written). */
  readonly firstRows: number;
  /** About how much object text each later fetch reads; the row count follows the rows' sizes. */
  readonly chunkBytes: number;
  /** Bounds on the rows of one fetch. */
  readonly minRows: number;
  readonly maxRows: number;
  /**
   * How long a cursor stays open while its reader takes nothing (a client that does not read): then
   * its connection goes back to the pool, and the list goes on later from its last key at its version.
   */
  readonly idleMs: number;
}

export const DEFAULT_LIST_CURSOR_OPTIONS: ListCursorOptions = { firstRows: 10, chunkBytes: 1024 * 1024, minRows: 1, maxRows: 2000, idleMs: 500 };

/** Where a cursor reads from, and what bounds it. */
export interface ListSource {
  readonly pool: pg.Pool;
  readonly ref: ResourceRef;
  readonly options: ListOptions;
  /** Cursors open at once (each holds a pool connection): a share of the pool, so that other requests always find one. */
  readonly slots: Slots;
  readonly cursor: ListCursorOptions;
  /** --database-statement-timeout (0: none): every statement of the cursor is bounded by it, as other reads are. */
  readonly statementTimeoutMs?: number;
}

interface ListRow {
  list_rv: string;
  compacted_rv: string;
  /** Rows written outside the server lie in the list's range (see written-outside.ts). */
  outside: boolean;
  namespace: string | null;
  name: string | null;
  object: string | null;
}

/** One open transaction with its cursor (a pool connection and a cursor slot). */
class OpenCursor {
  readonly #client: pg.PoolClient;
  readonly #slots: Slots;
  readonly #timeout: { query_timeout?: number };
  #released = false;

  private constructor(client: pg.PoolClient, source: ListSource) {
    this.#client = client;
    this.#slots = source.slots;
    this.#timeout = source.statementTimeoutMs ? { query_timeout: source.statementTimeoutMs } : {};
  }

  #query<R extends pg.QueryResultRow = any>(text: string, values?: unknown[]): Promise<pg.QueryResult<R>> {
    return this.#client.query<R>({ text, values, ...this.#timeout } as pg.QueryConfig);
  }

  static async open(source: ListSource, options: ListOptions): Promise<OpenCursor> {
    await source.slots.acquire();
    let client: pg.PoolClient;
    try {
      client = await orUnavailable(() => source.pool.connect());
    } catch (err) {
      source.slots.release();
      throw err;
    }
    const opened = new OpenCursor(client, source);
    const query = buildListQuery(source.ref, { ...options, limit: undefined, countRemaining: false });
    try {
      await orUnavailable(async () => {
        await opened.#query('begin read only');
        await opened.#query(`declare list_cursor no scroll cursor for ${query.text}`, query.values);
      });
    } catch (err) {
      opened.release(err);
      throw err;
    }
    return opened;
  }

  async fetch(count: number): Promise<ListRow[]> {
    try {
      return (await orUnavailable(() => this.#query<ListRow>(`fetch ${count} from list_cursor`))).rows;
    } catch (err) {
      this.release(err);
      throw err;
    }
  }

  /** Ends the transaction and gives the connection and the slot back; a failed connection is dropped. */
  async close(): Promise<void> {
    if (this.#released) return;
    try {
      await this.#query('commit');
      this.release();
    } catch (err) {
      this.release(err);
    }
  }

  release(err?: unknown): void {
    if (this.#released) return;
    this.#released = true;
    this.#client.release(err === undefined ? undefined : err instanceof Error ? err : true);
    this.#slots.release();
  }
}

/**
 * A whole list read in chunks through a server-side cursor, so that the server holds one chunk at a
 * time instead of the collection. The cursor's statement (list-query.ts) is one snapshot however long
 * the reading takes. A reader that takes nothing for `idleMs` (a client that stopped reading) does not
 * keep the connection: the cursor is closed, and reopened when the reader comes back, after the last
 * key read and at the list's version (the state as of that version, as continue tokens read it; 410
 * Expired once that version has left the history window).
 */
export class PostgresListCursor implements ListCursor {
  readonly resourceVersion: number;
  /** Rows written outside the server lie in the list's range: they must be checked before it is served. */
  readonly writtenOutside: boolean;
  /** The objects left out (see leaveOut). */
  unreadable: readonly CorruptObject[] | undefined;
  /** Their keys (`namespace/name`); undefined when nothing is left out, as for nearly every list. */
  #leftOut: Set<string> | undefined;
  readonly #source: ListSource;
  #open: OpenCursor | undefined;
  /** The first chunk's item rows, until the first next() (what to leave out is known only after it was read). */
  #pending: ListRow[];
  #done: boolean;
  #closed = false;
  #lastKey: ListKey | undefined;
  #rowBytes = 0;
  #rowCount = 0;
  /** Operations on the connection, one after the other (a fetch, an idle close, the final close). */
  #queue: Promise<unknown> = Promise.resolve();
  #idleTimer: NodeJS.Timeout | undefined;
  /** The chunk after the one last returned, being read (one ahead at most). */
  #ahead: Promise<string[]> | undefined;

  private constructor(source: ListSource, open: OpenCursor, resourceVersion: number, first: ListRow[]) {
    this.#source = source;
    this.#open = open;
    this.resourceVersion = resourceVersion;
    this.writtenOutside = first[0]?.outside === true;
    this.#done = first.length < source.cursor.firstRows;
    this.#pending = first.filter((r) => r.object !== null);
    this.#account(this.#pending);
    if (this.#done) void this.#serially(() => this.#release());
    else this.#armIdle();
  }

  /**
   * Opens the cursor and reads the first chunk. An exact version (when asked) must not be older than
   * the compacted version: Expired otherwise, before anything is returned.
   */
  static async open(source: ListSource): Promise<PostgresListCursor> {
    const open = await OpenCursor.open(source, source.options);
    const rows = await open.fetch(source.cursor.firstRows);
    const head = rows[0];
    if (source.options.exactVersion !== undefined && source.options.exactVersion < Number(head.compacted_rv)) {
      await open.close();
      throw new StorageError('Expired', 'The resourceVersion for the provided list is too old.');
    }
    return new PostgresListCursor(source, open, Number(head.list_rv), rows);
  }

  /**
   * Leaves these objects (rows that cannot be read) out of the items; called before the first
   * next(), by a list that skips such rows instead of failing (ListOptions.skipUnreadable).
   */
  leaveOut(corrupt: readonly CorruptObject[]): void {
    this.unreadable = corrupt;
    if (corrupt.length > 0) this.#leftOut = unreadableKeys(corrupt);
  }

  next(): Promise<string[]> {
    clearTimeout(this.#idleTimer);
    if (this.#closed) return Promise.resolve([]);
    let items: Promise<string[]>;
    if (this.#pending.length > 0) {
      const first = this.#pending;
      this.#pending = [];
      const leftOut = this.#leftOut;
      items = Promise.resolve((leftOut ? first.filter((r) => !leftOut.has(`${r.namespace}/${r.name}`)) : first).map((r) => r.object as string));
    } else if (this.#ahead) {
      items = this.#ahead;
    } else {
      items = this.#serially(() => this.#fetch());
    }
    this.#ahead = undefined;
    return items.then((chunk) => {
      // Read the next chunk while the caller writes this one: the database and the network overlap.
      if (!this.#done && !this.#closed) {
        const ahead = this.#serially(() => this.#fetch());
        ahead.catch(() => undefined); // reported to whoever calls next() for it
        this.#ahead = ahead;
      }
      this.#armIdle();
      // An empty chunk ends the list for the caller: one whose rows were all left out is skipped over.
      if (chunk.length === 0 && this.#ahead) return this.next();
      return chunk;
    });
  }

  /** One fetch (reopening the cursor after an idle close). */
  async #fetch(): Promise<string[]> {
    if (this.#done || this.#closed) return [];
    const reopened = !this.#open;
    this.#open ??= await this.#reopen();
    const count = this.#nextCount();
    const rows = await this.#open.fetch(count);
    // Every row carries the compacted version: the list's own version must still be answerable.
    if (reopened && rows.length > 0 && this.resourceVersion < Number(rows[0].compacted_rv)) {
      this.#done = true;
      await this.#release();
      throw new StorageError('Expired', 'The resourceVersion for the provided list is too old.');
    }
    if (rows.length < count) {
      this.#done = true;
      await this.#release();
    }
    return this.#take(rows);
  }

  close(): Promise<void> {
    clearTimeout(this.#idleTimer);
    this.#closed = true;
    this.#pending = [];
    this.#ahead = undefined;
    return this.#serially(() => this.#release());
  }

  /** After an idle close: the rest of the list, at the list's version, after the last key read. */
  #reopen(): Promise<OpenCursor> {
    const options: ListOptions = { ...this.#source.options, exactVersion: this.resourceVersion, after: this.#lastKey ?? this.#source.options.after };
    return OpenCursor.open(this.#source, options);
  }

  #armIdle(): void {
    clearTimeout(this.#idleTimer);
    if (this.#done || this.#closed) return;
    // Closes whatever is open by then (a read-ahead may be reopening the cursor right now).
    this.#idleTimer = setTimeout(() => void this.#serially(() => this.#release()), this.#source.cursor.idleMs);
    this.#idleTimer.unref();
  }

  async #release(): Promise<void> {
    const open = this.#open;
    this.#open = undefined;
    await open?.close();
  }

  #serially<T>(op: () => Promise<T>): Promise<T> {
    const run = this.#queue.then(op, op);
    this.#queue = run.catch(() => undefined);
    return run;
  }

  /** Item texts of fetched rows (the empty list's single row has none; rows left out are not items). */
  #take(rows: ListRow[]): string[] {
    this.#account(rows);
    const leftOut = this.#leftOut;
    const items: string[] = [];
    for (const r of rows) {
      if (r.object === null || leftOut?.has(`${r.namespace}/${r.name}`)) continue;
      items.push(r.object);
    }
    return items;
  }

  /** Remembers where the list is (for a reopen) and how large its rows are (for the next fetch's size). */
  #account(rows: ListRow[]): void {
    for (const r of rows) {
      if (r.object === null) continue;
      this.#rowBytes += r.object.length;
      this.#rowCount++;
      this.#lastKey = { namespace: r.namespace as string, name: r.name as string };
    }
  }

  #nextCount(): number {
    const { chunkBytes, minRows, maxRows } = this.#source.cursor;
    const average = this.#rowCount > 0 ? this.#rowBytes / this.#rowCount : 1024;
    return Math.max(minRows, Math.min(maxRows, Math.floor(chunkBytes / Math.max(1, average))));
  }
}
