import https from 'node:https';
import type { AddressInfo } from 'node:net';
import type { RequestListener } from 'node:http';
import type { Closers } from '../closers.ts';
import type { Config } from '../config.ts';
import { StartupError } from '../startup-error.ts';

export interface ServingCertificates {
  readonly cert: string;
  readonly key: string;
  /** Client certificates are verified against these CAs (a bad one is a 401, not a failed handshake). */
  readonly clientCa: string;
}

export interface Listening {
  readonly server: https.Server;
  readonly port: number;
  /** `https://host:port` for clients (a wildcard bind address is reached on loopback). */
  readonly url: string;
  /** `host:port`, as /api's serverAddressByClientCIDRs names it. */
  readonly address: string;
}

/** Start-up step: the HTTPS server on --bind-address:--secure-port, with clear errors for the usual failures. */
export async function listen(config: Config, tls: ServingCertificates, handler: RequestListener, closers: Closers): Promise<Listening> {
  const server = https.createServer({ cert: tls.cert, key: tls.key, ca: tls.clientCa, requestCert: true, rejectUnauthorized: false }, handler);
  server.keepAliveTimeout = 65_000;
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
    server.closeAllConnections();
  });
  const port = (server.address() as AddressInfo).port;
  const host = config.bindAddress === '0.0.0.0' || config.bindAddress === '::' ? '127.0.0.1' : config.bindAddress;
  return { server, port, url: `https://${host.includes(':') ? `[${host}]` : host}:${port}`, address: `${host}:${port}` };
}
