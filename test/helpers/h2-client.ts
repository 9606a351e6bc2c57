import http2 from 'node:http2';

/** An HTTP/2 session to the test server (node:http2, no agent in between), with or without a client certificate; resolves once the server's SETTINGS arrived. */
export function connectH2(url: string, tls: { ca: string; cert?: string; key?: string }): Promise<http2.ClientHttp2Session> {
  return new Promise((resolve, reject) => {
    const session = http2.connect(url, tls);
    // Resolved once the server's SETTINGS arrived (its limits are known then).
    session.once('remoteSettings', () => {
      session.off('error', reject);
      // A session the server ends (GOAWAY at stop) must not crash the test process.
      session.on('error', () => undefined);
      resolve(session);
    });
    session.once('error', reject);
  });
}

export interface H2Reply {
  readonly status: number;
  readonly headers: http2.IncomingHttpHeaders;
  readonly text: string;
  readonly json: any;
  /** The RST_STREAM code the stream closed with (0, NO_ERROR, after a normal end). */
  readonly rstCode: number;
}

/** One request as one stream on `session`; objects are sent as JSON. */
export function h2request(
  session: http2.ClientHttp2Session,
  path: string,
  options: { method?: string; body?: unknown; headers?: Record<string, string | undefined> } = {},
): Promise<H2Reply> {
  const body = options.body === undefined ? undefined : typeof options.body === 'string' || Buffer.isBuffer(options.body) ? options.body : JSON.stringify(options.body);
  const headers: http2.OutgoingHttpHeaders = {
    ':method': options.method ?? 'GET',
    ':path': path,
    accept: 'application/json',
    ...(body !== undefined ? { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) } : {}),
    ...options.headers,
  };
  // A header given as undefined is left out (a body without Content-Length).
  for (const [name, value] of Object.entries(headers)) if (value === undefined) delete headers[name];
  return new Promise((resolve, reject) => {
    const stream = session.request(headers, { endStream: body === undefined });
    let status = 0;
    let responseHeaders: http2.IncomingHttpHeaders = {};
    const chunks: Buffer[] = [];
    stream.on('response', (h) => {
      status = Number(h[':status']);
      responseHeaders = h;
    });
    stream.on('data', (c: Buffer) => chunks.push(c));
    stream.on('error', reject);
    stream.on('close', () => {
      if (status === 0) return reject(new Error(`stream closed without a response (RST code ${stream.rstCode})`));
      const text = Buffer.concat(chunks).toString('utf8');
      let json: unknown;
      try {
        json = JSON.parse(text);
      } catch {
        json = undefined;
      }
      resolve({ status, headers: responseHeaders, text, json, rstCode: stream.rstCode });
    });
    if (body !== undefined) stream.end(body);
  });
}

/** A watch as one stream: its events as they come, and whether it ended normally. */
export interface H2Watch {
  readonly stream: http2.ClientHttp2Stream;
  readonly events: { type: string; object: any }[];
  /** Resolves with the response status once the head arrived. */
  readonly opened: Promise<number>;
  /** Resolves when the stream closes: `ended` when the server finished the response (END_STREAM). */
  readonly closed: Promise<{ ended: boolean; rstCode: number }>;
}

export function h2watch(session: http2.ClientHttp2Session, path: string): H2Watch {
  const stream = session.request({ ':path': path, accept: 'application/json' });
  const events: { type: string; object: any }[] = [];
  let ended = false;
  let buffer = '';
  stream.setEncoding('utf8');
  stream.on('data', (chunk: string) => {
    buffer += chunk;
    let nl: number;
    while ((nl = buffer.indexOf('\n')) >= 0) {
      const line = buffer.slice(0, nl);
      buffer = buffer.slice(nl + 1);
      if (line.trim()) events.push(JSON.parse(line));
    }
  });
  stream.on('end', () => (ended = true));
  stream.on('error', () => undefined);
  const opened = new Promise<number>((resolve, reject) => {
    stream.once('response', (h) => resolve(Number(h[':status'])));
    stream.once('close', () => reject(new Error(`watch closed before its head (RST code ${stream.rstCode})`)));
  });
  opened.catch(() => undefined);
  const closed = new Promise<{ ended: boolean; rstCode: number }>((resolve) => stream.once('close', () => resolve({ ended, rstCode: stream.rstCode })));
  return { stream, events, opened, closed };
}
