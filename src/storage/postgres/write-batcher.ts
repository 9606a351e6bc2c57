import type { Logger } from 'pino';
import { StorageError } from '../storage.ts';
import type { PreparedQueries } from './prepared-queries.ts';
import { isDataRefusal, refusedWrite } from './write-refusal.ts';

/** One write as kube_write_batch takes it (see migrations/0002-write-function.ts, 0004 and 0005). */
export interface WriteOp {
  op: 'create' | 'update' | 'delete';
  g: string;
  r: string;
  ns: string;
  n: string;
  /** Object JSON text (create/update); spliced into the batch without re-encoding. */
  objectText?: string;
  rv?: number;
  uid?: string;
  /** A create that needs its namespace to exist and not be terminating (checked in the transaction). */
  nsgate?: boolean;
  /** A delete of a row that cannot be read: why, recorded on its DELETED change for its watchers. */
  unreadable?: string;
}

export interface WriteResult {
  outcome: 'ok' | 'exists' | 'not_found' | 'conflict' | 'uid_mismatch' | 'namespace_missing' | 'namespace_terminating';
  resourceVersion: number | null;
  /**
   * The stored object as JSON text: the current one on a refusal, the deleted one on a delete; null on
   * a successful create or update (the caller holds what it sent; see migrations/0005).
   */
  objectText: string | null;
}

interface Pending {
  op: WriteOp;
  /** performance.now() when it was queued. */
  queuedAt: number;
  resolve(result: WriteResult): void;
  reject(err: unknown): void;
}

export interface WriteBatcherOptions {
  /**
   * Batches of this process sent at once. Two: the next batch waits on the advisory lock while one
   * commits. One gave bigger batches when the WriteBatcher was driven directly (7.9 vs 4.0 creates a
   * batch with 2 processes x 8 callers) but no more creates/s over HTTPS (1,003 vs 1,021/s on 2
   * cores), and with one slot a background write (a lease renewal) holds every request's write
   * behind it when the database stalls, so that none is sent.
   */
  readonly maxInFlight: number;
  readonly maxBatchSize: number;
  /**
   * Object text per batch: the batch is one jsonb parameter, and jsonb refuses more than 255 MiB, so
   * many large objects go out in several batches (a single write larger than this goes alone).
   */
  readonly maxBatchBytes: number;
  /** Where writes PostgreSQL refused are logged (their SQLSTATE and message, never their data). */
  readonly logger?: Logger;
  /**
   * Longest a write may wait in the queue while the batches ahead of it are stuck (a database that
   * does not answer); past it the write is refused as Unavailable. It was never sent, so it can never
   * be applied later behind its client's back. 0: no limit (--database-connect-timeout).
   */
  readonly maxQueueWaitMs?: number;
  /**
   * Called with every batch PostgreSQL committed (its ops, and its rows in op order) before its
   * writers are answered. It may set the `object` of a successful create's or update's row to the
   * text stored (the writer is then answered with that text rather than making it again).
   */
  readonly committed?: (ops: readonly WriteOp[], rows: BatchRow[]) => void;
  /** Called as each batch is sent; what it returns is called once the batch is answered (after `committed`) or failed. */
  readonly sending?: () => () => void;
}

const DEFAULTS: WriteBatcherOptions = { maxInFlight: 2, maxBatchSize: 200, maxBatchBytes: 64 * 1024 * 1024 };

/**
 * Group commit: API writes that arrive while a batch is committing are sent together as the next
 * batch, in one transaction with one NOTIFY. Under load this turns N commits into one; with a single
 * client it adds nothing (the queue is empty, the write goes out at once).
 *
 * One client's bad data must not fail the others: when PostgreSQL refuses a batch for its data (see
 * isDataRefusal; the transaction rolled back, nothing was written), its writes are sent again one by
 * one, in their order, so that only the write that carries the bad value fails (Unstorable, a 400).
 * Each of those is its own kube_write_batch call under the same advisory lock, so commit order still
 * equals resourceVersion order.
 */
export class WriteBatcher {
  readonly #queries: PreparedQueries;
  readonly #options: WriteBatcherOptions;
  #queue: Pending[] = [];
  #inFlight = 0;
  #expiry: NodeJS.Timeout | undefined;

  constructor(queries: PreparedQueries, options: Partial<WriteBatcherOptions> = {}) {
    this.#queries = queries;
    this.#options = { ...DEFAULTS, ...options };
  }

  write(op: WriteOp): Promise<WriteResult> {
    return new Promise((resolve, reject) => {
      this.#queue.push({ op, queuedAt: performance.now(), resolve, reject });
      this.#pump();
    });
  }

  #pump(): void {
    while (this.#inFlight < this.#options.maxInFlight && this.#queue.length > 0) {
      const batch = this.#queue.splice(0, this.#batchLength());
      this.#inFlight++;
      this.#send(batch).finally(() => {
        this.#inFlight--;
        this.#pump();
      });
    }
    this.#watchQueue();
  }

  /** While writes wait behind stuck batches, one timer refuses those that waited too long. */
  #watchQueue(): void {
    const limit = this.#options.maxQueueWaitMs;
    if (!limit || this.#expiry || this.#queue.length === 0) return;
    const due = this.#queue[0].queuedAt + limit - performance.now();
    this.#expiry = setTimeout(() => {
      this.#expiry = undefined;
      const now = performance.now();
      let expired = 0;
      while (expired < this.#queue.length && now - this.#queue[expired].queuedAt >= limit) expired++;
      for (const p of this.#queue.splice(0, expired)) {
        p.reject(new StorageError('Unavailable', `the storage is unavailable: the write could not be sent within ${limit} ms`));
      }
      this.#watchQueue();
    }, Math.max(0, due));
    this.#expiry.unref();
  }

  /** How many queued writes the next batch takes: up to maxBatchSize, and maxBatchBytes of object text (at least one). */
  #batchLength(): number {
    const { maxBatchSize, maxBatchBytes } = this.#options;
    let bytes = 0;
    let n = 0;
    while (n < this.#queue.length && n < maxBatchSize) {
      bytes += this.#queue[n].op.objectText?.length ?? 0;
      if (n > 0 && bytes > maxBatchBytes) break;
      n++;
    }
    return n;
  }

  async #send(batch: Pending[]): Promise<void> {
    let rows: BatchRow[];
    try {
      rows = await this.#run(batch.map((p) => p.op));
    } catch (err) {
      if (isDataRefusal(err)) return this.#sendOneByOne(batch, err);
      for (const p of batch) p.reject(err);
      return;
    }
    for (const row of rows) batch[row.idx - 1].resolve(resultOf(row));
  }

  /** After a refused batch: each write alone, in order; a write refused on its own fails with Unstorable. */
  async #sendOneByOne(batch: Pending[], batchError: unknown): Promise<void> {
    if (batch.length === 1) {
      this.#refused(batchError);
      batch[0].reject(refusedWrite(batchError));
      return;
    }
    for (const p of batch) {
      try {
        const [row] = await this.#run([p.op]);
        p.resolve(resultOf(row));
      } catch (err) {
        if (isDataRefusal(err)) {
          this.#refused(err);
          p.reject(refusedWrite(err));
        } else {
          p.reject(err);
        }
      }
    }
  }

  #refused(err: unknown): void {
    const { code, message } = err as { code?: string; message?: string };
    this.#options.logger?.info({ code, reason: message }, 'PostgreSQL refused the data of a write; answered 400');
  }

  async #run(ops: WriteOp[]): Promise<BatchRow[]> {
    const answered = this.#options.sending?.();
    try {
      const res = await this.#queries.query<BatchRow>(
        'kube_write_batch',
        'select idx, outcome, resource_version, object from kube_write_batch($1::jsonb)',
        [encodeBatch(ops)],
      );
      try {
        this.#options.committed?.(ops, res.rows);
      } catch (err) {
        // The batch is committed whatever the hook did: its writers are answered as such.
        this.#options.logger?.warn({ err }, 'after a committed write batch');
      }
      return res.rows;
    } finally {
      answered?.();
    }
  }
}

/** A row of kube_write_batch: the outcome of the write at `idx` (1-based) of the batch. */
export interface BatchRow {
  idx: number;
  outcome: WriteResult['outcome'];
  resource_version: string | null;
  object: string | null;
}

function resultOf(row: BatchRow): WriteResult {
  return {
    outcome: row.outcome,
    resourceVersion: row.resource_version === null ? null : Number(row.resource_version),
    objectText: row.object,
  };
}

/** Builds the ops array as JSON text, splicing object texts in rather than parsing and re-encoding them. */
function encodeBatch(ops: WriteOp[]): string {
  const parts = ops.map((o) => {
    const head = JSON.stringify({
      op: o.op,
      g: o.g,
      r: o.r,
      ns: o.ns,
      n: o.n,
      rv: o.rv === undefined ? null : String(o.rv),
      uid: o.uid ?? null,
      nsgate: o.nsgate === true,
      ...(o.unreadable !== undefined ? { unreadable: o.unreadable } : {}),
    });
    return o.objectText === undefined ? head : `${head.slice(0, -1)},"object":${o.objectText}}`;
  });
  return `[${parts.join(',')}]`;
}
