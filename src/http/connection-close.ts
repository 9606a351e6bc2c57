import { constants, type Http2ServerRequest } from 'node:http2';
import type { IncomingMessage } from 'node:http';
import type { Context } from 'koa';

/** Whether the request came over HTTP/2 (Node's compatibility API then stands in for HTTP/1's objects). */
export function isHttp2(req: IncomingMessage | Http2ServerRequest): req is Http2ServerRequest {
  return req.httpVersionMajor >= 2;
}

/**
 * Makes this response its connection's last, as `Connection: close` does and as Go's server reads
 * that header on HTTP/2 (which forbids it on the wire): over HTTP/1.1 the header, over HTTP/2 a
 * GOAWAY on the session, whose other streams under way still finish.
 */
export function closeConnectionAfter(ctx: Context): void {
  const req = ctx.req as IncomingMessage | Http2ServerRequest;
  if (!isHttp2(req)) {
    ctx.set('Connection', 'close');
    return;
  }
  const session = req.stream.session;
  if (session && !session.closed && !session.destroyed) session.close();
}

/**
 * Over HTTP/2: GOAWAY on the request's session once its response is over (the stream closed), so
 * that the answer goes out in full before the client hears it should reconnect.
 */
export function goAwayAfterResponse(ctx: Context): void {
  const req = ctx.req as IncomingMessage | Http2ServerRequest;
  if (!isHttp2(req)) return;
  // Taken now: a closed stream no longer knows its session.
  const session = req.stream.session;
  if (!session) return;
  ctx.res.once('close', () => {
    if (!session.closed && !session.destroyed) session.close();
  });
}

/**
 * Over HTTP/2, the answer to a request whose body has not all arrived ends its stream once written:
 * RST_STREAM with NO_ERROR, which RFC 9113 (8.1) names for a complete response sent before the
 * request's end. The session and its other streams go on. (HTTP/1.1 closes the connection instead.)
 */
export function endStreamAfterResponse(req: Http2ServerRequest): void {
  const stream = req.stream;
  if (stream.closed || stream.destroyed) return;
  const reset = () => {
    if (!stream.closed && !stream.destroyed) stream.close(constants.NGHTTP2_NO_ERROR);
  };
  if (stream.writableFinished) reset();
  else stream.once('finish', reset);
}
