import type { Context } from 'koa';
import { expired, invalid, type ApiError } from '../../api/errors.ts';
import type { KubeObject, Status, WatchEventType } from '../../api/types.ts';
import { frameSerializedWatchEvent, type NegotiatedResponse } from '../../codecs/index.ts';
import { encodeProtobufObject, encodeProtobufWatchEvent, frameProtobufWatchEvent } from '../../codecs/protobuf/index.ts';
import { parseSelectors } from '../../registry/filter.ts';
import { apiVersionOf } from '../../registry/kind.ts';
import { listResource } from '../../registry/list-reader.ts';
import { parseListQuery, parseResourceVersion, validateListQuery, type ListQuery } from '../../registry/list-options.ts';
import { requiredName } from '../../registry/selectors/field-selector.ts';
import { toTable } from '../../registry/table.ts';
import { StorageError, type WatchDelivery, type WatchHandle } from '../../storage/storage.ts';
import { MAX_TIMER_MS } from '../request-timeout.ts';
import { negotiate } from '../respond.ts';
import type { RequestScope } from '../scope.ts';

/** Bytes a watch response may have queued in the socket before the watcher counts as too slow. */
const MAX_QUEUED_BYTES = 16 * 1024 * 1024;
const INITIAL_EVENTS_END = 'k8s.io/initial-events-end';

interface Start {
  /** Send the current objects as ADDED events first. */
  readonly initial: boolean;
  /** For initial events: the state must be at least this new. */
  readonly minVersion?: number;
  /** Without initial events: stream changes after this version (undefined: from now). */
  readonly fromVersion?: number;
  /** Close the initial events with the annotated bookmark. */
  readonly initialEventsBookmark: boolean;
}

/** How the resourceVersion / sendInitialEvents parameters start a watch. */
function startOf(q: ListQuery): Start {
  const rv = q.resourceVersion;
  const version = rv && rv !== '0' ? parseResourceVersion(rv) : undefined;
  if (q.sendInitialEvents === true) {
    return { initial: true, minVersion: version, initialEventsBookmark: q.allowWatchBookmarks };
  }
  if (q.sendInitialEvents === false) return { initial: false, fromVersion: version, initialEventsBookmark: false };
  // Legacy: unset and "0" start with the current state; a version streams what came after it.
  if (version === undefined) return { initial: true, initialEventsBookmark: false };
  return { initial: false, fromVersion: version, initialEventsBookmark: false };
}

/**
 * A watch: 200 with a chunked stream of events, one JSON document per line. Errors found after the
 * stream started (an expired resourceVersion) arrive as an ERROR event carrying a Status.
 */
export async function handleWatch(ctx: Context, scope: RequestScope): Promise<void> {
  const n = negotiate(ctx, { allowTable: true, isWatch: true });
  const query = parseListQuery(ctx.URL.searchParams);
  validateListQuery(query);
  if (query.sendInitialEvents !== undefined && !scope.settings.watchList) {
    throw invalid('meta.k8s.io', 'ListOptions', '', [
      { type: 'FieldValueForbidden', field: 'sendInitialEvents', detail: 'sendInitialEvents is forbidden for watch unless the WatchList feature gate is enabled' },
    ]);
  }
  const selectors = parseSelectors(scope.kind, query.labelSelector, query.fieldSelector);
  const namespace = scope.kind.namespaced && scope.info.namespace ? scope.info.namespace : undefined;
  const name = requiredName(selectors.fields);
  const start = startOf(query);
  const timeoutSeconds =
    query.timeoutSeconds && query.timeoutSeconds > 0
      ? query.timeoutSeconds
      : scope.settings.minRequestTimeoutSeconds * (1 + Math.random());

  // The 200 and the stream start once the watch is established (or with its first event): a storage
  // that fails before that (PostgreSQL down) is answered with its status code, as upstream does.
  const stream = new WatchStream(ctx, scope, n);

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
    let fromVersion = start.fromVersion;
    if (start.initial) {
      let cont: string | undefined;
      let listVersion: string | undefined;
      do {
        const page = await listResource(scope.store, namespace, {
          ...query,
          watch: false,
          sendInitialEvents: undefined,
          resourceVersion: cont ? undefined : start.minVersion !== undefined ? String(start.minVersion) : undefined,
          resourceVersionMatch: cont ? undefined : start.minVersion !== undefined ? 'NotOlderThan' : undefined,
          limit: 500,
          continue: cont,
        });
        listVersion ??= page.resourceVersion;
        // The list applies the same selectors (metadata.name included) as the watch.
        for (const text of page.items) stream.event('ADDED', oneOff(text));
        cont = page.continue;
      } while (cont && !stream.closed);
      fromVersion = Number(listVersion);
    }
    if (fromVersion === undefined) fromVersion = await scope.store.storage.currentVersion();
    if (stream.closed) return;

    handle = await scope.store.storage.watch(
      { group: scope.kind.group, resource: scope.kind.plural },
      { namespace, name, filter: selectors.filter, fromVersion },
      {
        onEvent: (ev) => {
          stream.event(ev.type, ev);
          return stream.queuedBytes() < MAX_QUEUED_BYTES;
        },
        onClose: (reason) => {
          if (reason === 'slow') scope.logger.info({ resource: scope.kind.plural }, 'closing a watch that cannot keep up');
          stream.end();
        },
      },
    );
    // The stream may have ended (client gone, shutdown) while the watch was being set up.
    if (stream.closed) {
      handle.stop();
      return;
    }
    stream.open();
    if (start.initialEventsBookmark) stream.bookmark(fromVersion, true);
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
    if (err instanceof StorageError && err.code === 'Expired') {
      stream.error(expired(err.message).status);
      stream.end();
    } else if ((err as ApiError).status?.kind === 'Status') {
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
  if (err instanceof StorageError) return err.code === 'Unavailable' || err.code === 'Timeout';
  const code = (err as ApiError).status?.kind === 'Status' ? (err as ApiError).status.code : undefined;
  return code === 503 || code === 504;
}

/** What an event needs to be written: its object, its JSON text, and shared memos. */
type Deliverable = Pick<WatchDelivery, 'object' | 'text' | 'memo'>;

/** An initial event (from a list page): nothing to share with other watchers. */
function oneOff(text: string): Deliverable {
  let object: KubeObject | undefined;
  return {
    get object() {
      return (object ??= JSON.parse(text) as KubeObject) as WatchDelivery['object'];
    },
    text: () => text,
    memo: (_key, build) => build(),
  };
}

/** Writes watch frames to the raw response (koa steps aside for streams it cannot buffer). */
class WatchStream {
  readonly #ctx: Context;
  readonly #scope: RequestScope;
  readonly #negotiated: NegotiatedResponse;
  #tableHeadersSent = false;
  opened = false;
  closed = false;
  onEnd: () => void = () => undefined;

  constructor(ctx: Context, scope: RequestScope, negotiated: NegotiatedResponse) {
    this.#ctx = ctx;
    this.#scope = scope;
    this.#negotiated = negotiated;
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

  queuedBytes(): number {
    return this.#ctx.res.writableLength;
  }

  /** Writes one event; encodings shared by all watchers of the change are built once (see WatchDelivery.memo). */
  event(type: WatchEventType, ev: Deliverable): void {
    if (this.closed) return;
    if (this.#negotiated.output === 'table-json') {
      const version = this.#negotiated.convert?.version;
      const render = (noHeaders: boolean) => JSON.stringify(toTable(this.#scope.kind, [ev.object], { noHeaders, version }));
      // Only a watcher's first event carries the column definitions; the rest are the same for everyone.
      const table = this.#tableHeadersSent ? ev.memo(`table:${version}`, () => render(true)) : render(false);
      this.#tableHeadersSent = true;
      this.#write(frameSerializedWatchEvent(type, table));
      return;
    }
    if (this.#negotiated.format === 'protobuf') {
      const envelope = ev.memo('protobuf', () => encodeProtobufObject(ev.object as Record<string, unknown>));
      this.#write(frameProtobufWatchEvent(type, envelope));
      return;
    }
    this.#write(frameSerializedWatchEvent(type, ev.text()));
  }

  bookmark(version: number, initialEventsEnd: boolean): void {
    const metadata: Record<string, unknown> = { resourceVersion: String(version), creationTimestamp: null };
    if (initialEventsEnd) metadata.annotations = { [INITIAL_EVENTS_END]: 'true' };
    const obj = { kind: this.#scope.kind.kind, apiVersion: apiVersionOf(this.#scope.kind), metadata };
    if (this.#negotiated.output === 'table-json') {
      const table = { kind: 'Table', apiVersion: `meta.k8s.io/${this.#negotiated.convert?.version ?? 'v1'}`, metadata: { resourceVersion: String(version) }, columnDefinitions: [], rows: [] };
      this.#write(frameSerializedWatchEvent('BOOKMARK', JSON.stringify(initialEventsEnd ? { ...table, metadata: { ...table.metadata, annotations: metadata.annotations } } : table)));
      return;
    }
    this.#write(this.#frame('BOOKMARK', obj));
  }

  error(status: Status): void {
    this.#write(this.#frame('ERROR', status));
  }

  #frame(type: WatchEventType, obj: object): string | Uint8Array {
    if (this.#negotiated.format === 'protobuf') return encodeProtobufWatchEvent(type, obj as Record<string, unknown>);
    return frameSerializedWatchEvent(type, JSON.stringify(obj));
  }

  end(): void {
    if (this.closed) return;
    this.closed = true;
    const res = this.#ctx.res;
    // Not opened: the client left or the server drains before the watch began; an empty 200 it is.
    this.open();
    if (!res.writableEnded) res.end();
    this.onEnd();
  }

  /** Stops the watch's timers without touching the response, which the error handler then writes. */
  abandon(): void {
    if (this.closed) return;
    this.closed = true;
    this.onEnd();
  }

  #write(frame: string | Uint8Array): void {
    if (this.closed) return;
    this.open();
    this.#ctx.res.write(frame);
  }
}

function warningHeaders(ctx: Context): Record<string, string[]> {
  const warnings = (ctx.state as { warnings?: string[] }).warnings ?? [];
  return warnings.length > 0 ? { Warning: warnings.map((w) => `299 - ${JSON.stringify(w)}`) } : {};
}
