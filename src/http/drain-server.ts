import type { Http2SecureServer } from 'node:http2';
import type { Logger } from 'pino';
import type { ServedConnections } from './connections.ts';
import type { ShutdownGate } from './shutdown-gate.ts';

export interface DrainOptions {
  readonly server: Http2SecureServer;
  /** The server's HTTP/1.1 connections and HTTP/2 sessions. */
  readonly connections: ServedConnections;
  readonly gate: ShutdownGate;
  readonly sendRetryAfter: boolean;
  /** Longest wait for requests in flight (`--shutdown-timeout`). */
  readonly timeoutMs: number;
  readonly logger: Logger;
}

/** How long open connections get to finish their last response once everything has drained. */
const CONNECTION_GRACE_MS = 2_000;

/**
 * The HTTP half of graceful termination, after `--shutdown-delay-duration`: refuse new requests and
 * end watches (the gate), stop listening (at once, or with `--shutdown-send-retry-after` only after
 * the requests in flight are done, answering 429 meanwhile), wait for the requests in flight, and
 * close every connection. Kept-alive connections are closed as soon as they fall idle, so no client
 * can slip new requests in after its last response. HTTP/2 sessions get GOAWAY when the listener
 * closes: their streams under way finish (watches have just been ended), new ones go elsewhere.
 */
export async function drainServer(options: DrainOptions): Promise<void> {
  const { server, connections, gate, logger } = options;
  gate.stopAccepting();
  let closed: Promise<void> | undefined;
  const stopListening = () =>
    (closed ??= new Promise<void>((resolve) => {
      server.close(() => resolve());
      connections.goAway();
    }));
  // With the listener closed, a connection that falls idle (a kept-alive one whose watch just ended)
  // can only bring requests that would be refused: close it. With retry-after, idle connections stay
  // until the listener closes, and their next request learns to go elsewhere from the 429.
  let sweeper: NodeJS.Timeout | undefined;
  if (!options.sendRetryAfter) {
    stopListening();
    sweeper = setInterval(() => connections.closeIdle(), 100);
  }
  let timer: NodeJS.Timeout | undefined;
  const deadline = new Promise<'timeout'>((resolve) => (timer = setTimeout(() => resolve('timeout'), options.timeoutMs)));
  if ((await Promise.race([gate.drained().then(() => 'drained' as const), deadline])) === 'timeout') {
    logger.warn({ inFlight: gate.inFlight }, 'requests still in flight at the shutdown timeout; closing their connections');
  }
  clearTimeout(timer);
  stopListening();
  const grace = new Promise<void>((resolve) => (timer = setTimeout(resolve, CONNECTION_GRACE_MS)));
  await Promise.race([stopListening(), grace]);
  clearTimeout(timer);
  clearInterval(sweeper);
  connections.closeAll();
  await stopListening();
}
