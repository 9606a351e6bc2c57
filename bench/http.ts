import https from 'node:https';

export interface BenchReply {
  readonly status: number;
  readonly text: string;
}

/**
 * A lean HTTPS request for load generation: the body is collected as text and not parsed, so the
 * client spends as little CPU as possible on the machine it shares with the server.
 */
export function send(url: URL, agent: https.Agent, method = 'GET', body?: string, extraHeaders: Record<string, string> = {}): Promise<BenchReply> {
  return new Promise((resolve, reject) => {
    const headers: Record<string, string | number> = { Accept: 'application/json', ...extraHeaders };
    if (body !== undefined) {
      headers['Content-Type'] ??= 'application/json';
      headers['Content-Length'] = Buffer.byteLength(body);
    }
    const req = https.request(url, { method, agent, headers }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, text: Buffer.concat(chunks).toString('utf8') }));
      res.on('error', reject);
    });
    req.on('error', reject);
    if (body !== undefined) req.write(body);
    req.end();
  });
}

/** Like send, but fails unless the status is the expected one. */
export async function expect(status: number, url: URL, agent: https.Agent, method = 'GET', body?: string, extraHeaders: Record<string, string> = {}): Promise<BenchReply> {
  const reply = await send(url, agent, method, body, extraHeaders);
  if (reply.status !== status) throw new Error(`${method} ${url.pathname}${url.search}: expected ${status}, got ${reply.status}: ${reply.text.slice(0, 500)}`);
  return reply;
}
