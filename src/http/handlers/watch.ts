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
import { MAX_TIMER_MS } from '../request-timeout.ts';
import { negotiate } from '../respond.ts';
import type { RequestScope } from '../scope.ts';
import { warningHeaderValues } from '../warning-headers.ts';

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

/**
 * A watch: 200 with a chunked stream of events, one JSON document per line. Errors found after the
 * stream started (an expired resourceVersion) arrive as an ERROR event carrying a Status.
 */
export async function handleWatch(ctx: Context, scope: RequestScope): Promise<void> {
  const n = negotiate(ctx, scope, { allowTable: true, isWatch: true });
  const query = parseListQuery(ctx.URL.searchParams);
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
  /** Frames waiting for the socket to drain, and their bytes. */
  #held: (string | Uint8Array)[] = [];
  #heldBytes = 0;
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
      'Transfer-Encoding': 'chunked',
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
    const frame = ev.memo(`json-frame:${type}`, () => frameSerializedWatchEvent(type, ev.text()));
    return this.#send(frame, ev.memo(`json-frame-bytes:${type}`, () => Buffer.byteLength(frame)));
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
    this.#awaitDrain();
    return new Promise((resolve) => this.#waiters.push(resolve));
  }

  /** Ends the response normally (timeout, shutdown, the watch ended on the storage side). */
  end(): void {
    if (this.closed) return;
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
    this.#held = [];
    this.#heldBytes = 0;
    if (this.#drainListener) this.#ctx.res.off('drain', this.#drainListener);
    for (const resolve of this.#waiters.splice(0)) resolve();
  }

  /** Whether the socket holds its half of the budget, or frames wait for it. */
  #full(): boolean {
    return this.#held.length > 0 || this.#ctx.res.writableLength >= WATCH_MAX_QUEUED_BYTES / 2;
  }

  /**
   * Writes a frame, or holds it while the socket is full; gives up past the budget. `bytes` is the
   * frame's length in bytes, added to the response's size.
   */
  #send(frame: string | Uint8Array, bytes: number): boolean {
    if (this.closed) return false;
    this.open();
    if (this.#written) this.#written.bytes += bytes;
    if (!this.#full()) {
      this.#ctx.res.write(frame);
      return true;
    }
    this.#held.push(frame);
    this.#heldBytes += frame.length;
    if (this.#held.length > 1 && this.#heldBytes > WATCH_MAX_QUEUED_BYTES / 2) {
      this.giveUp();
      return false;
    }
    this.#awaitDrain();
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

  /** On drain: writes held frames while the socket has room, then wakes whoever waits for room. */
  #flush(): void {
    const res = this.#ctx.res;
    let i = 0;
    while (i < this.#held.length && res.writableLength < WATCH_MAX_QUEUED_BYTES / 2) {
      const frame = this.#held[i++];
      this.#heldBytes -= frame.length;
      res.write(frame);
    }
    this.#held.splice(0, i);
    if (this.#full()) {
      this.#awaitDrain();
      return;
    }
    for (const resolve of this.#waiters.splice(0)) resolve();
  }
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
