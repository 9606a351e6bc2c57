import http2 from 'node:http2';
import type { AddressInfo } from 'node:net';
import type { RequestListener } from 'node:http';
import type { Closers } from '../closers.ts';
import type { Config } from '../config.ts';
import { ServedConnections } from '../http/connections.ts';
import { Http2Response } from '../http/http2-response.ts';
import { StartupError } from '../startup-error.ts';

export interface ServingCertificates {
  readonly cert: string;
  readonly key: string;
  /** Client certificates are verified against these CAs (a bad one is a 401, not a failed handshake). */
  readonly clientCa: string;
}

export interface Listening {
  /** HTTP/2 (ALPN `h2`) and HTTP/1.1 on one TLS port, as kube-apiserver serves. */
  readonly server: http2.Http2SecureServer;
  /** Its connections of both protocols (graceful stop closes them). */
  readonly connections: ServedConnections;
  readonly port: number;
  /** `https://host:port` for clients (a wildcard bind address is reached on loopback). */
  readonly url: string;
  /** `host:port`, as /api's serverAddressByClientCIDRs names it. */
  readonly address: string;
}

/** How long a connection may stay without a request (HTTP/1.1 keep-alive, an HTTP/2 session with no stream). */
const IDLE_TIMEOUT_MS = 65_000;

/**
 * Upstream's HTTP/2 sizes (secure_serving.go): at least 99% of serialized objects are under 256 KiB,
 * so one frame and one stream's receive window hold most request bodies, and the connection's window
 * is that times the streams allowed, so every stream can have its window full at once.
 */
const RESOURCE_BODY_99_PERCENTILE = 256 * 1024;
/** Upstream's streams per connection when --http2-max-streams-per-connection is 0 (what Go's clients assume). */
const DEFAULT_MAX_STREAMS = 100;

/** The HTTP/2 settings the server advertises, from --http2-max-streams-per-connection. */
export function http2Limits(maxStreamsFlag: number) {
  const maxConcurrentStreams = maxStreamsFlag > 0 ? maxStreamsFlag : DEFAULT_MAX_STREAMS;
  return {
    maxConcurrentStreams,
    maxFrameSize: RESOURCE_BODY_99_PERCENTILE,
    initialWindowSize: RESOURCE_BODY_99_PERCENTILE,
    connectionWindowSize: RESOURCE_BODY_99_PERCENTILE * maxConcurrentStreams,
  };
}

/** Start-up step: the TLS server on --bind-address:--secure-port, with clear errors for the usual failures. */
export async function listen(config: Config, tls: ServingCertificates, handler: RequestListener, closers: Closers): Promise<Listening> {
  const limits = http2Limits(config.http2MaxStreamsPerConnection);
  const server = http2.createSecureServer(
    {
      cert: tls.cert,
      key: tls.key,
      ca: tls.clientCa,
      requestCert: true,
      rejectUnauthorized: false,
      allowHTTP1: true,
      Http2ServerResponse: Http2Response,
      settings: { maxConcurrentStreams: limits.maxConcurrentStreams, maxFrameSize: limits.maxFrameSize, initialWindowSize: limits.initialWindowSize },
      // Node refuses new streams on a session past this (MB): room for every stream's receive window
      // and as much again of responses queued (watches), rather than Node's 10 MB.
      maxSessionMemory: Math.max(10, Math.ceil((2 * limits.connectionWindowSize) / (1024 * 1024))),
    },
    // The compatibility API hands koa objects shaped like HTTP/1's (see docs/architecture.md, "HTTP/2").
    handler as unknown as (req: http2.Http2ServerRequest, res: http2.Http2ServerResponse) => void,
  );
  // HTTP/1.1 connections are Node's HTTP/1 machinery's, which reads this from the server.
  (server as unknown as { keepAliveTimeout: number }).keepAliveTimeout = IDLE_TIMEOUT_MS;
  server.on('session', (session: http2.ServerHttp2Session) => {
    // The connection-level receive window is not a SETTINGS value: it is raised on each session.
    session.once('connect', () => session.setLocalWindowSize(limits.connectionWindowSize));
  });
  const connections = new ServedConnections(server, { idleTimeoutMs: IDLE_TIMEOUT_MS });
  await new Promise<void>((resolve, reject) => {
    server.once('error', (err: NodeJS.ErrnoException) => {
      const where = `${config.bindAddress}:${config.securePort}`;
      if (err.code === 'EADDRINUSE') reject(new StartupError(`cannot serve on ${where}: the port is already in use; stop what holds it or choose another with --secure-port`));
      else if (err.code === 'EACCES') reject(new StartupError(`cannot serve on ${where}: permission denied (ports below 1024 need privileges)`));
      else if (err.code === 'EADDRNOTAVAIL') reject(new StartupError(`cannot serve on ${where}: no such address on this machine (--bind-address)`));
      else reject(err);
    });
    server.listen(config.securePort, config.bindAddress, () => resolve());
  });
  // Only for a start-up that fails from here on; a graceful stop drains the server first.
  closers.add('https', () => {
    if (server.listening) server.close();
    connections.closeAll();
  });
  const port = (server.address() as AddressInfo).port;
  const host = config.bindAddress === '0.0.0.0' || config.bindAddress === '::' ? '127.0.0.1' : config.bindAddress;
  return { server, connections, port, url: `https://${host.includes(':') ? `[${host}]` : host}:${port}`, address: `${host}:${port}` };
}
