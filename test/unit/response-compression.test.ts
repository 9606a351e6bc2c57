// Which answers are gzipped: upstream's Accept-Encoding token match and its 128 KiB threshold, for a
// buffered body and for one streamed as it is read (held until the threshold or the end).
import assert from 'node:assert/strict';
import { once } from 'node:events';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { Readable } from 'node:stream';
import { test } from 'node:test';
import { gunzipSync } from 'node:zlib';
import Koa from 'koa';
import { acceptsGzip, compressResponses, GZIP_THRESHOLD_BYTES } from '../../src/http/response-compression.ts';

test('Accept-Encoding: a token that is exactly gzip', () => {
  assert.equal(acceptsGzip('gzip'), true);
  assert.equal(acceptsGzip('deflate, gzip'), true);
  assert.equal(acceptsGzip(' gzip ,br'), true);
  assert.equal(acceptsGzip(undefined), false);
  assert.equal(acceptsGzip(''), false);
  assert.equal(acceptsGzip('br, deflate'), false);
  assert.equal(acceptsGzip('x-gzip'), false);
  // Upstream compares whole tokens: a token with parameters is not `gzip`.
  assert.equal(acceptsGzip('gzip;q=1.0'), false);
});

/** Serves `body()` through the middleware, as an answer it may compress unless `compressible` is false; returns the raw answer. */
async function answer(body: () => unknown, opts: { compressible?: boolean; acceptEncoding?: string } = {}) {
  const app = new Koa();
  app.silent = true; // the failing stream's error is expected
  app.use(compressResponses(() => opts.compressible ?? true));
  app.use(async (ctx) => {
    ctx.type = 'application/json';
    ctx.body = body();
  });
  const server = http.createServer(app.callback()).listen(0, '127.0.0.1');
  await once(server, 'listening');
  try {
    const { port } = server.address() as AddressInfo;
    return await new Promise<{ headers: http.IncomingHttpHeaders; body: Buffer }>((resolve, reject) => {
      http
        .get({ port, host: '127.0.0.1', path: '/', headers: { 'Accept-Encoding': opts.acceptEncoding ?? 'gzip' } }, (res) => {
          const chunks: Buffer[] = [];
          res.on('data', (c: Buffer) => chunks.push(c));
          res.on('end', () => resolve({ headers: res.headers, body: Buffer.concat(chunks) }));
          res.on('error', reject);
        })
        .on('error', reject);
    });
  } finally {
    server.close();
  }
}

const text = (n: number) => 'a'.repeat(n);
/** A stream of `n` bytes in chunks of 1000, each on its own turn, as a list is read in batches. */
function streamOf(n: number): Readable {
  let left = n;
  return new Readable({
    read() {
      setImmediate(() => {
        const size = Math.min(1000, left);
        left -= size;
        this.push(size > 0 ? text(size) : null);
      });
    },
  });
}

for (const [label, make] of [
  ['buffered', (n: number) => Buffer.from(text(n))],
  ['string', (n: number) => text(n)],
  ['streamed', streamOf],
] as const) {
  test(`${label}: up to 128 KiB stays plain, past it is gzipped`, async () => {
    const small = await answer(() => make(GZIP_THRESHOLD_BYTES));
    assert.equal(small.headers['content-encoding'], undefined);
    assert.equal(small.headers.vary, undefined);
    assert.equal(small.body.toString(), text(GZIP_THRESHOLD_BYTES));

    const large = await answer(() => make(GZIP_THRESHOLD_BYTES + 1));
    assert.equal(large.headers['content-encoding'], 'gzip');
    assert.equal(large.headers.vary, 'Accept-Encoding');
    assert.equal(large.headers['content-type'], 'application/json; charset=utf-8');
    assert.equal(gunzipSync(large.body).toString(), text(GZIP_THRESHOLD_BYTES + 1));
    assert.ok(large.body.length < 2000, `${large.body.length} bytes`);
  });
}

test('not for a client that does not ask, nor for a request the predicate leaves out', async () => {
  const big = () => Buffer.from(text(GZIP_THRESHOLD_BYTES * 2));
  assert.equal((await answer(big, { acceptEncoding: 'identity' })).headers['content-encoding'], undefined);
  assert.equal((await answer(big, { compressible: false })).headers['content-encoding'], undefined);
  assert.equal((await answer(big, { compressible: true })).headers['content-encoding'], 'gzip');
});

test('a stream that fails half-way ends the answer instead of hanging it', async () => {
  const failing = () => {
    let sent = 0;
    return new Readable({
      read() {
        setImmediate(() => {
          if (sent >= GZIP_THRESHOLD_BYTES * 2) return this.destroy(new Error('read failed'));
          sent += 10000;
          this.push(text(10000));
        });
      },
    });
  };
  await assert.rejects(answer(failing), /aborted|socket hang up|ECONNRESET/);
});
