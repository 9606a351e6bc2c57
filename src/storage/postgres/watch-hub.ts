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
  /** Recent changes kept in memory to start watches from (default RECENT_CHANGES). */
  readonly recentChanges?: number;
  /** Their object text, in UTF-16 code units (default RECENT_CHANGES_TEXT). */
  readonly recentChangesText?: number;
  /** How long a notification waits for this process's write batches in flight (default OWN_BATCH_HOLD_MS). */
  readonly ownBatchHoldMs?: number;
}

/**
 * A change this process committed, as WatchHub.committedHere takes it: its history row, where an
 * update's or a delete's `previous` is not known yet but is the object at `previousVersion` (the
 * version the write was conditioned on).
 */
export interface OwnChange extends HistoryRow {
  readonly previousVersion?: number;
}

/** What the hub has read from history, for tests and benchmarks (see WatchHub.stats). */
export interface WatchHubStats {
  /** History rows read, with or without their object. */
  rowsRead: number;
  /** History rows whose object columns were read (live fetch, filling stubs, catch-up queries). */
  objectsRead: number;
  /** Watches whose catch-up came from the ring of recent changes. */
  catchUpsFromMemory: number;
  /** Watches whose catch-up needed a history query (their version was older than the ring). */
  catchUpsFromDatabase: number;
  /** Reads of the compaction mark and the newest version (shared by the watches that start together). */
  compactionMarkReads: number;
  /** Changes fanned out to the watchers (each once, in version order). */
  changesDispatched: number;
  /** Of those, changes this process wrote, fanned out from what it sent without reading them back. */
  ownChangesDispatched: number;
}

/**
 * Recent changes kept: a watch from a version within them replays from memory. Changes of resources
 * nobody watches are kept without their object (a few hundred bytes each); a catch-up reads the
 * objects it needs from history in one query.
 */
export const RECENT_CHANGES = 10_000;
export const RECENT_CHANGES_TEXT = 64 * 1024 * 1024;

const CHANNEL = 'kube_changes';
/**
 * Payloads on CHANNEL are the version a write batch ended at; a payload with this prefix is a
 * start-up probe (every hub on the channel sees them, and all but the sender ignore them).
 */
const PROBE_PREFIX = 'probe:';
const FETCH_BATCH = 1000;
/**
 * The longest a notification waits for this process's write batches in flight when it came (they are
 * normally answered within a millisecond or two of it): past it the fetch goes out anyway, so that a
 * batch stuck on its way never holds back the changes of other processes.
 */
const OWN_BATCH_HOLD_MS = 50;
/** Own batches kept waiting for the changes before them (two are in flight per process; see WriteBatcher). */
const MAX_PARKED_BATCHES = 8;

/**
 * Per process: one LISTEN connection, one reader of new history rows, and in-memory fan-out to
 * every watcher of the changed resource. N watchers cost no more queries than one.
 */
export class WatchHub {
  readonly #options: WatchHubOptions;
  readonly #watchers = new Map<string, Set<Watcher>>();
  /** Of those, the internal ones per resource (WatchOptions.internal), left out of watcherCount. */
  readonly #internal = new Map<string, number>();
  #lastVersion = 0;
  /** Own write batches sent so far, those not answered yet, and the notifications held for them (see ownBatchSent). */
  #ownSent = 0;
  readonly #ownInFlight = new Set<number>();
  #held: { version: number; through: number }[] = [];
  /** Own committed batches answered ahead of the changes before them, by first version (see committedHere). */
  #parked: { first: number; changes: readonly OwnChange[] }[] = [];
  #holdTimer: NodeJS.Timeout | undefined;
  #fetching: Promise<void> | null = null;
  #fetchAgain = false;
  #listenClient: pg.Client | null = null;
  #pollTimer: NodeJS.Timeout | null = null;
  #closed = false;
  /** Start-up probes waiting for their notification, by payload. */
  readonly #probes = new Map<string, () => void>();
  /**
   * Every change after #ringFloor up to #lastVersion, in version order (from #ringStart on; the
   * slots before it are evicted and reclaimed now and then).
   */
  #ring: LazyChange[] = [];
  #ringStart = 0;
  #ringFloor = 0;
  #ringText = 0;
  readonly #ringMax: number;
  readonly #ringMaxText: number;
  /** The compaction mark as last read (it only rises), whether a read of it is in flight, and who waits for the next. */
  #knownMark = 0;
  #markInFlight = false;
  #markWaiters: { resolve: (mark: MarkRead) => void; reject: (err: unknown) => void }[] = [];
  readonly stats: WatchHubStats = { rowsRead: 0, objectsRead: 0, catchUpsFromMemory: 0, catchUpsFromDatabase: 0, compactionMarkReads: 0, changesDispatched: 0, ownChangesDispatched: 0 };

  constructor(options: WatchHubOptions) {
    this.#options = options;
    this.#ringMax = Math.max(1, options.recentChanges ?? RECENT_CHANGES);
    this.#ringMaxText = options.recentChangesText ?? RECENT_CHANGES_TEXT;
  }

  /** The newest version fanned out so far. */
  get lastVersion(): number {
    return this.#lastVersion;
  }

  async start(): Promise<void> {
    const res = await this.#options.pool.query('select coalesce(max(resource_version), 0) as rv from history');
    this.#lastVersion = Number(res.rows[0].rv);
    this.#ringFloor = this.#lastVersion;
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
    clearTimeout(this.#holdTimer);
    for (const set of this.#watchers.values()) for (const w of [...set]) w.close('shutdown');
    const client = this.#listenClient;
    this.#listenClient = null;
    if (client) await client.end().catch(() => undefined);
    await this.#fetching;
  }

  /** Watchers registered now: of one resource, or of all. */
  watcherCount(ref?: ResourceRef): number {
    if (ref) {
      const key = refKey(ref);
      return (this.#watchers.get(key)?.size ?? 0) - (this.#internal.get(key) ?? 0);
    }
    let n = 0;
    for (const set of this.#watchers.values()) n += set.size;
    for (const internal of this.#internal.values()) n -= internal;
    return n;
  }

  /**
   * Registers a watcher, replays history after `fromVersion`, then lets it go live. Registration
   * comes first so that nothing committed during the replay is missed; versions dedupe the overlap.
   */
  async watch(ref: ResourceRef, options: WatchOptions, listener: WatchListener): Promise<WatchHandle> {
    const key = refKey(ref);
    const limits = { maxEvents: this.#options.maxBufferedEvents, maxBytes: this.#options.maxBufferedBytes };
    const forget = (w: Watcher) => {
      const current = this.#watchers.get(key);
      if (current?.delete(w) && options.internal) this.#countInternal(key, -1);
      // A resource nobody watches any more: its new rows are fetched without their objects.
      if (current?.size === 0) this.#watchers.delete(key);
    };
    const watcher = new Watcher(ref, options, listener, limits, forget);
    let set = this.#watchers.get(key);
    if (!set) this.#watchers.set(key, (set = new Set()));
    set.add(watcher);
    if (options.internal) this.#countInternal(key, 1);
    try {
      const changes = await this.#catchUp(ref, options);
      // A watch that ended meanwhile (client gone, too slow) has had its onClose; its handle is inert.
      await watcher.replay(changes);
      watcher.goLive();
      watcher.advanceTo(this.#lastVersion);
    } catch (err) {
      forget(watcher);
      watcher.closed = true;
      throw err;
    }
    return {
      currentVersion: () => (watcher.catchingUp ? watcher.sentVersion : Math.max(watcher.sentVersion, this.#lastVersion)),
      stop: () => watcher.close('stopped'),
    };
  }

  #countInternal(key: string, delta: number): void {
    const n = (this.#internal.get(key) ?? 0) + delta;
    if (n > 0) this.#internal.set(key, n);
    else this.#internal.delete(key);
  }

  /**
   * Changes this process has just committed, in version order (from its write batcher; a gap between
   * two is a version the batch drew and did not use). When they follow the last version fanned out,
   * no other change can lie among them (every version is drawn under the write lock, which the batch
   * held from before its first version to its commit), so they are fanned out at once and the
   * batch's notification finds nothing left to read. A batch answered ahead of the one before it
   * (their connections are read in either order) waits for it here; one that follows another
   * process's change, or a version drawn and not used, is read by the fetch its notification brings.
   * Changes of resources nobody watches are kept as stubs, as a fetch would keep them.
   */
  committedHere(changes: readonly OwnChange[]): void {
    if (this.#closed || changes.length === 0) return;
    const first = Number(changes[0].resource_version);
    if (first <= this.#lastVersion) return;
    this.#parked.push({ first, changes });
    this.#parked.sort((a, b) => a.first - b.first);
    this.#dispatchParked();
  }

  /** Fans out the parked own batches that now follow the last version; forgets those a fetch has passed. */
  #dispatchParked(): void {
    while (this.#parked.length > 0) {
      const { first, changes } = this.#parked[0];
      if (first > this.#lastVersion + 1) break;
      this.#parked.shift();
      if (first <= this.#lastVersion) continue;
      // A watched change whose previous object the ring does not hold: the batch is left to the fetch.
      const ready = this.#withPrevious(changes);
      if (!ready) continue;
      this.stats.ownChangesDispatched += ready.length;
      for (const change of ready) this.#dispatch(change);
    }
    // Batches behind a gap only a fetch fills: a few are kept for it, never an unbounded queue.
    if (this.#parked.length > MAX_PARKED_BATCHES) this.#parked.splice(0, this.#parked.length - MAX_PARKED_BATCHES);
  }

  /**
   * The batch's changes as the hub keeps them: stubs for resources nobody watches, and for watched
   * ones an update's or a delete's previous object, which is the object at the version the write was
   * conditioned on, from the ring (undefined if it is not there with its object).
   */
  #withPrevious(changes: readonly OwnChange[]): LazyChange[] | undefined {
    const out: LazyChange[] = [];
    for (const change of changes) {
      if ((this.#watchers.get(refKey({ group: change.api_group, resource: change.resource }))?.size ?? 0) === 0) {
        out.push(new LazyChange({ ...change, object: null, previous: null }));
        continue;
      }
      if (change.previousVersion === undefined) {
        out.push(new LazyChange(change));
        continue;
      }
      const previous = this.#objectTextAt(change.previousVersion, change);
      if (previous === undefined) return undefined;
      out.push(new LazyChange({ ...change, previous }));
    }
    return out;
  }

  /** The text of the object `of` names as it was at `version`, if the ring holds that change with its object. */
  #objectTextAt(version: number, of: HistoryRow): string | undefined {
    const i = this.#ringIndexAfter(version - 1);
    const c = this.#ring[i];
    if (i >= this.#ring.length || c.resourceVersion !== version || !c.hasObject || c.type === 'DELETED') return undefined;
    if (c.name !== of.name || c.namespace !== of.namespace || c.resource !== of.resource || c.group !== of.api_group) return undefined;
    return c.objectText;
  }

  /**
   * A batch of this process's writes is on its way to the database; the function returned is called
   * once it is answered (after committedHere) or has failed. A notification that arrives meanwhile
   * may be that batch's own, come in ahead of its answer: its fetch waits for the batches then in
   * flight (at most ownBatchHoldMs), and is not sent at all if they were fanned out from memory.
   */
  ownBatchSent(): () => void {
    const ticket = ++this.#ownSent;
    this.#ownInFlight.add(ticket);
    return () => {
      this.#ownInFlight.delete(ticket);
      this.#releaseHeld(false);
    };
  }

  /** Called on NOTIFY (with the batch's last version) and by the safety poll. */
  notify(version?: number): void {
    if (version !== undefined && version <= this.#lastVersion) return;
    if (version !== undefined && this.#ownInFlight.size > 0) {
      this.#held.push({ version, through: this.#ownSent });
      this.#holdTimer ??= setTimeout(() => this.#releaseHeld(true), this.#options.ownBatchHoldMs ?? OWN_BATCH_HOLD_MS);
      return;
    }
    this.#requestFetch();
  }

  /** Fetches for the held notifications whose batches have all been answered (or all, when held too long). */
  #releaseHeld(all: boolean): void {
    if (this.#held.length === 0) return;
    let oldest = Infinity;
    if (!all) for (const ticket of this.#ownInFlight) oldest = Math.min(oldest, ticket);
    let newest = 0;
    this.#held = this.#held.filter((h) => {
      if (h.through >= oldest) return true;
      newest = Math.max(newest, h.version);
      return false;
    });
    if (this.#held.length === 0) {
      clearTimeout(this.#holdTimer);
      this.#holdTimer = undefined;
    }
    if (newest > this.#lastVersion) this.#requestFetch();
  }

  /**
   * The changes of `ref` after `options.fromVersion` up to at least the hub's last version, in order.
   * From the ring when it reaches back that far (reading only the objects it lacks), else from
   * history. Expired when the version is older than the compaction mark.
   */
  async #catchUp(ref: ResourceRef, options: WatchOptions): Promise<Iterable<LazyChange>> {
    const from = options.fromVersion;
    const { compacted, newest } = await this.#compactionMark();
    if (from < compacted) throw expired(from, compacted);
    // The replay covers what was committed before the watch began (as a history query would), so
    // the hub must have fetched that far; it usually has, or is about to on its notification.
    if (!(await this.#reach(newest)) || from < this.#ringFloor) return this.#readSince(ref, options);
    const { namespace, name } = options;
    const changes: LazyChange[] = [];
    const stubs: LazyChange[] = [];
    for (let i = this.#ringIndexAfter(from); i < this.#ring.length; i++) {
      const change = this.#ring[i];
      if (change.group !== ref.group || change.resource !== ref.resource) continue;
      if ((namespace !== undefined && change.namespace !== namespace) || (name !== undefined && change.name !== name)) continue;
      changes.push(change);
      if (!change.hasObject) stubs.push(change);
    }
    // A compaction between the mark's read and this one took rows away: history answers (410).
    if (stubs.length > 0 && !(await this.#fill(stubs))) return this.#readSince(ref, options);
    this.stats.catchUpsFromMemory++;
    return changes;
  }

  /**
   * The compaction mark as of a read sent after this call began: concurrent watch starts share one
   * query (one in flight; whoever arrives meanwhile shares the next one, sent when it is back).
   */
  #compactionMark(): Promise<MarkRead> {
    return new Promise<MarkRead>((resolve, reject) => {
      this.#markWaiters.push({ resolve, reject });
      if (!this.#markInFlight) this.#sendMarkRead();
    });
  }

  #sendMarkRead(): void {
    const waiters = this.#markWaiters;
    this.#markWaiters = [];
    this.#markInFlight = true;
    this.#readMark()
      .then(
        (mark) => waiters.forEach((w) => w.resolve(mark)),
        (err) => waiters.forEach((w) => w.reject(err)),
      )
      .finally(() => {
        this.#markInFlight = false;
        if (this.#markWaiters.length > 0) this.#sendMarkRead();
      });
  }

  async #readMark(): Promise<MarkRead> {
    this.stats.compactionMarkReads++;
    const res = await this.#options.queries.query(
      'watch_hub_compaction_mark',
      `select (select compacted_resource_version from compaction) as compacted,
              (select coalesce(max(resource_version), 0) from history) as newest`,
    );
    const mark = Number(res.rows[0]?.compacted ?? 0);
    if (mark > this.#knownMark) this.#knownMark = mark;
    return { compacted: this.#knownMark, newest: Number(res.rows[0]?.newest ?? 0) };
  }

  /** Whether the hub has fetched up to `version`, fetching now if it has not (a few tries). */
  async #reach(version: number): Promise<boolean> {
    for (let i = 0; i < 3 && this.#lastVersion < version && !this.#closed; i++) {
      this.#requestFetch();
      await this.#fetching;
    }
    return this.#lastVersion >= version;
  }

  /** Reads the objects of stubs (changes of resources nobody watched when they were fetched); false if some are gone. */
  async #fill(stubs: readonly LazyChange[]): Promise<boolean> {
    const res = await this.#options.queries.query<{ resource_version: string; object: string; previous: string | null }>(
      'watch_hub_fill',
      'select resource_version, object::text as object, previous::text as previous from history where resource_version = any($1::bigint[])',
      [stubs.map((c) => c.resourceVersion)],
    );
    this.stats.objectsRead += res.rows.length;
    const byVersion = new Map(res.rows.map((r) => [Number(r.resource_version), r]));
    let complete = true;
    for (const change of stubs) {
      const row = byVersion.get(change.resourceVersion);
      if (!row) {
        complete = false;
        continue;
      }
      if (change.hasObject) continue;
      change.fill(row.object, row.previous);
      if (this.#ringHas(change)) this.#ringText += change.textLength;
    }
    if (complete) this.#trimRing();
    return complete;
  }

  async #readSince(ref: ResourceRef, options: WatchOptions): Promise<LazyChange[]> {
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
    if (compacted > this.#knownMark) this.#knownMark = compacted;
    if (options.fromVersion < compacted) throw expired(options.fromVersion, compacted);
    const rows = res.rows.filter((r) => r.resource_version !== null) as HistoryRow[];
    this.stats.rowsRead += rows.length;
    this.stats.objectsRead += rows.length;
    this.stats.catchUpsFromDatabase++;
    return rows.map((row) => new LazyChange(row));
  }

  /** The index in the ring of the first change after `version` (the ring's end if none). */
  #ringIndexAfter(version: number): number {
    let lo = this.#ringStart;
    let hi = this.#ring.length;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      if (this.#ring[mid].resourceVersion <= version) lo = mid + 1;
      else hi = mid;
    }
    return lo;
  }

  #ringHas(change: LazyChange): boolean {
    const i = this.#ringIndexAfter(change.resourceVersion - 1);
    return i < this.#ring.length && this.#ring[i] === change;
  }

  #remember(change: LazyChange): void {
    this.#ring.push(change);
    this.#ringText += change.textLength;
    this.#trimRing();
  }

  /** Evicts the oldest changes past either bound; the floor rises with them. */
  #trimRing(): void {
    while (this.#ringStart < this.#ring.length && (this.#ring.length - this.#ringStart > this.#ringMax || this.#ringText > this.#ringMaxText)) {
      const old = this.#ring[this.#ringStart];
      this.#ring[this.#ringStart] = undefined as never;
      this.#ringStart++;
      this.#ringText -= old.textLength;
      this.#ringFloor = old.resourceVersion;
    }
    // Reclaim the evicted slots once they are half the array.
    if (this.#ringStart > 1024 && this.#ringStart * 2 > this.#ring.length) {
      this.#ring = this.#ring.slice(this.#ringStart);
      this.#ringStart = 0;
    }
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

  /**
   * Reads the new history rows in order. Object columns are read only for resources someone watches
   * now; rows of the others stay stubs (in the ring, for a later catch-up to fill if it needs them).
   */
  async #fetchLoop(): Promise<void> {
    try {
      for (;;) {
        const watched = this.#watchedKeys();
        const res = await this.#options.queries.query<HistoryRow>(
          'watch_hub_fetch_watched',
          `select resource_version, api_group, resource, namespace, name, event_type,
                  case when api_group || '/' || resource = any($2::text[]) then object::text end as object,
                  case when api_group || '/' || resource = any($2::text[]) then previous::text end as previous,
                  unreadable
             from history where resource_version > $1 order by resource_version limit ${FETCH_BATCH}`,
          [this.#lastVersion, watched],
        );
        // Rows fanned out meanwhile (this process's own, see committedHere) are not sent twice.
        const changes = res.rows.filter((row) => Number(row.resource_version) > this.#lastVersion).map((row) => new LazyChange(row));
        this.stats.rowsRead += res.rows.length;
        this.stats.objectsRead += res.rows.reduce((n, r) => (r.object === null ? n : n + 1), 0);
        // A resource that got its first watcher while the query (or a fill) ran: its rows need their
        // objects before they are dispatched. Checked again after each wait, until none is missing.
        for (;;) {
          const stubs = changes.filter((c) => !c.hasObject && (this.#watchers.get(refKey(c))?.size ?? 0) > 0);
          if (stubs.length === 0 || this.#closed) break;
          if (!(await this.#fill(stubs))) {
            // Compacted away within the moment since they were read: those watchers start over.
            for (const c of stubs) if (!c.hasObject) for (const w of [...(this.#watchers.get(refKey(c)) ?? [])]) w.close('expired');
          }
        }
        if (this.#closed) return;
        for (const change of changes) if (change.resourceVersion > this.#lastVersion) this.#dispatch(change);
        this.#dispatchParked();
        if (res.rows.length < FETCH_BATCH) break;
      }
    } catch (err) {
      if (!this.#closed) this.#options.logger.warn({ err }, 'watch hub: reading history failed; will retry');
    }
  }

  /** `group/resource` of every resource with a watcher now. */
  #watchedKeys(): string[] {
    const keys: string[] = [];
    for (const [key, set] of this.#watchers) if (set.size > 0) keys.push(key);
    return keys;
  }

  #dispatch(change: LazyChange): void {
    this.stats.changesDispatched++;
    this.#lastVersion = change.resourceVersion;
    this.#remember(change);
    const set = this.#watchers.get(refKey(change));
    if (!set || !change.hasObject) return;
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

/** The compaction mark, and the newest version in history, read in one statement. */
interface MarkRead {
  readonly compacted: number;
  readonly newest: number;
}

function expired(version: number, compacted: number): StorageError {
  return new StorageError('Expired', `too old resource version: ${version} (${compacted + 1})`);
}

function refKey(ref: ResourceRef): string {
  return `${ref.group}/${ref.resource}`;
}
