import type { Logger } from 'pino';

export interface StopSignalHandlers {
  readonly logger: Logger;
  /** The first SIGTERM or SIGINT. */
  graceful(): void;
  /** A later one, once the duplicates of the first are past: the operator insists. */
  immediate(): void;
}

/**
 * One signal is usually delivered more than once: `npm start` passes SIGTERM and SIGINT on to the
 * server, and a terminal's Ctrl-C (or `kill -- -<pgid>`) reaches npm and the server alike. Repeats
 * within this window count as the same request to stop.
 */
const DUPLICATE_WINDOW_MS = 1000;

/** SIGTERM/SIGINT: a graceful stop; a repeat after the duplicate window exits at once, as kube-apiserver does. */
export function onStopSignals(handlers: StopSignalHandlers): void {
  let first: number | undefined;
  const onSignal = (signal: NodeJS.Signals) => {
    const now = Date.now();
    if (first === undefined) {
      first = now;
      handlers.logger.info({ signal }, 'shutting down');
      handlers.graceful();
    } else if (now - first > DUPLICATE_WINDOW_MS) {
      handlers.logger.warn({ signal }, 'second signal: exiting now');
      handlers.immediate();
    }
  };
  process.on('SIGTERM', onSignal);
  process.on('SIGINT', onSignal);
}
