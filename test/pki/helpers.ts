import { mkdtemp, rm } from 'node:fs/promises';
import { createServer, request } from 'node:https';
import type { Server } from 'node:https';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ApiError } from '../../src/api/errors.ts';
import type { Authenticator } from '../../src/auth/authn/authenticator.ts';
import { buildCertificate } from '../../src/auth/pki/certificate-builder.ts';
import type { NameAttributeSpec } from '../../src/auth/pki/certificate-builder.ts';
import { Oid, parseCertificate, subjectKeyIdentifier } from '../../src/auth/pki/certificate-info.ts';
import type { Pki } from '../../src/auth/pki/ensure-pki.ts';
import { generateKeyPair, loadPrivateKey, privateKeyPem } from '../../src/auth/pki/keys.ts';

/** A fresh temporary directory, removed by the returned cleanup. */
export async function tempDir(): Promise<{ dir: string; cleanup: () => Promise<void> }> {
  const dir = await mkdtemp(join(tmpdir(), 'pgkube-pki-'));
  return { dir, cleanup: () => rm(dir, { recursive: true, force: true }) };
}

/** A client certificate signed by the PKI's CA with the given subject and usages. */
export async function issueClientCert(
  pki: Pki,
  subject: readonly NameAttributeSpec[],
  extKeyUsage: readonly string[] = [Oid.clientAuth],
): Promise<{ cert: string; key: string }> {
  const { privateKey, publicKey } = await generateKeyPair();
  const caInfo = parseCertificate(pki.caCert.pem);
  const now = Date.now();
  const cert = buildCertificate(
    {
      subject,
      publicKey,
      notBefore: new Date(now - 60_000),
      notAfter: new Date(now + 3_600_000),
      keyUsage: ['digitalSignature'],
      extKeyUsage,
    },
    { rawName: caInfo.rawSubject, keyId: subjectKeyIdentifier(caInfo), privateKey: loadPrivateKey(pki.caKey.pem) },
  );
  return { cert, key: privateKeyPem(privateKey) };
}

export interface TestServer {
  readonly server: Server;
  readonly url: string;
  /** How many times the server asked a socket for its peer certificate. */
  readonly peerCertificateReads: () => number;
  close(): Promise<void>;
}

/**
 * An HTTPS server configured as the API server is: client certificates requested, verified
 * against the CA, but not required. It answers every request with the authenticator's verdict:
 * 200 and the user (or null), or the ApiError's code and Status.
 */
export async function startAuthServer(pki: Pki, authenticator: Authenticator): Promise<TestServer> {
  let reads = 0;
  const server = createServer(
    { cert: pki.servingCert.pem, key: pki.servingKey.pem, ca: pki.caCert.pem, requestCert: true, rejectUnauthorized: false },
    async (req, res) => {
      try {
        const user = await authenticator.authenticate(req);
        res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ user }));
      } catch (err) {
        const status = err instanceof ApiError ? err.status : { code: 500, message: String(err) };
        res.writeHead(status.code, { 'content-type': 'application/json' }).end(JSON.stringify(status));
      }
    },
  );
  server.on('secureConnection', (socket) => {
    const original = socket.getPeerX509Certificate.bind(socket);
    socket.getPeerX509Certificate = () => {
      reads++;
      return original();
    };
  });
  await new Promise<void>((done) => server.listen(0, '127.0.0.1', done));
  const { port } = server.address() as AddressInfo;
  return {
    server,
    url: `https://127.0.0.1:${port}`,
    peerCertificateReads: () => reads,
    close: () =>
      new Promise<void>((done) => {
        server.closeAllConnections();
        server.close(() => done());
      }),
  };
}

export interface ClientOptions {
  readonly ca: string;
  readonly cert?: string;
  readonly key?: string;
  readonly agent?: import('node:https').Agent;
}

/** GETs a URL over HTTPS and returns the status code and parsed JSON body. */
export function getJson(url: string, options: ClientOptions): Promise<{ status: number; body: any }> {
  return new Promise((resolve, reject) => {
    const req = request(url, { ca: options.ca, cert: options.cert, key: options.key, agent: options.agent }, (res) => {
      let text = '';
      res.setEncoding('utf8');
      res.on('data', (chunk: string) => (text += chunk));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body: JSON.parse(text) }));
    });
    req.on('error', reject);
    req.end();
  });
}
