/**
 * The three debug tables kube-apiserver serves under /debug/api_priority_and_fairness/: one row per
 * priority level, per queue, or per request. Rows are comma-separated cells aligned into columns as
 * Go's text/tabwriter aligns them for upstream (minimum cell width 8, one space of padding).
 */
import type Router from '@koa/router';
import { formatGoDuration } from '../api/go/duration.ts';
import type { ApfController } from './apf-controller.ts';
import type { FairRequest } from './queue-set.ts';
import { runeCount } from '../api/go/strings.ts';
import { queryParams } from '../http/query-params.ts';

export const DUMP_PATH_PREFIX = '/debug/api_priority_and_fairness/';

const MIN_WIDTH = 8;
const PADDING = 1;

/**
 * Lays out rows as tabwriter does: every cell but a row's last is padded with spaces to the width
 * of its column (its widest cell plus padding, at least the minimum width).
 */
export function alignColumns(rows: readonly (readonly string[])[]): string {
  const widths: number[] = [];
  for (const row of rows) {
    for (let i = 0; i < row.length - 1; i++) widths[i] = Math.max(widths[i] ?? MIN_WIDTH, runeCount(row[i]!) + PADDING);
  }
  return rows
    .map((row) => row.map((cell, i) => (i < row.length - 1 ? cell + ' '.repeat(widths[i]! - runeCount(cell) /* tabwriter counts runes */) : cell)).join('') + '\n')
    .join('');
}

/** Upstream joins a row's columns with ",\t": the comma stays in the cell, the tab ends it. */
function cells(...columns: string[]): string[] {
  return columns.map((c, i) => (i < columns.length - 1 ? `${c},` : c));
}

export function dumpPriorityLevels(controller: ApfController): string {
  const rows = [
    cells('PriorityLevelName', 'ActiveQueues', 'IsIdle', 'IsQuiescing', 'WaitingRequests', 'ExecutingRequests', 'DispatchedRequests', 'RejectedRequests', 'TimedoutRequests', 'CancelledRequests'),
  ];
  for (const name of [...controller.levels.keys()].sort()) {
    const level = controller.levels.get(name)!;
    const queues = level.queues;
    if (!queues) continue;
    const d = queues.dump();
    const active = d.queues.filter((q) => q.waiting.length > 0).length;
    rows.push(
      cells(
        name,
        String(active),
        String(queues.isIdle()),
        String(level.quiescing),
        String(d.waiting),
        String(d.executing),
        String(d.dispatched),
        String(d.rejected),
        String(d.timedOut),
        String(d.cancelled),
      ),
    );
  }
  return alignColumns(rows);
}

export function dumpQueues(controller: ApfController): string {
  const rows = [cells('PriorityLevelName', 'Index', 'PendingRequests', 'ExecutingRequests', 'SeatsInUse', 'NextDispatchR', 'InitialSeatsSum', 'MaxSeatsSum', 'TotalWorkSum')];
  for (const name of [...controller.levels.keys()].sort()) {
    const d = controller.levels.get(name)!.queues?.dump();
    if (!d) continue;
    d.queues.forEach((q, i) => {
      rows.push(
        cells(name, String(i), String(q.waiting.length), String(q.executing.length), String(q.seatsInUse), q.nextDispatchR, String(q.initialSeatsSum), String(q.maxSeatsSum), q.totalWorkSum),
      );
    });
  }
  return alignColumns(rows);
}

export function dumpRequests(controller: ApfController, includeRequestDetails: boolean): string {
  const header = cells('PriorityLevelName', 'FlowSchemaName', 'QueueIndex', 'RequestIndexInQueue', 'FlowDistingsher', 'ArriveTime', 'InitialSeats', 'FinalSeats', 'AdditionalLatency', 'StartTime');
  const detailHeader = cells('UserName', 'Verb', 'APIPath', 'Namespace', 'Name', 'APIVersion', 'Resource', 'SubResource');
  const rows = [includeRequestDetails ? joinRows(header, detailHeader) : header];
  const row = (level: string, queueIndex: number, indexInQueue: number, r: FairRequest) => {
    const main = cells(
      level,
      r.fsName,
      String(queueIndex),
      String(indexInQueue),
      r.flowDistinguisher,
      rfc3339Nano(r.arrivalWall),
      String(r.initialSeats),
      String(r.finalSeats),
      formatGoDuration(Math.round(r.additionalLatencyMs * 1e6)),
      r.startWall ? rfc3339Nano(r.startWall) : GO_ZERO_TIME,
    );
    if (!includeRequestDetails) return main;
    const info = r.description?.info;
    const groupVersion = info ? (info.apiGroup ? `${info.apiGroup}/${info.apiVersion}` : info.apiVersion) : '';
    return joinRows(
      main,
      cells(r.description?.userName ?? '', info?.verb ?? '', info?.path ?? '', info?.namespace ?? '', info?.name ?? '', groupVersion, info?.resource ?? '', info?.subresource ?? ''),
    );
  };
  for (const name of [...controller.levels.keys()].sort()) {
    const d = controller.levels.get(name)!.queues?.dump();
    if (!d) continue;
    d.queues.forEach((q, iq) => {
      q.waiting.forEach((r, ir) => rows.push(row(name, iq, ir, r)));
      for (const r of q.executing) rows.push(row(name, iq, -1, r));
    });
    for (const r of d.queuelessExecuting) rows.push(row(name, -1, -1, r));
  }
  return alignColumns(rows);
}

/** The two parts of a detailed row are joined by the same ",\t" as its columns. */
function joinRows(first: string[], second: string[]): string[] {
  return [...first.slice(0, -1), `${first[first.length - 1]},`, ...second];
}

/** Go's zero time.Time, formatted in RFC 3339 (a request not started yet). */
const GO_ZERO_TIME = '0001-01-01T00:00:00Z';

/**
 * Go's time.RFC3339Nano in UTC: fractional seconds without trailing zeros. The clock gives
 * fractions of a millisecond; they are kept to the microsecond.
 */
function rfc3339Nano(ms: number): string {
  const whole = Math.floor(ms);
  const micros = Math.min(999, Math.round((ms - whole) * 1000));
  const iso = new Date(whole).toISOString();
  const fraction = `${iso.slice(20, 23)}${String(micros).padStart(3, '0')}`.replace(/0+$/, '');
  return `${iso.slice(0, 19)}${fraction ? `.${fraction}` : ''}Z`;
}

/** The debug routes (non-resource GETs, authorized like any other path). */
export function registerDumpRoutes(router: Router, controller: ApfController): void {
  const serve = (path: string, make: (query: URLSearchParams) => string) =>
    router.get(`${DUMP_PATH_PREFIX}${path}`, (ctx) => {
      const body = make(queryParams(ctx));
      // What Go's server sniffs for the text upstream writes.
      ctx.set('Content-Type', 'text/plain; charset=utf-8');
      ctx.body = body;
    });
  serve('dump_priority_levels', () => dumpPriorityLevels(controller));
  serve('dump_queues', () => dumpQueues(controller));
  // Any non-empty value of includeRequestDetails adds the requests' user and attributes.
  serve('dump_requests', (q) => dumpRequests(controller, (q.get('includeRequestDetails') ?? '').length > 0));
}
