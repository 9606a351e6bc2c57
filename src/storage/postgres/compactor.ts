import type pg from 'pg';
import type { Logger } from 'pino';

export interface CompactorOptions {
  readonly pool: pg.Pool;
  readonly logger: Logger;
  /** How long history is kept (the watch and continue-token window). */
  readonly windowMs: number;
  readonly intervalMs: number;
}

const DELETE_CHUNK = 5000;

/**
 * Drops history older than the window in small chunks, so it never holds locks that writers wait on
 * (deletes of old rows do not conflict with inserts of new ones). The newest row is always kept:
 * it is the current version of the whole store. Raising the compaction mark and deleting the rows
 * happen in one transaction, so readers see both or neither.
 */
export class Compactor {
  readonly #options: CompactorOptions;
  #timer: NodeJS.Timeout | null = null;
  #running: Promise<number> | null = null;

  constructor(options: CompactorOptions) {
    this.#options = options;
  }

  start(): void {
    this.#timer = setInterval(() => void this.compactNow(), this.#options.intervalMs);
    this.#timer.unref();
  }

  async stop(): Promise<void> {
    if (this.#timer) clearInterval(this.#timer);
    this.#timer = null;
    await this.#running;
  }

  /** Runs one compaction pass; returns the number of history rows removed. */
  compactNow(): Promise<number> {
    this.#running ??= this.#run().finally(() => {
      this.#running = null;
    });
    return this.#running;
  }

  async #run(): Promise<number> {
    let removed = 0;
    try {
      for (;;) {
        const res = await this.#options.pool.query(
          `with doomed as (
             select resource_version from history
              where recorded_at < now() - make_interval(secs => $1::double precision / 1000)
                and resource_version < (select max(resource_version) from history)
              order by resource_version
              limit ${DELETE_CHUNK}
           ), gone as (
             delete from history h using doomed d where h.resource_version = d.resource_version
             returning h.resource_version
           ), mark as (
             update compaction
                set compacted_resource_version = greatest(compacted_resource_version, (select max(resource_version) from gone)),
                    compacted_at = now()
              where exists (select 1 from gone)
             returning compacted_resource_version
           )
           select (select count(*) from gone) as removed`,
          [this.#options.windowMs],
        );
        const n = Number(res.rows[0].removed);
        removed += n;
        if (n < DELETE_CHUNK) break;
      }
    } catch (err) {
      this.#options.logger.warn({ err }, 'compaction failed; will retry');
    }
    return removed;
  }
}
