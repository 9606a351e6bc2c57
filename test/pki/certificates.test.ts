import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { X509Certificate, generateKeyPairSync } from 'node:crypto';
import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, test } from 'node:test';
import { promisify } from 'node:util';
import { X509Authenticator } from '../../src/auth/authn/x509-authenticator.ts';
import { buildCertificate, selfSigner } from '../../src/auth/pki/certificate-builder.ts';
import type { CertificateSpec } from '../../src/auth/pki/certificate-builder.ts';
import { Oid, parseCertificate, subjectKeyIdentifier, subjectValues } from '../../src/auth/pki/certificate-info.ts';
import { decodeOid, oid, readNode, time } from '../../src/auth/pki/der.ts';
import { ensurePki } from '../../src/auth/pki/ensure-pki.ts';
import { canonicalIp } from '../../src/auth/pki/ip.ts';
import { keyIdentifier } from '../../src/auth/pki/keys.ts';
import { servingSubjectAltNames } from '../../src/auth/pki/subject-alt-names.ts';
import { getJson, startAuthServer, tempDir } from './helpers.ts';

const run = promisify(execFile);

describe('DER and names', () => {
  test('object identifiers round-trip, including large arcs', () => {
    for (const id of ['2.5.29.37.0', '1.3.6.1.4.1.14677.1.1.1', '1.2.840.113549.1.1.11', '2.999.3']) {
      assert.equal(decodeOid(readNode(oid(id))), id);
    }
  });

  test('times before 2050 are UTCTime, later ones GeneralizedTime', () => {
    assert.equal(time(new Date('2036-02-03T04:05:06.789Z')).toString('latin1', 2), '360203040506Z');
    assert.equal(time(new Date('2051-01-01T00:00:00Z')).toString('latin1', 2), '20510101000000Z');
  });

  test('IP addresses compare in canonical form', () => {
    assert.equal(canonicalIp('[0:0::1]'), '::1');
    assert.equal(canonicalIp('2001:0db8:0:0:1:0:0:1'), '2001:db8::1:0:0:1');
    assert.equal(canonicalIp('fe80::1%eth0'), 'fe80::1');
    assert.equal(canonicalIp('10.0.0.1'), '10.0.0.1');
    assert.equal(canonicalIp('example.com'), null);
  });

  test('serving names: defaults, the bind address, and extras split by kind', () => {
    const sans = servingSubjectAltNames({ bindAddress: '192.168.1.9', extraNames: ['Api.Example.com., 10.0.0.1', '[::2]'] });
    assert.deepEqual(sans.ipAddresses, ['127.0.0.1', '::1', '192.168.1.9', '10.0.0.1', '::2']);
    assert.ok(sans.dnsNames.includes('api.example.com'));
    assert.ok(sans.dnsNames.includes('kubernetes.default.svc'));
    assert.deepEqual(servingSubjectAltNames({ bindAddress: '0.0.0.0' }).ipAddresses, ['127.0.0.1', '::1']);
  });

  test('a certificate carries the subject, key identifier and extensions it was built with', () => {
    const { privateKey, publicKey } = generateKeyPairSync('ec', { namedCurve: 'prime256v1' });
    const spec: CertificateSpec = {
      subject: [
        { oid: Oid.organization, value: 'grüne' },
        { oid: Oid.commonName, value: 'x' },
      ],
      publicKey,
      notBefore: new Date('2024-01-01T00:00:00Z'),
      notAfter: new Date('2060-01-01T00:00:00Z'),
      isCa: true,
      keyUsage: ['keyCertSign'],
    };
    const pem = buildCertificate(spec, selfSigner(spec, privateKey));
    const cert = new X509Certificate(pem);
    assert.ok(cert.ca && cert.verify(publicKey) && cert.checkIssued(cert));
    assert.equal(new Date(cert.validTo).getUTCFullYear(), 2060);
    const info = parseCertificate(pem);
    assert.deepEqual(subjectValues(info, Oid.organization), ['grüne']);
    assert.deepEqual(subjectKeyIdentifier(info), keyIdentifier(publicKey));
  });
});

describe('a CA brought by the operator', () => {
  test('an RSA CA made by openssl signs the leaves, and TLS verifies them', async (t) => {
    const { dir, cleanup } = await tempDir();
    try {
      try {
        await run('openssl', ['req', '-x509', '-newkey', 'rsa:2048', '-nodes', '-keyout', join(dir, 'ca.key'), '-out',
          join(dir, 'ca.crt'), '-subj', '/O=Example Org/CN=operator-ca', '-days', '30',
          '-addext', 'basicConstraints=critical,CA:TRUE', '-addext', 'keyUsage=critical,keyCertSign,cRLSign']);
      } catch {
        return t.skip('openssl is not available');
      }
      const caPem = await readFile(join(dir, 'ca.crt'), 'utf8');
      const pki = await ensurePki({ dir });
      assert.deepEqual(pki.changes.map((c) => c.name), ['apiserver', 'admin']);
      assert.equal(pki.caCert.pem, caPem);
      // the leaf's issuer is the CA's subject byte for byte, and its AKI is the CA's SKI
      assert.ok(new X509Certificate(pki.servingCert.pem).checkIssued(new X509Certificate(caPem)));
      await writeFile(join(dir, 'chain-check.crt'), pki.adminCert.pem);
      const { stdout } = await run('openssl', ['verify', '-CAfile', join(dir, 'ca.crt'), join(dir, 'chain-check.crt')]);
      assert.match(stdout, /OK/);
      const caEnd = Date.parse(new X509Certificate(caPem).validTo);
      assert.ok(Date.parse(new X509Certificate(pki.servingCert.pem).validTo) <= caEnd, 'a leaf never outlives its CA');
      const server = await startAuthServer(pki, new X509Authenticator());
      try {
        const res = await getJson(server.url, { ca: caPem, cert: pki.adminCert.pem, key: pki.adminKey.pem });
        assert.equal(res.body.user.name, 'admin');
      } finally {
        await server.close();
      }
    } finally {
      await cleanup();
    }
  });
});
