import { randomUUID } from 'node:crypto';
import pg from 'pg';
import type { Logger } from 'pino';
import { StorageError, type ResourceRef, type WatchHandle, type WatchListener, type WatchOptions } from '../storage.ts';
import { HISTORY_COLUMNS, LazyChange, type HistoryRow } from './change.ts';
import type { PreparedQueries } from './prepared-queries.ts';
import { Watcher } from './watcher.ts';

export interface WatchHubOptions {
  readonly pool: pg.Pool;
  readonly queries: PreparedQueries;
  /** Connection settings for the dedicated LISTEN connection. */
  readonly listenConnection: pg.ClientConfig;
  readonly logger: Logger;
  /** Live changes a watcher may hold while it replays history before it counts as too slow. */
  readonly maxBufferedEvents: number;
  /** Their object text (about bytes). */
  readonly maxBufferedBytes: number;
  /** A safety poll in case a notification is lost while the LISTEN connection reconnects. */
  readonly pollIntervalMs: number;
  /** How long start() waits for its own probe notification to come back. */
  readonly listenCheckTimeoutMs: number;
}

const CHANNEL = 'kube_changes';
/**
 * Payloads on CHANNEL are the version a write batch ended at; a payload with this prefix is a
 * start-up probe (every hub on the channel sees them, and all but the sender ignore them).
 */
const PROBE_PREFIX = 'probe:';
const FETCH_BATCH = 1000;

/**
 * Per process: one LISTEN connection, one reader of new history rows, and in-memory fan-out to
 * every watcher of the changed resource. N watchers cost no more queries than one.
 */
export class WatchHub {
  readonly #options: WatchHubOptions;
  readonly #watchers = new Map<string, Set<Watcher>>();
  #lastVersion = 0;
  #fetching: Promise<void> | null = null;
  #fetchAgain = false;
  #listenClient: pg.Client | null = null;
  #pollTimer: NodeJS.Timeout | null = null;
  #closed = false;
  /** Start-up probes waiting for their notification, by payload. */
  readonly #probes = new Map<string, () => void>();

  constructor(options: WatchHubOptions) {
    this.#options = options;
  }

  /** The newest version fanned out so far. */
  get lastVersion(): number {
    return this.#lastVersion;
  }

  async start(): Promise<void> {
    const res = await this.#options.pool.query('select coalesce(max(resource_version), 0) as rv from history');
    this.#lastVersion = Number(res.rows[0].rv);
    await this.#listen();
    try {
      await this.#checkListen();
    } catch (err) {
      await this.close();
      throw err;
    }
    this.#pollTimer = setInterval(() => this.#requestFetch(), this.#options.pollIntervalMs);
    this.#pollTimer.unref();
  }

  async close(): Promise<void> {
    this.#closed = true;
    if (this.#pollTimer) clearInterval(this.#pollTimer);
    for (const set of this.#watchers.values()) for (const w of [...set]) w.close('shutdown');
    const client = this.#listenClient;
    this.#listenClient = null;
    if (client) await client.end().catch(() => undefined);
    await this.#fetching;
  }

  /** Watchers registered now: of one resource, or of all. */
  watcherCount(ref?: ResourceRef): number {
    if (ref) return this.#watchers.get(refKey(ref))?.size ?? 0;
    let n = 0;
    for (const set of this.#watchers.values()) n += set.size;
    return n;
  }

  /**
   * Registers a watcher, replays history after `fromVersion`, then lets it go live. Registration
   * comes first so that nothing committed during the replay is missed; versions dedupe the overlap.
   */
  async watch(ref: ResourceRef, options: WatchOptions, listener: WatchListener): Promise<WatchHandle> {
    const key = refKey(ref);
    const limits = { maxEvents: this.#options.maxBufferedEvents, maxBytes: this.#options.maxBufferedBytes };
    const watcher = new Watcher(ref, options, listener, limits, (w) => {
      this.#watchers.get(key)?.delete(w);
    });
    let set = this.#watchers.get(key);
    if (!set) this.#watchers.set(key, (set = new Set()));
    set.add(watcher);
    try {
      const { compacted, rows } = await this.#readSince(ref, options);
      if (options.fromVersion < compacted) {
        set.delete(watcher);
        throw new StorageError('Expired', `too old resource version: ${options.fromVersion} (${compacted + 1})`);
      }
      // A watch that ended meanwhile (client gone, too slow) has had its onClose; its handle is inert.
      await watcher.replay(changesOf(rows));
      watcher.goLive();
      watcher.advanceTo(this.#lastVersion);
    } catch (err) {
      set.delete(watcher);
      watcher.closed = true;
      throw err;
    }
    return {
      currentVersion: () => (watcher.catchingUp ? watcher.sentVersion : Math.max(watcher.sentVersion, this.#lastVersion)),
      stop: () => watcher.close('stopped'),
    };
  }

  /** Called on NOTIFY (with the batch's last version) and by the safety poll. */
  notify(version?: number): void {
    if (version !== undefined && version <= this.#lastVersion) return;
    this.#requestFetch();
  }

  async #readSince(ref: ResourceRef, options: WatchOptions): Promise<{ compacted: number; rows: HistoryRow[] }> {
    const values: unknown[] = [ref.group, ref.resource, options.fromVersion];
    let extra = '';
    if (options.namespace !== undefined) {
      values.push(options.namespace);
      extra += ` and namespace = $${values.length}`;
    }
    if (options.name !== undefined) {
      values.push(options.name);
      extra += ` and name = $${values.length}`;
    }
    // One statement, one snapshot: the compaction mark and the rows agree.
    const res = await this.#options.pool.query(this.#options.queries.timed({
      text: `with c as (select compacted_resource_version as compacted from compaction)
       select c.compacted, h.* from c left join lateral (
         select ${HISTORY_COLUMNS} from history
          where api_group = $1 and resource = $2 and resource_version > $3${extra}
          order by resource_version
       ) h on true`,
      values,
    }));
    const compacted = res.rows.length > 0 ? Number(res.rows[0].compacted) : 0;
    const rows = res.rows.filter((r) => r.resource_version !== null) as HistoryRow[];
    return { compacted, rows };
  }

  #requestFetch(): void {
    if (this.#closed) return;
    if (this.#fetching) {
      this.#fetchAgain = true;
      return;
    }
    this.#fetching = this.#fetchLoop().finally(() => {
      this.#fetching = null;
      if (this.#fetchAgain) {
        this.#fetchAgain = false;
        this.#requestFetch();
      }
    });
  }

  async #fetchLoop(): Promise<void> {
    try {
      for (;;) {
        const res = await this.#options.queries.query<HistoryRow>(
          'watch_hub_fetch',
          `select ${HISTORY_COLUMNS} from history where resource_version > $1 order by resource_version limit ${FETCH_BATCH}`,
          [this.#lastVersion],
        );
        for (const row of res.rows) this.#dispatch(new LazyChange(row));
        if (res.rows.length < FETCH_BATCH) break;
      }
    } catch (err) {
      if (!this.#closed) this.#options.logger.warn({ err }, 'watch hub: reading history failed; will retry');
    }
  }

  #dispatch(change: LazyChange): void {
    this.#lastVersion = change.resourceVersion;
    const set = this.#watchers.get(refKey(change));
    if (!set) return;
    for (const watcher of set) watcher.offer(change);
  }

  /** Keeps trying to get the LISTEN connection back; the fetch after it catches up on anything missed. */
  #reconnect(delayMs: number): void {
    setTimeout(() => {
      this.#listen()
        .then(() => this.#requestFetch())
        .catch((err) => {
          this.#options.logger.warn({ err }, 'watch hub: reconnect failed');
          this.#reconnect(Math.min(delayMs * 2, 5000));
        });
    }, delayMs).unref();
  }

  async #listen(): Promise<void> {
    if (this.#closed) return;
    const client = new pg.Client(this.#options.listenConnection);
    client.on('notification', (msg) => this.#onNotification(msg.payload));
    client.on('error', (err) => {
      this.#options.logger.warn({ err }, 'watch hub: LISTEN connection failed; reconnecting');
    });
    client.on('end', () => {
      if (this.#closed || this.#listenClient !== client) return;
      this.#listenClient = null;
      this.#reconnect(500);
    });
    await client.connect();
    await client.query(`listen ${CHANNEL}`);
    this.#listenClient = client;
  }

  #onNotification(payload: string | undefined): void {
    if (payload?.startsWith(PROBE_PREFIX)) {
      this.#probes.get(payload)?.();
      return;
    }
    this.notify(payload && /^\d+$/.test(payload) ? Number(payload) : undefined);
  }

  /**
   * Proves at start that LISTEN receives what the pool NOTIFYs: sends a probe through the pool
   * and waits for it on the LISTEN connection. Through a transaction-mode pooler LISTEN stays on
   * whichever server connection ran it, and notifications never reach us; watches would then live
   * on the safety poll alone. Normally the probe is back within milliseconds.
   */
  async #checkListen(): Promise<void> {
    const payload = `${PROBE_PREFIX}${randomUUID()}`;
    let timer: NodeJS.Timeout | undefined;
    const arrived = new Promise<boolean>((resolve) => {
      this.#probes.set(payload, () => resolve(true));
      timer = setTimeout(() => resolve(false), this.#options.listenCheckTimeoutMs);
    });
    try {
      await this.#options.pool.query('select pg_notify($1, $2)', [CHANNEL, payload]);
      if (await arrived) return;
    } finally {
      clearTimeout(timer);
      this.#probes.delete(payload);
    }
    throw new Error(
      `LISTEN does not receive notifications on this connection: a probe sent with pg_notify on channel "${CHANNEL}" ` +
        `did not arrive within ${this.#options.listenCheckTimeoutMs} ms. This is what a transaction-mode connection pooler ` +
        '(PgBouncer, cloud poolers) does; set --database-listen-url (DATABASE_LISTEN_URL) to a direct connection to PostgreSQL.',
    );
  }
}

function* changesOf(rows: readonly HistoryRow[]): Iterable<LazyChange> {
  for (const row of rows) yield new LazyChange(row);
}

function refKey(ref: ResourceRef): string {
  return `${ref.group}/${ref.resource}`;
}
