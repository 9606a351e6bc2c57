import type { Context } from 'koa';
import { badRequest, requestEntityTooLarge } from '../api/errors.ts';
import { noteRequestBody } from '../audit/auditor.ts';

/**
 * Reads the raw request body, refusing more than `limit` bytes with 413 (by Content-Length when it
 * is declared, by counting otherwise). Never buffers more than the limit.
 */
export async function readBody(ctx: Context, limit: number): Promise<Buffer> {
  const declared = ctx.get('content-length');
  if (declared && Number(declared) > limit) {
    ctx.req.resume();
    throw requestEntityTooLarge(limit);
  }
  const chunks: Buffer[] = [];
  let size = 0;
  try {
    for await (const chunk of ctx.req) {
      const buf = chunk as Buffer;
      size += buf.length;
      if (size > limit) {
        ctx.req.resume();
        throw requestEntityTooLarge(limit);
      }
      chunks.push(buf);
    }
  } catch (err) {
    if ((err as { status?: unknown }).status !== undefined || (err as Error).name === 'ApiError') throw err;
    throw badRequest(`error reading the request body: ${(err as Error).message}`);
  }
  const body = chunks.length === 1 ? chunks[0] : Buffer.concat(chunks);
  // An audited request's event carries the body (requestObject) and the name it gives (objectRef).
  noteRequestBody(ctx, body);
  return body;
}
