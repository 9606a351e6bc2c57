/**
 * gzip for answers (the APIResponseCompression gate), as upstream decides it: only when the client's
 * Accept-Encoding names `gzip` and the answer is larger than 128 KiB, at compression
 * level 1. client-go asks for gzip on every request; compressing a 2 KiB object costs more CPU than
 * it saves on the wire, which is why upstream leaves small answers plain.
 *
 * A streamed answer (a whole list written as it is read) is held until it passes the threshold or
 * ends: past it, the held bytes and the rest go through gzip; ended below it, they go out plain. The
 * headers are still unsent while it is held, so the choice can still be announced.
 */
import { pipeline, Readable, Transform, type TransformCallback } from 'node:stream';
import { promisify } from 'node:util';
import zlib from 'node:zlib';
import type { Context, Next } from 'koa';

/** Answers at most this long stay plain (upstream's defaultGzipThresholdBytes). */
export const GZIP_THRESHOLD_BYTES = 128 * 1024;
const GZIP_OPTIONS: zlib.ZlibOptions = { level: 1 };
const gzip = promisify(zlib.gzip);

/** Upstream's negotiation: a comma-separated token that is exactly `gzip` (parameters not read). */
export function acceptsGzip(header: string | undefined): boolean {
  if (!header) return false;
  for (const token of header.split(',')) if (token.trim() === 'gzip') return true;
  return false;
}

/** Upstream sets both when it compresses, and neither when it does not. */
function announceGzip(ctx: Context): void {
  ctx.set('Content-Encoding', 'gzip');
  ctx.vary('Accept-Encoding');
}

/** `compressible` says which requests' answers may be gzipped (decided before they are served). */
export function compressResponses(compressible: (ctx: Context) => boolean) {
  return async function compressLargeResponses(ctx: Context, next: Next): Promise<void> {
    if (!acceptsGzip(ctx.get('Accept-Encoding')) || !compressible(ctx)) return next();
    await next();
    const body: unknown = ctx.body;
    if (body === null || body === undefined || ctx.method === 'HEAD' || ctx.status === 204 || ctx.status === 304) return;
    if (ctx.response.get('Content-Encoding')) return;
    if (Buffer.isBuffer(body) || typeof body === 'string') {
      const bytes = Buffer.isBuffer(body) ? body : Buffer.from(body, 'utf8');
      if (bytes.length <= GZIP_THRESHOLD_BYTES) return;
      // The Content-Type stays as set: koa infers one for a new body only when there is none.
      ctx.body = await gzip(bytes, GZIP_OPTIONS);
      announceGzip(ctx);
      return;
    }
    if (body instanceof Readable) {
      ctx.remove('Content-Length');
      // pipeline, not pipe: a source or a gzip that fails half-way fails the other too; the answer is
      // then cut off, as a list that fails while it is written is (too late for a Status).
      ctx.body = pipeline(body, new GzipPastThreshold(ctx), (err) => {
        if (err) ctx.res.destroy();
      });
    }
  };
}

/** Holds a stream's first bytes until they pass the threshold (then gzip) or the stream ends (plain). */
class GzipPastThreshold extends Transform {
  readonly #ctx: Context;
  #held: Buffer[] = [];
  #heldBytes = 0;
  #gzip: zlib.Gzip | undefined;

  constructor(ctx: Context) {
    super();
    this.#ctx = ctx;
  }

  override _transform(chunk: Buffer | string, _enc: BufferEncoding, done: TransformCallback): void {
    const bytes = typeof chunk === 'string' ? Buffer.from(chunk, 'utf8') : chunk;
    if (this.#gzip) {
      this.#gzip.write(bytes, () => done());
      return;
    }
    this.#held.push(bytes);
    this.#heldBytes += bytes.length;
    if (this.#heldBytes <= GZIP_THRESHOLD_BYTES) return done();
    announceGzip(this.#ctx);
    const z = (this.#gzip = zlib.createGzip(GZIP_OPTIONS));
    z.on('data', (c: Buffer) => this.push(c));
    z.on('error', (err) => this.destroy(err));
    const held = Buffer.concat(this.#held);
    this.#held = [];
    z.write(held, () => done());
  }

  override _flush(done: TransformCallback): void {
    if (!this.#gzip) {
      if (this.#heldBytes > 0) this.push(Buffer.concat(this.#held));
      this.#held = [];
      return done();
    }
    this.#gzip.once('end', () => done());
    this.#gzip.end();
  }

  override _destroy(err: Error | null, done: (err: Error | null) => void): void {
    this.#gzip?.destroy();
    done(err);
  }
}
