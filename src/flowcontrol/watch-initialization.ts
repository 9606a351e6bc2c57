/**
 * How a watch tells API priority and fairness that it has started: upstream's filter holds a
 * watch's seats only until its initial events are sent, then releases them while the watch runs on.
 * The filter leaves a callback on the request's state; the watch handler calls watchInitialized.
 */
import type { Context } from 'koa';

const SIGNAL = Symbol('apf watch initialization');

interface SignalState {
  [SIGNAL]?: () => void;
}

/** Set by the filter for a watch it dispatched. */
export function expectWatchInitialization(ctx: Context, signal: () => void): void {
  (ctx.state as SignalState)[SIGNAL] = signal;
}

/** The watch has sent its initial events (or failed before it could): its seats may go. Idempotent. */
export function watchInitialized(ctx: Context): void {
  const state = ctx.state as SignalState;
  const signal = state[SIGNAL];
  if (!signal) return;
  state[SIGNAL] = undefined;
  signal();
}
