import type { ObjectKey } from '../storage.ts';
import type { PreparedQueries } from './prepared-queries.ts';
import { orUnavailable } from './unavailable.ts';

/** The stored row of one key, as the get statement reads it. */
export interface StoredRow {
  readonly object: string;
  readonly resource_version: string;
  readonly written_outside: boolean;
}

interface Pending {
  readonly key: ObjectKey;
  resolve(row: StoredRow | undefined): void;
  reject(err: unknown): void;
}

export interface GetBatcherOptions {
  /**
   * Get statements of this process running at once, at most. A get that finds none in flight is sent
   * at once, alone; gets that arrive while one is are read together by the next statement. Under
   * load each round trip (a system call each way, a wake-up of a backend) then serves several gets.
   */
  readonly maxInFlight: number;
  /**
   * How long the statements in flight may all be running before another one (up to maxInFlight)
   * takes the gets queued behind them: one statement at a time reads the most gets per round trip,
   * and this keeps a slow read (a large object, a cold page) from holding every other get for long.
   * 0: another statement whenever one is free.
   */
  readonly spillAfterMs: number;
  readonly maxBatchSize: number;
}

/**
 * On 2 cores, 16 clients: one statement at a time served ~10% more gets/s at ~15% less server CPU
 * and ~30% less PostgreSQL CPU per get than two at once; a read in flight for 2 ms is slow.
 */
const DEFAULTS: GetBatcherOptions = { maxInFlight: 2, spillAfterMs: 2, maxBatchSize: 64 };

const ONE = 'select object::text as object, resource_version, written_outside from objects where api_group = $1 and resource = $2 and namespace = $3 and name = $4';
/**
 * Several keys in one statement. The lateral subquery keeps the plan a primary-key lookup per key
 * (a generic plan guesses 100 rows from unnest; a join could otherwise hash the whole table).
 */
const MANY = `select k.i::int as i, o.object::text as object, o.resource_version, o.written_outside
  from unnest($1::text[], $2::text[], $3::text[], $4::text[]) with ordinality as k(g, r, ns, n, i)
  cross join lateral (
    select object, resource_version, written_outside from objects
     where api_group = k.g and resource = k.r and namespace = k.ns and name = k.n
  ) o`;

/**
 * Reads objects by key for PostgresStorage.get, batching the gets that queue up while earlier ones
 * are in flight (as the WriteBatcher batches writes). Every get is read by a statement that started
 * after it was asked for, so a get still sees every write acknowledged before it.
 */
export class GetBatcher {
  readonly #queries: PreparedQueries;
  readonly #options: GetBatcherOptions;
  readonly #queue: Pending[] = [];
  /** When each statement in flight was sent (performance.now()), oldest first. */
  readonly #sentAt: number[] = [];
  /** Set while queued gets wait for the statements in flight to become slow (see spillAfterMs). */
  #spillTimer: NodeJS.Timeout | undefined;
  /** Statements sent and gets read, for the tests. */
  readonly stats = { statements: 0, gets: 0 };

  constructor(queries: PreparedQueries, options: Partial<GetBatcherOptions> = {}) {
    this.#queries = queries;
    this.#options = { ...DEFAULTS, ...options };
  }

  get(key: ObjectKey): Promise<StoredRow | undefined> {
    return new Promise((resolve, reject) => {
      this.#queue.push({ key, resolve, reject });
      this.#pump();
    });
  }

  #pump(): void {
    while (this.#queue.length > 0 && this.#sentAt.length < this.#options.maxInFlight) {
      // The youngest statement in flight decides: another may start once even it has been running spillAfterMs.
      const youngest = this.#sentAt.length > 0 ? this.#sentAt[this.#sentAt.length - 1] : undefined;
      if (youngest !== undefined) {
        const wait = youngest + this.#options.spillAfterMs - performance.now();
        if (wait > 0) {
          this.#spillTimer ??= setTimeout(() => {
            this.#spillTimer = undefined;
            this.#pump();
          }, Math.ceil(wait)).unref();
          return;
        }
      }
      const batch = this.#queue.splice(0, this.#options.maxBatchSize);
      const sentAt = performance.now();
      this.#sentAt.push(sentAt);
      this.#read(batch).finally(() => {
        this.#sentAt.splice(this.#sentAt.indexOf(sentAt), 1);
        this.#pump();
      });
    }
  }

  async #read(batch: Pending[]): Promise<void> {
    this.stats.statements++;
    this.stats.gets += batch.length;
    try {
      if (batch.length === 1) {
        const { key } = batch[0];
        const res = await orUnavailable(() => this.#queries.query<StoredRow>('storage_get', ONE, [key.group, key.resource, key.namespace, key.name]));
        batch[0].resolve(res.rows[0]);
        return;
      }
      const res = await orUnavailable(() =>
        this.#queries.query<StoredRow & { i: number }>('storage_get_many', MANY, [
          batch.map((p) => p.key.group),
          batch.map((p) => p.key.resource),
          batch.map((p) => p.key.namespace),
          batch.map((p) => p.key.name),
        ]),
      );
      const found: (StoredRow | undefined)[] = new Array(batch.length);
      for (const row of res.rows) found[row.i - 1] = row;
      batch.forEach((p, i) => p.resolve(found[i]));
    } catch (err) {
      for (const p of batch) p.reject(err);
    }
  }
}
