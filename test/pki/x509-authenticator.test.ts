import assert from 'node:assert/strict';
import { createHash, X509Certificate } from 'node:crypto';
import { Agent } from 'node:https';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { CREDENTIAL_ID_KEY, X509Authenticator } from '../../src/auth/authn/x509-authenticator.ts';
import { Oid } from '../../src/auth/pki/certificate-info.ts';
import { ensurePki } from '../../src/auth/pki/ensure-pki.ts';
import type { Pki } from '../../src/auth/pki/ensure-pki.ts';
import { getJson, issueClientCert, startAuthServer, tempDir } from './helpers.ts';
import type { TestServer } from './helpers.ts';

describe('X509Authenticator over a real TLS server', () => {
  let pki: Pki;
  let stranger: Pki;
  let server: TestServer;
  let cleanup: () => Promise<void>;

  before(async () => {
    const tmp = await tempDir();
    cleanup = tmp.cleanup;
    pki = await ensurePki({ dir: join(tmp.dir, 'pki') });
    stranger = await ensurePki({ dir: join(tmp.dir, 'other-pki') });
    server = await startAuthServer(pki, new X509Authenticator());
  });
  after(async () => {
    await server.close();
    await cleanup();
  });

  test('the admin certificate identifies admin in system:masters', async () => {
    const res = await getJson(server.url, { ca: pki.caCert.pem, cert: pki.adminCert.pem, key: pki.adminKey.pem });
    assert.equal(res.status, 200);
    assert.equal(res.body.user.name, 'admin');
    assert.deepEqual(res.body.user.groups, ['system:masters', 'system:authenticated']);
    const fingerprint = createHash('sha256').update(new X509Certificate(pki.adminCert.pem).raw).digest('hex');
    assert.deepEqual(res.body.user.extra, { [CREDENTIAL_ID_KEY]: [`X509SHA256=${fingerprint}`] });
  });

  test('no client certificate: no opinion', async () => {
    const res = await getJson(server.url, { ca: pki.caCert.pem });
    assert.deepEqual(res, { status: 200, body: { user: null } });
  });

  test('a certificate from another CA is refused with 401 Unauthorized', async () => {
    const res = await getJson(server.url, { ca: pki.caCert.pem, cert: stranger.adminCert.pem, key: stranger.adminKey.pem });
    assert.equal(res.status, 401);
    assert.equal(res.body.kind, 'Status');
    assert.equal(res.body.reason, 'Unauthorized');
    assert.equal(res.body.message, 'Unauthorized');
  });

  test('every O becomes a group and the UID attribute becomes the uid', async () => {
    const client = await issueClientCert(pki, [
      { oid: Oid.organization, value: 'team-a' },
      { oid: Oid.organization, value: 'team-b' },
      { oid: Oid.commonName, value: 'jane' },
      { oid: Oid.userId, value: 'uid-42' },
    ]);
    const res = await getJson(server.url, { ca: pki.caCert.pem, ...client });
    assert.equal(res.status, 200);
    assert.equal(res.body.user.name, 'jane');
    assert.equal(res.body.user.uid, 'uid-42');
    assert.deepEqual(res.body.user.groups, ['team-a', 'team-b', 'system:authenticated']);
  });

  test('a certificate without a CN gives no user', async () => {
    const client = await issueClientCert(pki, [{ oid: Oid.organization, value: 'team-a' }]);
    const res = await getJson(server.url, { ca: pki.caCert.pem, ...client });
    assert.deepEqual(res, { status: 200, body: { user: null } });
  });

  test('a certificate only for server auth is refused with 401', async () => {
    const client = await issueClientCert(pki, [{ oid: Oid.commonName, value: 'web' }], [Oid.serverAuth]);
    const res = await getJson(server.url, { ca: pki.caCert.pem, ...client });
    assert.equal(res.status, 401);
  });

  test('two UID attributes are refused with 401', async () => {
    const client = await issueClientCert(pki, [
      { oid: Oid.commonName, value: 'jane' },
      { oid: Oid.userId, value: 'a' },
      { oid: Oid.userId, value: 'b' },
    ]);
    const res = await getJson(server.url, { ca: pki.caCert.pem, ...client });
    assert.equal(res.status, 401);
  });

  test('keep-alive requests on one connection read the certificate once', async () => {
    const agent = new Agent({ keepAlive: true, maxSockets: 1 });
    try {
      const start = server.peerCertificateReads();
      const options = { ca: pki.caCert.pem, cert: pki.adminCert.pem, key: pki.adminKey.pem, agent };
      for (let i = 0; i < 3; i++) {
        const res = await getJson(server.url, options);
        assert.equal(res.body.user.name, 'admin');
      }
      assert.equal(server.peerCertificateReads() - start, 1);
    } finally {
      agent.destroy();
    }
  });
});

describe('X509Authenticator on a stand-in socket', () => {
  const requestOn = (socket: object) => ({ socket }) as unknown as import('node:http').IncomingMessage;
  const tlsSocket = (pem: string, authorized = true) => ({
    authorized,
    authorizationError: authorized ? null : 'UNABLE_TO_VERIFY_LEAF_SIGNATURE',
    getPeerX509Certificate: () => new X509Certificate(pem),
  });

  test('a plain connection gives no user', () => {
    assert.equal(new X509Authenticator().authenticate(requestOn({})), null);
  });

  test('a verified certificate without clientAuth usage is still refused', async () => {
    const { dir, cleanup } = await tempDir();
    try {
      const pki = await ensurePki({ dir });
      const client = await issueClientCert(pki, [{ oid: Oid.commonName, value: 'web' }], [Oid.serverAuth]);
      assert.throws(
        () => new X509Authenticator().authenticate(requestOn(tlsSocket(client.cert))),
        (err: any) => err.code === 401 && /incompatible key usage/.test(err.cause.message),
      );
      const anyUsage = await issueClientCert(pki, [{ oid: Oid.commonName, value: 'any' }], [Oid.anyExtendedKeyUsage]);
      assert.equal(new X509Authenticator().authenticate(requestOn(tlsSocket(anyUsage.cert)))?.name, 'any');
    } finally {
      await cleanup();
    }
  });

  test('a certificate is judged once across connections; each connection is still verified on its own', async () => {
    const { dir, cleanup } = await tempDir();
    try {
      const pki = await ensurePki({ dir });
      const authn = new X509Authenticator();
      const first = authn.authenticate(requestOn(tlsSocket(pki.adminCert.pem)));
      const second = authn.authenticate(requestOn(tlsSocket(pki.adminCert.pem)));
      assert.equal(first?.name, 'admin');
      assert.equal(second, first, 'the second connection gets what the first one\'s certificate amounted to');
      const other = await issueClientCert(pki, [{ oid: Oid.commonName, value: 'other' }], [Oid.clientAuth]);
      assert.equal(authn.authenticate(requestOn(tlsSocket(other.cert)))?.name, 'other');
      // The same certificate on a connection whose handshake did not verify it is refused.
      assert.throws(() => authn.authenticate(requestOn(tlsSocket(pki.adminCert.pem, false))), (err: any) => err.code === 401);
      assert.equal(authn.authenticate(requestOn(tlsSocket(pki.adminCert.pem))), first);
    } finally {
      await cleanup();
    }
  });

  test('the refusal of an unverified certificate is remembered for the connection', async () => {
    const { dir, cleanup } = await tempDir();
    try {
      const pki = await ensurePki({ dir });
      const socket = tlsSocket(pki.adminCert.pem, false);
      const authn = new X509Authenticator({ parseUid: false });
      for (let i = 0; i < 2; i++) {
        assert.throws(() => authn.authenticate(requestOn(socket)), (err: any) => err.code === 401 && /UNABLE_TO_VERIFY/.test(err.cause.message));
      }
    } finally {
      await cleanup();
    }
  });
});
