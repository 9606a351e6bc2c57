import type { Http2SecureServer, ServerHttp2Session } from 'node:http2';
import type { TLSSocket } from 'node:tls';

/**
 * The connections of the server, over both protocols it speaks on its one TLS port: HTTP/1.1
 * connections (Node's HTTP/1 machinery tracks those itself, for idle closing) and HTTP/2 sessions,
 * which Node leaves to the application. Graceful stop and the HTTP/2 idle timeout work through this.
 */
export class ServedConnections {
  readonly #server: Http2SecureServer;
  readonly #sockets = new Set<TLSSocket>();
  /** Each HTTP/2 session and the streams open on it. */
  readonly #sessions = new Map<ServerHttp2Session, { streams: number }>();
  readonly #idleTimeoutMs: number;

  constructor(server: Http2SecureServer, options: { idleTimeoutMs: number }) {
    this.#server = server;
    this.#idleTimeoutMs = options.idleTimeoutMs;
    server.on('secureConnection', (socket: TLSSocket) => {
      this.#sockets.add(socket);
      socket.once('close', () => this.#sockets.delete(socket));
    });
    server.on('session', (session: ServerHttp2Session) => this.#track(session));
  }

  /** Open HTTP/2 sessions (for tests and diagnostics). */
  get sessions(): readonly ServerHttp2Session[] {
    return [...this.#sessions.keys()];
  }

  /**
   * GOAWAY to every HTTP/2 session: no new streams on it, those under way finish, then it closes
   * (the client opens a new connection for its next request, as Go's graceful shutdown makes it do).
   */
  goAway(): void {
    for (const session of this.#sessions.keys()) if (!session.closed && !session.destroyed) session.close();
  }

  /** Closes HTTP/1.1 connections between requests, and HTTP/2 sessions with no stream open. */
  closeIdle(): void {
    // With allowHTTP1 Node's HTTP/1 machinery tracks those connections; @types/node omits the method.
    (this.#server as unknown as { closeIdleConnections(): void }).closeIdleConnections();
    for (const [session, state] of this.#sessions) if (state.streams === 0 && !session.closed) session.close();
  }

  /** Destroys every connection, whatever it carries (the end of a stop, or of a failed start). */
  closeAll(): void {
    for (const session of this.#sessions.keys()) session.destroy();
    for (const socket of this.#sockets) socket.destroy();
  }

  /**
   * Counts the session's streams, and gives it upstream's idle timeout: with no stream open for that
   * long it is sent GOAWAY and closed. (Node's own session timeout counts frames, so it would end a
   * quiet watch.)
   */
  #track(session: ServerHttp2Session): void {
    const state = { streams: 0 };
    this.#sessions.set(session, state);
    // A broken session (the client vanished, a protocol error) is its own business, never the process's.
    session.on('error', () => undefined);
    let timer: NodeJS.Timeout | undefined;
    const arm = () => {
      timer = setTimeout(() => session.close(), this.#idleTimeoutMs);
      timer.unref();
    };
    arm();
    session.on('stream', (stream) => {
      state.streams++;
      clearTimeout(timer);
      stream.once('close', () => {
        if (--state.streams === 0 && !session.closed && !session.destroyed) arm();
      });
    });
    session.once('close', () => {
      clearTimeout(timer);
      this.#sessions.delete(session);
    });
  }
}
