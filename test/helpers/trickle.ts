import tls from 'node:tls';

export interface TrickleOptions {
  /** Client certificate and key (omit both for an anonymous request). */
  readonly cert?: string;
  readonly key?: string;
  readonly ca: string;
  readonly method?: string;
  readonly path: string;
  /** The Content-Length the request declares. */
  readonly contentLength: number;
  /** Bytes sent with the head (the rest trickles). */
  readonly firstBytes?: string;
  /** One byte per this many ms, until the connection closes or `maxMs` passes. */
  readonly everyMs: number;
  readonly maxMs: number;
}

export interface TrickleResult {
  /** Status line and headers (lowercase names) of the answer, if one came. */
  readonly status?: number;
  readonly headers: Record<string, string>;
  readonly body: string;
  /** ms from the first byte sent to the answer's head, and to the connection's close. */
  readonly answeredMs?: number;
  readonly closedMs: number;
  /** Whether the client was still trickling when the server closed (it never stopped on its own). */
  readonly closedByServer: boolean;
}

/**
 * A slow client, over raw TLS so that nothing between the test and the server buffers or retries:
 * sends a request head that declares `contentLength` bytes, then one byte every `everyMs` ms, and
 * records when the answer came and when the server closed the connection.
 */
export function trickle(url: string, options: TrickleOptions): Promise<TrickleResult> {
  const { hostname, port } = new URL(url);
  return new Promise((resolve, reject) => {
    const started = performance.now();
    let raw = '';
    let answeredMs: number | undefined;
    let sent = options.firstBytes?.length ?? 0;
    let timer: NodeJS.Timeout | undefined;
    let gaveUp = false;
    const socket = tls.connect({ host: hostname, port: Number(port), ca: options.ca, cert: options.cert, key: options.key, servername: 'localhost' }, () => {
      socket.write(
        `${options.method ?? 'POST'} ${options.path} HTTP/1.1\r\nHost: ${hostname}\r\nContent-Type: application/json\r\n` +
          `Content-Length: ${options.contentLength}\r\n\r\n${options.firstBytes ?? ''}`,
      );
      timer = setInterval(() => {
        if (performance.now() - started > options.maxMs) {
          gaveUp = true;
          clearInterval(timer);
          socket.destroy();
          return;
        }
        if (sent < options.contentLength && socket.writable) {
          socket.write(' ');
          sent++;
        }
      }, options.everyMs);
    });
    socket.setEncoding('utf8');
    socket.on('data', (chunk: string) => {
      raw += chunk;
      if (answeredMs === undefined && raw.includes('\r\n\r\n')) answeredMs = performance.now() - started;
    });
    // A reset after the answer is still a close by the server (it may cut a client that keeps sending).
    socket.on('error', () => undefined);
    socket.on('close', () => {
      clearInterval(timer);
      const closedMs = performance.now() - started;
      const headEnd = raw.indexOf('\r\n\r\n');
      const head = headEnd >= 0 ? raw.slice(0, headEnd).split('\r\n') : [];
      const headers: Record<string, string> = {};
      for (const line of head.slice(1)) {
        const colon = line.indexOf(':');
        headers[line.slice(0, colon).toLowerCase()] = line.slice(colon + 1).trim();
      }
      const status = head[0] ? Number(head[0].split(' ')[1]) : undefined;
      resolve({ status, headers, body: headEnd >= 0 ? raw.slice(headEnd + 4) : '', answeredMs, closedMs, closedByServer: !gaveUp });
    });
    socket.once('error', (err) => {
      if (answeredMs === undefined && !gaveUp) reject(err);
    });
  });
}
