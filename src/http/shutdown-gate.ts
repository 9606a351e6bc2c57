import { setMaxListeners } from 'node:events';
import type { Context, Next } from 'koa';
import { serviceUnavailable, tooManyRequests } from '../api/errors.ts';
import { closeConnectionAfter } from './connection-close.ts';
import type { ApiState } from './scope.ts';

/** Health probes and metrics are still answered while the server drains (load balancers watch them). */
const EXEMPT_PREFIXES = ['/readyz', '/livez', '/healthz', '/metrics'];

export interface ShutdownGateOptions {
  /**
   * `--shutdown-send-retry-after`: keep listening while draining and answer new requests with 429
   * and `Retry-After: 5` (the client retries, likely on another replica), instead of closing the
   * listener so that new connections are refused.
   */
  readonly sendRetryAfter: boolean;
}

/**
 * The server's side of graceful termination, as kube-apiserver does it: counts the requests in
 * flight (watches apart), and once `stopAccepting()` is called answers every new request with an
 * error that tells the client to retry elsewhere, ends every watch, and marks every response
 * `Connection: close` so that kept-alive connections end with the response they carry (over HTTP/2:
 * GOAWAY on the session).
 */
export class ShutdownGate {
  readonly #options: ShutdownGateOptions;
  readonly #watchTermination = new AbortController();
  #inFlight = 0;
  #idle: (() => void)[] = [];

  constructor(options: ShutdownGateOptions) {
    this.#options = options;
    // Every open watch listens for the termination (and stops listening when it ends): thousands of
    // listeners are the design, not a leak, and Node would warn of one past ten.
    setMaxListeners(0, this.#watchTermination.signal);
  }

  get accepting(): boolean {
    return !this.#watchTermination.signal.aborted;
  }

  /** Aborted when draining starts: every watch ends then (watches that start later are refused). */
  get watchTermination(): AbortSignal {
    return this.#watchTermination.signal;
  }

  get inFlight(): number {
    return this.#inFlight;
  }

  stopAccepting(): void {
    this.#watchTermination.abort();
  }

  /** Resolves once no counted request is in flight. */
  drained(): Promise<void> {
    if (this.#inFlight === 0) return Promise.resolve();
    return new Promise((resolve) => this.#idle.push(resolve));
  }

  middleware() {
    const gate = this;
    return async function shutdownGate(ctx: Context, next: Next): Promise<void> {
      if (!gate.accepting) {
        closeConnectionAfter(ctx);
        if (!EXEMPT_PREFIXES.some((p) => ctx.path.startsWith(p))) throw gate.#rejection();
        return next();
      }
      if ((ctx.state as ApiState).requestInfo.verb === 'watch') return next();
      gate.#inFlight++;
      // A request is in flight until its response is over: a streamed list body is still being
      // written after the handler returned. 'close' comes then, or when the connection goes.
      ctx.res.once('close', () => {
        if (--gate.#inFlight === 0) for (const resolve of gate.#idle.splice(0)) resolve();
      });
      try {
        await next();
      } finally {
        // A request that began before draining was its connection's last.
        if (!gate.accepting && !ctx.headerSent) closeConnectionAfter(ctx);
      }
    };
  }

  #rejection() {
    if (this.#options.sendRetryAfter) return tooManyRequests('The apiserver is shutting down, please try again later.', 5);
    const err = serviceUnavailable('apiserver is shutting down');
    err.status.details = { retryAfterSeconds: 1 };
    return err;
  }
}
