import { Http2ServerResponse } from 'node:http2';

/**
 * Node's HTTP/2 compatibility response, with the `closed` and `destroyed` of HTTP/1's: the request
 * path asks `res.closed` before waiting for 'close' (which a stream the client already reset has
 * fired), to release in-flight seats and finish metrics and audit records. Node 20's has neither
 * (@types/node declares them, hence the accessors defined below rather than in the class body), so
 * over HTTP/2 they were always undefined and such a release would never come.
 */
export class Http2Response extends Http2ServerResponse {}

Object.defineProperties(Http2Response.prototype, {
  closed: {
    get(this: Http2ServerResponse): boolean {
      return this.stream.closed || this.stream.destroyed;
    },
  },
  destroyed: {
    get(this: Http2ServerResponse): boolean {
      return this.stream.destroyed;
    },
  },
});
