import type pg from 'pg';
import { StorageError, type ListCursor } from '../storage.ts';
import { orUnavailable } from './unavailable.ts';

export interface ListCursorOptions {
  /** Rows the first fetch reads (it also gives the list's version, before anything is written). */
  readonly firstRows: number;
  /** About how much object text each later fetch reads; the row count follows the rows' sizes. */
  readonly chunkBytes: number;
  /** Bounds on the rows of one fetch. */
  readonly minRows: number;
  readonly maxRows: number;
}

export const DEFAULT_LIST_CURSOR_OPTIONS: ListCursorOptions = { firstRows: 10, chunkBytes: 1024 * 1024, minRows: 1, maxRows: 2000 };

/**
 * A whole list read in chunks through a server-side cursor, so that the server holds one chunk at a
 * time instead of the collection. The cursor's statement (list-query.ts) is one snapshot however long
 * the reading takes; it holds one pool connection (and that snapshot) until close().
 */
export class PostgresListCursor implements ListCursor {
  readonly resourceVersion: number;
  readonly #client: pg.PoolClient;
  readonly #options: ListCursorOptions;
  #pending: string[];
  #done: boolean;
  #rowBytes = 0;
  #rowCount = 0;
  /** The fetch under way, so that close() waits for it before it ends the transaction. */
  #busy: Promise<unknown> = Promise.resolve();
  #closed = false;

  private constructor(client: pg.PoolClient, options: ListCursorOptions, resourceVersion: number, first: string[], done: boolean) {
    this.#client = client;
    this.#options = options;
    this.resourceVersion = resourceVersion;
    this.#pending = first;
    this.#done = done;
    this.#measure(first);
  }

  /**
   * Opens the cursor and reads the first chunk. `exactVersion` (when set) must not be older than
   * the compacted version: Expired otherwise, before anything is returned.
   */
  static async open(pool: pg.Pool, query: { text: string; values: unknown[] }, exactVersion: number | undefined, options: ListCursorOptions): Promise<PostgresListCursor> {
    const client = await orUnavailable(() => pool.connect());
    let rows: ListRow[];
    try {
      await orUnavailable(async () => {
        await client.query('begin read only');
        await client.query({ text: `declare list_cursor no scroll cursor for ${query.text}`, values: query.values });
        rows = (await client.query<ListRow>(`fetch ${options.firstRows} from list_cursor`)).rows;
      });
    } catch (err) {
      client.release(err instanceof Error ? err : true);
      throw err;
    }
    const head = rows![0];
    if (exactVersion !== undefined && exactVersion < Number(head.compacted_rv)) {
      await client.query('rollback').catch(() => undefined);
      client.release();
      throw new StorageError('Expired', 'The resourceVersion for the provided list is too old.');
    }
    const items = rows!.filter((r) => r.object !== null).map((r) => r.object as string);
    return new PostgresListCursor(client, options, Number(head.list_rv), items, rows!.length < options.firstRows);
  }

  async next(): Promise<string[]> {
    if (this.#pending.length > 0) {
      const items = this.#pending;
      this.#pending = [];
      return items;
    }
    if (this.#done || this.#closed) return [];
    const count = this.#nextCount();
    const fetching = orUnavailable(() => this.#client.query<ListRow>(`fetch ${count} from list_cursor`));
    this.#busy = fetching.catch(() => undefined);
    const rows = (await fetching).rows;
    if (rows.length < count) this.#done = true;
    const items = rows.map((r) => r.object as string);
    this.#measure(items);
    return items;
  }

  async close(): Promise<void> {
    if (this.#closed) return;
    this.#closed = true;
    await this.#busy;
    try {
      await this.#client.query('commit');
      this.#client.release();
    } catch (err) {
      // A connection that failed mid-list is not given back to the pool.
      this.#client.release(err instanceof Error ? err : true);
    }
  }

  #measure(items: readonly string[]): void {
    for (const t of items) this.#rowBytes += t.length;
    this.#rowCount += items.length;
  }

  #nextCount(): number {
    const { chunkBytes, minRows, maxRows } = this.#options;
    const average = this.#rowCount > 0 ? this.#rowBytes / this.#rowCount : 1024;
    return Math.max(minRows, Math.min(maxRows, Math.floor(chunkBytes / Math.max(1, average))));
  }
}

interface ListRow {
  list_rv: string;
  compacted_rv: string;
  object: string | null;
}
