/**
 * The API priority and fairness filter (kube-apiserver's WithPriorityAndFairness), in place of the
 * max-in-flight limit: after authentication and impersonation, before authorization. Each request is
 * classified (FlowSchema, priority level, flow), costed (its estimated seats), and then runs at once,
 * waits in its flow's queue for its turn, or is refused with 429 and a Retry-After.
 *
 * Long-running requests other than watches pass untracked; a watch holds its seats only until its
 * initial events are sent. A request waits at most a quarter of its deadline (of --request-timeout
 * for a watch), and never more than a minute. Every classified response carries the matched
 * schema's and level's uids (not names: those may say too much about how a client is treated).
 */
import type { Context, Next } from 'koa';
import { isLongRunning } from '../api/long-running.ts';
import { tooManyRequests } from '../http/max-inflight.ts';
import { requestDeadlineMs } from '../http/request-timeout.ts';
import type { ApiState } from '../http/scope.ts';
import type { RequestInfo } from '../api/request-info.ts';
import type { FlowcontrolMetrics } from '../metrics/flowcontrol-metrics.ts';
import type { InFlightKind, InFlightObserver } from '../metrics/inflight-metrics.ts';
import type { ApfController, Classification } from './apf-controller.ts';
import type { FairRequest, QueueSet, SeatWork } from './queue-set.ts';
import { DroppedRequests } from './retry-after.ts';
import { expectWatchInitialization } from './watch-initialization.ts';
import { queryParams } from '../http/query-params.ts';

export const FLOW_SCHEMA_UID_HEADER = 'X-Kubernetes-PF-FlowSchema-UID';
export const PRIORITY_LEVEL_UID_HEADER = 'X-Kubernetes-PF-PriorityLevel-UID';

/** No request waits in a queue longer than this, whatever its deadline. */
const MAX_WAIT_MS = 60_000;

const NON_MUTATING_VERBS = new Set(['get', 'list', 'watch']);

export interface ApfFilterOptions {
  readonly controller: ApfController;
  /** The work a request is estimated to cost, capped at its level's seats per request (0: no cap). */
  readonly estimate: (info: RequestInfo, query: URLSearchParams, maxSeats: number) => SeatWork;
  /** --request-timeout in milliseconds: a quarter of it is how long a watch may wait. */
  readonly requestTimeoutMs: number;
  /** apiserver_current_inflight_requests (requests executing) and the 429s counted as dropped. */
  readonly inFlight?: InFlightObserver;
  readonly metrics?: FlowcontrolMetrics;
}

export function priorityAndFairness(options: ApfFilterOptions) {
  const { controller, estimate, requestTimeoutMs, inFlight, metrics } = options;
  const dropped = new DroppedRequests();
  const executing: Record<InFlightKind, number> = { mutating: 0, nonMutating: 0 };
  inFlight?.start();

  return async function apf(ctx: Context, next: Next): Promise<void> {
    const state = ctx.state as ApiState;
    const info = state.requestInfo;
    const isWatch = info.verb === 'watch';
    if (!isWatch && isLongRunning(info)) return next();
    const arrived = performance.now();

    const classification = controller.classify(state.user, info);
    const { level, schema } = classification;
    const work = estimate(info, queryParams(ctx), level.maxSeats);
    const flow = metrics?.flow(level.name, schema.name);
    flow?.workEstimatedSeats.observe(Math.max(work.initialSeats, work.finalSeats));
    const queues = level.queues!;
    const req = queues.startRequest(work, classification.hash, classification.flowKey, classification.distinguisher, schema.name, { userName: state.user.name, info });

    let run = req?.decision === 'execute';
    if (req && !run) run = await waitForTurn(ctx, queues, req, waitLimitMs(ctx, isWatch, requestTimeoutMs));
    // Upstream times the wait of every limited request, rejected at once ("false") or queued ("true", whatever came of it).
    if (!level.exempt) flow?.waitDuration[req ? 'true' : 'false'].observe((performance.now() - arrived) / 1000);

    if (!run || !req) {
      dropped.record(level.name);
      inFlight?.dropped(ctx);
      setClassificationHeaders(ctx, classification);
      tooManyRequests(ctx, String(dropped.retryAfter(level.name)));
      controller.requestEnded(level);
      return;
    }

    setClassificationHeaders(ctx, classification);
    queues.noteDispatched();
    flow?.dispatched.inc();
    const kind: InFlightKind = NON_MUTATING_VERBS.has(info.verb) ? 'nonMutating' : 'mutating';
    inFlight?.inFlight(kind, ++executing[kind]);
    const started = performance.now();
    let finished = false;
    const finish = () => {
      if (finished) return;
      finished = true;
      inFlight?.inFlight(kind, --executing[kind]);
      flow?.executionSeconds[isWatch ? 'watch' : 'regular'].observe((performance.now() - started) / 1000);
      queues.finish(req);
      controller.requestEnded(level);
    };

    if (isWatch) {
      // The watch handler signals when its initial events are out; a watch that ends or fails first releases here.
      expectWatchInitialization(ctx, finish);
      try {
        await next();
      } finally {
        finish();
      }
      return;
    }
    try {
      await next();
    } finally {
      // Seats are held until the handler is done and its response is over (a list body streams after next()).
      if (ctx.res.closed) finish();
      else ctx.res.once('close', finish);
    }
  };
}

/**
 * How long a request may wait for its turn (upstream's getRequestWaitContext): a quarter of its
 * deadline (--request-timeout, or the shorter `timeout` it asked for), a quarter of --request-timeout
 * for a watch, which has no deadline; a minute at most.
 */
function waitLimitMs(ctx: Context, isWatch: boolean, requestTimeoutMs: number): number {
  const deadline = isWatch ? requestTimeoutMs : requestDeadlineMs(queryParams(ctx).get('timeout'), requestTimeoutMs);
  return Math.min(deadline / 4, MAX_WAIT_MS);
}

/**
 * Waits for the level's decision: true to run. Past the wait limit, or when the client goes away,
 * the request leaves its queue (counted as rejected for time-out), unless it was dispatched meanwhile.
 */
function waitForTurn(ctx: Context, queues: QueueSet, req: FairRequest, limitMs: number): Promise<boolean> {
  return new Promise<boolean>((resolve) => {
    const giveUp = () => {
      cleanUp();
      resolve(!queues.cancelWaiting(req));
    };
    const timer = setTimeout(giveUp, limitMs);
    const cleanUp = () => {
      clearTimeout(timer);
      ctx.res.off('close', giveUp);
    };
    ctx.res.once('close', giveUp);
    void req.decided().then((decision) => {
      cleanUp();
      resolve(decision === 'execute');
    });
  });
}

function setClassificationHeaders(ctx: Context, c: Classification): void {
  ctx.set(PRIORITY_LEVEL_UID_HEADER, c.level.config.uid);
  ctx.set(FLOW_SCHEMA_UID_HEADER, c.schema.uid);
}
