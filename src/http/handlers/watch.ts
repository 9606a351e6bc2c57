import type { Context } from 'koa';
import { encodeCbor, encodeCborMapOfParts, encodeCborValue } from '../../codecs/cbor/index.ts';
import type { ApiError } from '../../api/errors.ts';
import type { KubeObject, Status, WatchEventType } from '../../api/types.ts';
import { frameSerializedWatchEvent, type NegotiatedResponse } from '../../codecs/index.ts';
import { encodeProtobufObject, encodeProtobufWatchEvent, frameProtobufWatchEvent } from '../../codecs/protobuf/index.ts';
import { apiVersionOf } from '../../registry/kind.ts';
import { parseListQuery } from '../../registry/list-options.ts';
import type { Deliverable } from '../../registry/watch-start.ts';
import { toTable } from '../../registry/table.ts';
import type { WatchHandle } from '../../registry/resource-store.ts';
import { requestMetricsOf, watchResponseBytes, type WatchEventSeries } from '../../metrics/request-metrics.ts';
import { watchInitialized } from '../../flowcontrol/watch-initialization.ts';
import { scheduleFlush } from '../flush-scheduler.ts';
import { MAX_TIMER_MS } from '../request-timeout.ts';
import { negotiate } from '../respond.ts';
import type { RequestScope } from '../scope.ts';
import { warningHeaderValues } from '../warning-headers.ts';
import { queryParams } from '../query-params.ts';

/**
 * The most a watch may have waiting for a client that does not read, about half in the socket's
 * send buffer (written, not yet taken by the kernel) and half held back as encoded events while the
 * socket is full (those are shared with the other watchers of the same change). Past it the watch is
 * given up: logged as `closing a watch that cannot keep up`, and its connection destroyed, so that
 * nothing of it stays in memory; the client re-watches from its last version. One event larger than
 * a half is still sent whole. Documented in docs/operations.md ("Limits and timeouts").
 */
export const WATCH_MAX_QUEUED_BYTES = 4 * 1024 * 1024;
const INITIAL_EVENTS_END = 'k8s.io/initial-events-end';
/** Memo keys of a change's JSON frame by event type, made once rather than per watcher and event. */
const JSON_FRAME: Record<WatchEventType, string> = {
  ADDED: 'json-frame:ADDED',
  MODIFIED: 'json-frame:MODIFIED',
  DELETED: 'json-frame:DELETED',
  BOOKMARK: 'json-frame:BOOKMARK',
  ERROR: 'json-frame:ERROR',
};

/**
 * A watch: 200 with a chunked stream of events, one JSON document per line. Errors found after the
 * stream started (an expired resourceVersion) arrive as an ERROR event carrying a Status.
 */
export async function handleWatch(ctx: Context, scope: RequestScope): Promise<void> {
  const n = negotiate(ctx, scope, { allowTable: true, isWatch: true });
  const query = parseListQuery(queryParams(ctx));
  const namespace = scope.kind.namespaced && scope.info.namespace ? scope.info.namespace : undefined;
  // The legacy /watch/…/<name> path watches one object; a name from the field selector is in the query already.
  const name = scope.info.name && !scope.info.nameFromSelector ? scope.info.name : undefined;
  const timeoutSeconds =
    query.timeoutSeconds && query.timeoutSeconds > 0
      ? query.timeoutSeconds
      : scope.settings.minRequestTimeoutSeconds * (1 + Math.random());

  // The 200 and the stream start once the watch is established (or with its first event): a storage
  // that fails before that (PostgreSQL down) is answered with its status code, as upstream does.
  const stream = new WatchStream(ctx, scope, n);
  // Bad parameters throw here, answered as a plain error before the stream or its timers start.
  const starting = scope.store.watch(scope.context, namespace, query, name, {
    event: (type, ev) => stream.event(type, ev),
    room: () => stream.room(),
    get closed() {
      return stream.closed;
    },
    onClose: (reason, error) => {
      if (reason === 'slow') stream.giveUp();
      else {
        if (error) stream.error(error);
        stream.end();
      }
    },
  });

  let handle: WatchHandle | undefined;
  let bookmarkTimer: NodeJS.Timeout | undefined;
  const finished = new Promise<void>((resolve) => {
    const end = () => {
      clearTimeout(timer);
      if (bookmarkTimer) clearInterval(bookmarkTimer);
      handle?.stop();
      stream.end();
      resolve();
    };
    // Node fires a longer timer at once (with a warning): a timeout that long is as good as none.
    const timer = setTimeout(end, Math.min(timeoutSeconds * 1000, MAX_TIMER_MS));
    stream.onEnd = end;
    stream.onGiveUp = () => scope.logger.info({ resource: scope.kind.plural }, 'closing a watch that cannot keep up');
    // The response closes when the client goes away (the request's own 'close' only means its body was read).
    ctx.res.on('close', end);
    // At shutdown every watch ends as a complete response; the client re-watches on another replica.
    const shutdown = scope.settings.watchTermination;
    if (shutdown.aborted) end();
    else {
      shutdown.addEventListener('abort', end, { once: true });
      ctx.res.once('close', () => shutdown.removeEventListener('abort', end));
    }
  });

  try {
    // API priority and fairness holds a watch's seats until its initial events are out (or it failed).
    const started = await starting.finally(() => watchInitialized(ctx));
    if (!started) return;
    handle = started.handle;
    const fromVersion = started.fromVersion;
    // The stream may have ended (client gone, shutdown) while the watch was being set up.
    if (stream.closed) {
      handle.stop();
      return;
    }
    stream.open();
    if (started.initialEventsBookmark) stream.bookmark(fromVersion, true);
    if (query.allowWatchBookmarks) {
      bookmarkTimer = setInterval(() => stream.bookmark(handle!.currentVersion(), false), scope.settings.watchBookmarkIntervalMs);
    }
  } catch (err) {
    if (!stream.opened && !stream.closed && storageUnavailable(err)) {
      // Nothing was sent yet: the error is the response, as upstream answers a watch its storage
      // cannot serve with a status code (503 here, with Retry-After, while the database is down).
      stream.abandon();
      throw err;
    }
    stream.open();
    if ((err as ApiError).status?.kind === 'Status') {
      stream.error((err as ApiError).status);
      stream.end();
    } else {
      scope.logger.error({ err }, 'watch failed');
      stream.end();
    }
  }
  await finished;
}

/** The storage cannot serve now (database down or not answering), as opposed to a bad request. */
function storageUnavailable(err: unknown): boolean {
  const code = (err as ApiError).status?.kind === 'Status' ? (err as ApiError).status.code : undefined;
  return code === 503 || code === 504;
}

/** Writes watch frames to the raw response (koa steps aside for streams it cannot buffer). */
class WatchStream {
  readonly #ctx: Context;
  readonly #scope: RequestScope;
  readonly #negotiated: NegotiatedResponse;
  #tableHeadersSent = false;
  /**
   * Frames not written yet, with their sizes in bytes: those of this tick (written together at its
   * end, see #send), and those waiting for the socket to drain.
   */
  #queue: (string | Uint8Array)[] = [];
  #queueSizes: number[] = [];
  #queueBytes = 0;
  #flushScheduled = false;
  #drainListener: (() => void) | undefined;
  /** Waiting for room (see room()). */
  #waiters: (() => void)[] = [];
  opened = false;
  closed = false;
  onEnd: () => void = () => undefined;
  onGiveUp: () => void = () => undefined;
  /** apiserver_watch_events_total and apiserver_watch_events_sizes of this watch's resource. */
  readonly #metrics: WatchEventSeries | undefined;
  /** The response's bytes, for apiserver_response_sizes. */
  readonly #written: { bytes: number } | undefined;

  constructor(ctx: Context, scope: RequestScope, negotiated: NegotiatedResponse) {
    this.#ctx = ctx;
    this.#scope = scope;
    this.#negotiated = negotiated;
    this.#metrics = requestMetricsOf(ctx)?.watchEvents(scope.kind);
    this.#written = watchResponseBytes(ctx);
  }

  /** Sends the 200 and the headers; once, before the first frame. */
  open(): void {
    if (this.opened) return;
    this.opened = true;
    const ctx = this.#ctx;
    ctx.respond = false;
    const res = ctx.res;
    // JSON watches keep the plain JSON media type, as the real server sends them.
    res.writeHead(200, {
      'Content-Type': this.#negotiated.contentType,
      'Cache-Control': 'no-cache, private',
      // HTTP/2 frames the body itself and refuses connection-specific headers.
      ...(ctx.req.httpVersionMajor < 2 ? { 'Transfer-Encoding': 'chunked' } : {}),
      ...warningHeaders(ctx),
    });
    res.flushHeaders();
    res.socket?.setNoDelay(true);
  }

  /**
   * Writes one event; returns false once the watch has been given up (the client is too slow).
   * Encodings and frames shared by all watchers of the change are built once (see WatchDelivery.memo).
   */
  event(type: WatchEventType, ev: Deliverable): boolean {
    if (this.closed) return false;
    if (this.#negotiated.output === 'table-json') {
      const version = this.#negotiated.convert?.version;
      const render = (noHeaders: boolean) => JSON.stringify(toTable(this.#scope.kind, [ev.object], { noHeaders, version }));
      // Only a watcher's first event carries the column definitions; the rest are the same for everyone.
      const frame = this.#tableHeadersSent
        ? ev.memo(`table-frame:${version}:${type}`, () => frameSerializedWatchEvent(type, render(true)))
        : frameSerializedWatchEvent(type, render(false));
      this.#tableHeadersSent = true;
      const bytes = byteLength(frame);
      this.#counted(bytes);
      return this.#send(frame, bytes);
    }
    if (this.#negotiated.format === 'protobuf') {
      const object = ev.memo('protobuf', () => encodeProtobufObject(ev.object as Record<string, unknown>));
      this.#counted(object.length);
      const frame = ev.memo(`protobuf-frame:${type}`, () => frameProtobufWatchEvent(type, object));
      return this.#send(frame, frame.length);
    }
    if (this.#negotiated.format === 'cbor') {
      const kind = this.#scope.kind;
      const object = ev.memo('cbor', () => encodeCbor(ev.object, kind.schema));
      this.#counted(object.length);
      const frame = ev.memo(`cbor-frame:${type}`, () => cborWatchEvent(type, object));
      return this.#send(frame, frame.length);
    }
    // The size upstream observes is the encoded object's, not the frame around it. Lengths in bytes
    // are measured once per change, as the frames are made once, not once per watcher.
    this.#counted(ev.memo('json-bytes', () => Buffer.byteLength(ev.text())));
    // As bytes, made once: a string would be encoded to UTF-8 again by every watcher's write.
    const frame = ev.memo(JSON_FRAME[type], () => Buffer.from(frameSerializedWatchEvent(type, ev.text())));
    return this.#send(frame, frame.length);
  }

  bookmark(version: number, initialEventsEnd: boolean): void {
    const metadata: Record<string, unknown> = { resourceVersion: String(version), creationTimestamp: null };
    if (initialEventsEnd) metadata.annotations = { [INITIAL_EVENTS_END]: 'true' };
    const obj = { kind: this.#scope.kind.kind, apiVersion: apiVersionOf(this.#scope.kind), metadata };
    if (this.#negotiated.output === 'table-json') {
      const table = { kind: 'Table', apiVersion: `meta.k8s.io/${this.#negotiated.convert?.version ?? 'v1'}`, metadata: { resourceVersion: String(version) }, columnDefinitions: [], rows: [] };
      this.#sendCounted(frameSerializedWatchEvent('BOOKMARK', JSON.stringify(initialEventsEnd ? { ...table, metadata: { ...table.metadata, annotations: metadata.annotations } } : table)));
      return;
    }
    this.#sendCounted(this.#frame('BOOKMARK', obj));
  }

  error(status: Status): void {
    this.#sendCounted(this.#frame('ERROR', status));
  }

  /** Upstream counts every event its watch loop sends, bookmarks and errors too. */
  #counted(objectBytes: number): void {
    if (this.closed || !this.#metrics) return;
    this.#metrics.events.inc();
    this.#metrics.sizes.observe(objectBytes);
  }

  /** A frame this server makes itself (bookmark, error): its size stands for the object's. */
  #sendCounted(frame: string | Uint8Array): boolean {
    const bytes = byteLength(frame);
    this.#counted(bytes);
    return this.#send(frame, bytes);
  }

  #frame(type: WatchEventType, obj: object): string | Uint8Array {
    if (this.#negotiated.format === 'protobuf') return encodeProtobufWatchEvent(type, obj as Record<string, unknown>);
    if (this.#negotiated.format === 'cbor') return cborWatchEvent(type, encodeCbor(obj));
    return frameSerializedWatchEvent(type, JSON.stringify(obj));
  }

  /** Resolves once the client has taken what was written (undefined: there is room now). */
  room(): Promise<void> | undefined {
    if (this.closed || !this.#full()) return undefined;
    // The flush at the end of this tick wakes the waiter, or waits for the drain itself.
    if (!this.#flushScheduled) this.#awaitDrain();
    return new Promise((resolve) => this.#waiters.push(resolve));
  }

  /** Ends the response normally (timeout, shutdown, the watch ended on the storage side). */
  end(): void {
    if (this.closed) return;
    // What is queued goes out before the end (an ERROR event just before it, above all).
    if (this.#queue.length > 0) this.#write(this.#queue.length);
    this.#close();
    const res = this.#ctx.res;
    // Not opened: the client left or the server drains before the watch began; an empty 200 it is.
    this.open();
    if (!res.writableEnded) res.end();
    this.onEnd();
  }

  /** Stops the watch's timers without touching the response, which the error handler then writes. */
  abandon(): void {
    if (this.closed) return;
    this.#close();
    this.onEnd();
  }

  /**
   * The client does not keep up: drop what is held and destroy the connection, so that neither this
   * process nor the socket keeps the buffered events (ending the response would leave them queued
   * behind the final chunk for as long as the client stays connected).
   */
  giveUp(): void {
    if (this.closed) return;
    this.#close();
    this.onGiveUp();
    this.#ctx.res.destroy();
    this.onEnd();
  }

  #close(): void {
    this.closed = true;
    this.#queue = [];
    this.#queueSizes = [];
    this.#queueBytes = 0;
    if (this.#drainListener) this.#ctx.res.off('drain', this.#drainListener);
    for (const resolve of this.#waiters.splice(0)) resolve();
  }

  /** Whether the socket and the queue hold half the budget, or frames wait for a drain. */
  #full(): boolean {
    return this.#drainListener !== undefined || this.#ctx.res.writableLength + this.#queueBytes >= WATCH_MAX_QUEUED_BYTES / 2;
  }

  /**
   * Queues a frame for the end of this tick; gives up past the budget. `bytes` is the frame's length
   * in bytes, added to the response's size. Frames queued in one tick (several changes of a fetch,
   * a bookmark after an event, a replay's burst) leave in one write: one chunk, one TLS record and
   * one system call for all of them, instead of one each.
   */
  #send(frame: string | Uint8Array, bytes: number): boolean {
    if (this.closed) return false;
    this.open();
    if (this.#written) this.#written.bytes += bytes;
    this.#queue.push(frame);
    this.#queueSizes.push(bytes);
    this.#queueBytes += bytes;
    // The socket and the queue hold the whole budget (one frame larger than half of it is still sent whole).
    if (this.#queue.length > 1 && this.#queueBytes + this.#ctx.res.writableLength > WATCH_MAX_QUEUED_BYTES) {
      this.giveUp();
      return false;
    }
    if (!this.#flushScheduled && this.#drainListener === undefined) {
      this.#flushScheduled = true;
      scheduleFlush(() => {
        this.#flushScheduled = false;
        this.#flush();
      });
    }
    return true;
  }

  /** Flushes once the socket drains (the last write said it was full, so a 'drain' comes). */
  #awaitDrain(): void {
    if (this.#drainListener) return;
    this.#drainListener = () => {
      this.#drainListener = undefined;
      this.#flush();
    };
    this.#ctx.res.once('drain', this.#drainListener);
  }

  /** Writes queued frames while the socket has room (in one write), then wakes whoever waits for room. */
  #flush(): void {
    if (this.closed || this.#drainListener) return;
    const res = this.#ctx.res;
    let n = 0;
    let taken = 0;
    while (n < this.#queue.length && res.writableLength + taken < WATCH_MAX_QUEUED_BYTES / 2) taken += this.#queueSizes[n++];
    if (n > 0) this.#write(n);
    if (this.#full()) {
      this.#awaitDrain();
      return;
    }
    for (const resolve of this.#waiters.splice(0)) resolve();
  }

  /** Writes the first n queued frames as one. */
  #write(n: number): void {
    const frames = this.#queue.splice(0, n);
    for (const size of this.#queueSizes.splice(0, n)) this.#queueBytes -= size;
    this.#ctx.res.write(n === 1 ? frames[0] : joinFrames(frames));
  }
}

/** Frames as one piece: one string when all are strings (JSON), else bytes. */
function joinFrames(frames: (string | Uint8Array)[]): string | Uint8Array {
  if (frames.every((f) => typeof f === 'string')) return frames.join('');
  return Buffer.concat(frames.map((f) => (typeof f === 'string' ? Buffer.from(f) : f)));
}

function warningHeaders(ctx: Context): Record<string, string[]> {
  const warnings = (ctx.state as { warnings?: string[] }).warnings ?? [];
  const values = warnings.length > 0 ? warningHeaderValues(warnings) : [];
  return values.length > 0 ? { Warning: values } : {};
}

/**
 * One `application/cbor-seq` item: a self-described WatchEvent map whose object is the object's own
 * self-described encoding, embedded as it is (as upstream embeds the raw encoded object).
 */
function cborWatchEvent(type: WatchEventType, object: Uint8Array): Uint8Array {
  return encodeCborMapOfParts({ type: encodeCborValue(type), object });
}

function byteLength(frame: string | Uint8Array): number {
  return typeof frame === 'string' ? Buffer.byteLength(frame) : frame.length;
}
