import https from 'node:https';

export interface Reply {
  readonly status: number;
  readonly headers: Record<string, string | string[] | undefined>;
  readonly text: string;
  /** The body as it came (binary formats). */
  readonly bytes: Buffer;
  /** The body parsed as JSON (undefined when it is not JSON). */
  readonly json: any;
}

export interface RequestOptions {
  readonly method?: string;
  readonly body?: unknown;
  readonly headers?: Record<string, string>;
  readonly agent: https.Agent;
}

/** One HTTPS request to the test server; objects are sent as JSON unless a string or Buffer is given. */
export function request(base: string, path: string, options: RequestOptions): Promise<Reply> {
  const url = new URL(path, base);
  const body =
    options.body === undefined ? undefined : typeof options.body === 'string' || Buffer.isBuffer(options.body) ? options.body : JSON.stringify(options.body);
  // Content-Length always: Node sends DELETE bodies neither chunked nor sized otherwise.
  const sized: Record<string, string> =
    body !== undefined ? { 'Content-Type': 'application/json', 'Content-Length': String(Buffer.byteLength(body)) } : {};
  const headers: Record<string, string> = { ...sized, ...options.headers };
  return new Promise((resolve, reject) => {
    const req = https.request(url, { method: options.method ?? 'GET', agent: options.agent, headers }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => {
        const bytes = Buffer.concat(chunks);
        const text = bytes.toString('utf8');
        let json: unknown;
        try {
          json = JSON.parse(text);
        } catch {
          json = undefined;
        }
        resolve({ status: res.statusCode ?? 0, headers: res.headers, text, bytes, json });
      });
      res.on('error', reject);
    });
    req.on('error', reject);
    if (body !== undefined) req.write(body);
    req.end();
  });
}

/** A client bound to one server and identity. */
export function client(base: string, agent: https.Agent) {
  return {
    get: (path: string, headers?: Record<string, string>) => request(base, path, { agent, headers }),
    post: (path: string, body: unknown, headers?: Record<string, string>) => request(base, path, { method: 'POST', body, agent, headers }),
    put: (path: string, body: unknown, headers?: Record<string, string>) => request(base, path, { method: 'PUT', body, agent, headers }),
    patch: (path: string, body: unknown, contentType: string) =>
      request(base, path, { method: 'PATCH', body, agent, headers: { 'Content-Type': contentType } }),
    delete: (path: string, body?: unknown, headers?: Record<string, string>) => request(base, path, { method: 'DELETE', body, agent, headers }),
  };
}
