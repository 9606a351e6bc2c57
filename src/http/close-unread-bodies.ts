import type { IncomingMessage } from 'node:http';
import type { Context, Next } from 'koa';
import { endStreamAfterResponse, isHttp2 } from './connection-close.ts';

/**
 * How long an answer given before its request's body arrived waits for the rest of the body. A
 * client that sends its head and body in two writes has the body there within this; one that
 * trickles does not.
 */
const BODY_GRACE_MS = 100;

/**
 * A response that goes out before its request's body has arrived (an early 401, 403, 413, 415, 404;
 * a 504 while the body still trickles in) ends its connection: `Connection: close`, and Node closes
 * the socket once the response is written. Without it Node keeps the connection to read and discard
 * the rest of the body, so a client that sends one byte now and then holds a connection (and its
 * memory) for as long as it likes. A body that arrives whole within a moment, read or not, leaves
 * the connection kept alive. Over HTTP/2 the same answer resets only its own stream once written
 * (the connection carries other requests; HTTP/2 has no `Connection` header).
 */
export function closeUnreadBodies() {
  return async function closeUnreadBody(ctx: Context, next: Next): Promise<void> {
    try {
      await next();
    } finally {
      if (ctx.respond !== false && !ctx.headerSent && !ctx.req.complete && !(await arrivesSoon(ctx.req, BODY_GRACE_MS))) {
        if (isHttp2(ctx.req)) endStreamAfterResponse(ctx.req);
        else ctx.set('Connection', 'close');
      }
    }
  };
}

/** Discards the rest of the body (the answer does not need it); true if it ends within `ms`. */
function arrivesSoon(req: IncomingMessage, ms: number): Promise<boolean> {
  return new Promise((resolve) => {
    const done = (arrived: boolean) => {
      clearTimeout(timer);
      req.off('end', onEnd);
      req.off('close', onClose);
      resolve(arrived);
    };
    const onEnd = () => done(true);
    const onClose = () => done(req.complete);
    const timer = setTimeout(() => done(false), ms);
    req.once('end', onEnd);
    req.once('close', onClose);
    // Without a reader nothing flows, and a body past the stream's buffer would never complete.
    // (A handler still reading it keeps reading: resume() does nothing beside a 'readable' listener.)
    req.resume();
  });
}
