import { invalid } from '../api/errors.ts';
import { requiredName } from '../api/selectors/field-selector.ts';
import type { RequestContext } from '../api/request-context.ts';
import type { KubeObject, Status, WatchEventType } from '../api/types.ts';
import type { CorruptObject } from '../storage/read-check.ts';
import type { WatchDelivery, WatchHandle } from '../storage/storage.ts';
import { parseSelectors, type ParsedSelectors } from './filter.ts';
import { listPage } from './list-reader.ts';
import { parseResourceVersion, validateListQuery, type ListQuery } from './list-options.ts';
import type { ResourceStore } from './resource-store.ts';
import { watchCloseError } from './storage-errors.ts';

/** What an event needs to be written: its object, its JSON text, and memos shared by its watchers. */
export type Deliverable = Pick<WatchDelivery, 'object' | 'text' | 'memo'>;

/** Where a watch's events go (HTTP's watch stream, or an informer). */
export interface WatchSink {
  /** Takes one event; false once the sink gave the watch up. */
  event(type: WatchEventType, ev: Deliverable): boolean;
  /** Undefined while the sink has room; otherwise resolves once it has. */
  room(): Promise<void> | undefined;
  /** The sink is gone (client left, shutdown): starting stops. */
  readonly closed: boolean;
  /**
   * The watch ended on the storage side ('slow': the sink did not keep up). `error` is the Status to
   * send as an ERROR event first, when the client must hear why (an object that cannot be read).
   */
  onClose(reason: string, error?: Status): void;
  /**
   * Set only by the server's own informers (src/registry/informer.ts), never by a client's watch:
   * initial objects that cannot be read (corrupt objects) are then left out and handed here, page by
   * page, instead of failing the watch's start as they fail a client's list. The server keeps
   * running on the rest, and the objects can be removed with the unsafe delete.
   */
  unreadable?(objects: readonly CorruptObject[]): void;
}

/** A started watch. */
export interface WatchStarted {
  readonly handle: WatchHandle;
  /** The version events continue from (the initial list's, or the one asked for). */
  readonly fromVersion: number;
  /** The initial events are over: the client asked for the annotated bookmark that says so. */
  readonly initialEventsBookmark: boolean;
}

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

/** Page size of the initial events' list. */
const INITIAL_PAGE = 500;

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

/**
 * Starts a watch as upstream does: the initial state as ADDED events when asked for (legacy
 * resourceVersion unset or "0", or sendInitialEvents=true under the WatchList gate), read in pages
 * and waiting for a slow sink rather than buffering; then the changes after that state (or after the
 * version asked for). Undefined when the sink closed while starting. Errors are API errors; bad
 * parameters are thrown at once (before any promise), so that a caller can answer them plainly
 * before it starts a stream.
 */
export function startWatch(
  store: ResourceStore,
  ctx: RequestContext,
  namespace: string | undefined,
  query: ListQuery,
  name: string | undefined,
  sink: WatchSink,
): Promise<WatchStarted | undefined> {
  validateListQuery(query);
  if (query.sendInitialEvents !== undefined && !ctx.featureGates.enabled('WatchList')) {
    throw invalid('meta.k8s.io', 'ListOptions', '', [
      { type: 'FieldValueForbidden', field: 'sendInitialEvents', detail: 'sendInitialEvents is forbidden for watch unless the WatchList feature gate is enabled' },
    ]);
  }
  const kind = store.kind;
  const selectors = parseSelectors(kind, query.labelSelector, query.fieldSelector, name);
  const scopedNamespace = kind.namespaced ? namespace : undefined;
  const start = startOf(query);
  return run(store, query, name, sink, scopedNamespace, selectors, start);
}

async function run(
  store: ResourceStore,
  query: ListQuery,
  name: string | undefined,
  sink: WatchSink,
  scopedNamespace: string | undefined,
  selectors: ParsedSelectors,
  start: Start,
): Promise<WatchStarted | undefined> {
  const kind = store.kind;
  try {
    let fromVersion = start.fromVersion;
    if (start.initial) {
      let cont: string | undefined;
      let listVersion: string | undefined;
      do {
        const page = await listPage(store, scopedNamespace, {
          ...query,
          watch: false,
          sendInitialEvents: undefined,
          resourceVersion: cont ? undefined : start.minVersion !== undefined ? String(start.minVersion) : undefined,
          resourceVersionMatch: cont ? undefined : start.minVersion !== undefined ? 'NotOlderThan' : undefined,
          limit: INITIAL_PAGE,
          continue: cont,
        }, name, { skipUnreadable: sink.unreadable !== undefined });
        listVersion ??= page.resourceVersion;
        if (page.unreadable && page.unreadable.length > 0) sink.unreadable?.(page.unreadable);
        // The list applies the same selectors (metadata.name included) as the watch.
        for (const text of page.items) {
          sink.event('ADDED', oneOff(text));
          const wait = sink.room();
          if (wait) await wait;
          if (sink.closed) break;
        }
        cont = page.continue;
      } while (cont && !sink.closed);
      fromVersion = Number(listVersion);
    }
    if (fromVersion === undefined) fromVersion = await store.storage.currentVersion();
    if (sink.closed) return undefined;

    const handle = await store.storage.watch(
      { group: kind.group, resource: kind.plural },
      { namespace: scopedNamespace, name: requiredName(selectors.fields), filter: selectors.filter, fromVersion },
      {
        onEvent: (ev) => sink.event(ev.type, ev),
        onClose: (reason, detail) => sink.onClose(reason, watchCloseError(reason, detail)),
        room: () => sink.room(),
      },
    );
    return { handle, fromVersion, initialEventsBookmark: start.initialEventsBookmark };
  } catch (err) {
    throw store.translate(err, name ?? '');
  }
}

