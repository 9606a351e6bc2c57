import http2 from 'node:http2';
import type { BenchReply } from './http.ts';

/**
 * HTTP/2 request-response for the bench's get and create clients (BENCH_HTTP=2): a few TLS sessions shared by all
 * clients, requests spread round-robin, as client-go multiplexes its requests over one connection per
 * host. The body is collected as text and not parsed, like http.ts's send.
 */
/** Sessions of the get and create clients: a few, as a handful of client-go processes would hold. */
export const H2_SESSIONS = 4;

export class Http2Sessions {
  readonly #sessions: http2.ClientHttp2Session[];
  #next = 0;

  constructor(origin: string, tls: { ca: string; cert?: string; key?: string }, count = 4) {
    this.#sessions = Array.from({ length: count }, () => {
      const s = http2.connect(origin, { ca: tls.ca, ...(tls.cert ? { cert: tls.cert, key: tls.key } : {}) });
      s.on('error', () => undefined);
      return s;
    });
  }

  request(path: string, method = 'GET', body?: string, extraHeaders: Record<string, string> = {}): Promise<BenchReply> {
    const session = this.#sessions[this.#next++ % this.#sessions.length];
    return new Promise((resolve, reject) => {
      const headers: http2.OutgoingHttpHeaders = { ':method': method, ':path': path, accept: 'application/json', ...extraHeaders };
      if (body !== undefined) headers['content-type'] ??= 'application/json';
      const req = session.request(headers, { endStream: body === undefined });
      let status = 0;
      const chunks: Buffer[] = [];
      req.on('response', (h) => (status = Number(h[':status'])));
      req.on('data', (c: Buffer) => chunks.push(c));
      req.on('end', () => resolve({ status, text: Buffer.concat(chunks).toString('utf8') }));
      req.on('error', reject);
      if (body !== undefined) req.end(body);
    });
  }

  /** Fails unless the status is the expected one. */
  async expect(status: number, path: string, method = 'GET', body?: string): Promise<BenchReply> {
    const reply = await this.request(path, method, body);
    if (reply.status !== status) throw new Error(`${method} ${path} over HTTP/2: expected ${status}, got ${reply.status}: ${reply.text.slice(0, 300)}`);
    return reply;
  }

  close(): void {
    for (const s of this.#sessions) s.close();
  }
}
