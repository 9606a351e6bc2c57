import assert from 'node:assert/strict';
import { X509Certificate } from 'node:crypto';
import { readFile, rm, stat, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { Oid, extendedKeyUsages, parseCertificate, subjectAltNames, subjectValues } from '../../src/auth/pki/certificate-info.ts';
import { ensurePki } from '../../src/auth/pki/ensure-pki.ts';
import type { Pki } from '../../src/auth/pki/ensure-pki.ts';
import { tempDir } from './helpers.ts';

const FILES = ['ca.crt', 'ca.key', 'apiserver.crt', 'apiserver.key', 'admin.crt', 'admin.key'];

async function snapshot(dir: string): Promise<Record<string, string>> {
  const out: Record<string, string> = {};
  for (const f of FILES) out[f] = await readFile(join(dir, f), 'utf8');
  return out;
}

describe('ensurePki', () => {
  let dir: string;
  let cleanup: () => Promise<void>;
  let first: Pki;

  before(async () => {
    ({ dir, cleanup } = await tempDir());
    first = await ensurePki({ dir: join(dir, 'pki') });
  });
  after(() => cleanup());

  test('creates a CA, a serving certificate and an admin certificate on first start', async () => {
    assert.deepEqual(
      first.changes.map((c) => `${c.name}: ${c.reason}`),
      ['ca: created', 'apiserver: created', 'admin: created'],
    );
    const files = await snapshot(first.dir);
    assert.equal(files['ca.crt'], first.caCert.pem);
    assert.equal(files['apiserver.key'], first.servingKey.pem);
    assert.equal(first.adminCert.path, join(first.dir, 'admin.crt'));
    assert.match(first.adminKey.pem, /^-----BEGIN PRIVATE KEY-----/);
  });

  test('reuses every file on the next start', async () => {
    const before = await snapshot(first.dir);
    const second = await ensurePki({ dir: join(dir, 'pki') });
    assert.deepEqual(second.changes, []);
    assert.deepEqual(await snapshot(first.dir), before);
    assert.equal(second.caCert.pem, first.caCert.pem);
    assert.equal(second.adminKey.pem, first.adminKey.pem);
  });

  test('keys are written with mode 0600 and the directory with 0700', async () => {
    for (const f of ['ca.key', 'apiserver.key', 'admin.key']) {
      assert.equal((await stat(join(first.dir, f))).mode & 0o777, 0o600, f);
    }
    assert.equal((await stat(first.dir)).mode & 0o777, 0o700);
  });

  test('the CA is a 10-year ECDSA P-256 CA and the leaves are 1-year certificates it signed', () => {
    const ca = new X509Certificate(first.caCert.pem);
    assert.equal(ca.ca, true);
    assert.equal(ca.publicKey.asymmetricKeyDetails?.namedCurve, 'prime256v1');
    const years = (c: X509Certificate) => (Date.parse(c.validTo) - Date.parse(c.validFrom)) / (365 * 86_400_000);
    assert.ok(Math.abs(years(ca) - 10) < 0.05, `CA validity ${years(ca)} years`);
    for (const pem of [first.servingCert.pem, first.adminCert.pem]) {
      const leaf = new X509Certificate(pem);
      assert.equal(leaf.ca, false);
      assert.ok(leaf.checkIssued(ca) && leaf.verify(ca.publicKey));
      assert.ok(Math.abs(years(leaf) - 1) < 0.01, `leaf validity ${years(leaf)} years`);
      assert.notEqual(leaf.serialNumber, ca.serialNumber);
      assert.ok(Number.parseInt(leaf.serialNumber.slice(0, 2), 16) < 0x80, 'serial is positive');
    }
  });

  test('the serving certificate covers loopback and the in-cluster service names', () => {
    const sans = subjectAltNames(parseCertificate(first.servingCert.pem));
    for (const name of ['localhost', 'kubernetes', 'kubernetes.default', 'kubernetes.default.svc']) {
      assert.ok(sans.dnsNames.includes(name), name);
    }
    assert.deepEqual([...sans.ipAddresses].sort(), ['127.0.0.1', '::1']);
    assert.deepEqual(extendedKeyUsages(parseCertificate(first.servingCert.pem)), [Oid.serverAuth]);
  });

  test('the admin certificate is CN admin, O system:masters, for client auth', () => {
    const info = parseCertificate(first.adminCert.pem);
    assert.deepEqual(subjectValues(info, Oid.commonName), ['admin']);
    assert.deepEqual(subjectValues(info, Oid.organization), ['system:masters']);
    assert.deepEqual(extendedKeyUsages(info), [Oid.clientAuth]);
  });

  test('a new bind address or extra name replaces only the serving certificate', async () => {
    const before = await snapshot(first.dir);
    const next = await ensurePki({
      dir: join(dir, 'pki'),
      bindAddress: '10.1.2.3',
      extraNames: ['api.example.com,[fd00::5]', 'API.Example.com', '0.0.0.0'],
    });
    assert.deepEqual(next.changes.map((c) => c.name), ['apiserver']);
    assert.match(next.changes[0]!.reason, /lacks SANs .*10\.1\.2\.3/);
    const sans = subjectAltNames(parseCertificate(next.servingCert.pem));
    assert.ok(sans.dnsNames.includes('api.example.com'));
    assert.deepEqual([...sans.ipAddresses].sort(), ['10.1.2.3', '127.0.0.1', '::1', 'fd00::5']);
    const after = await snapshot(first.dir);
    assert.notEqual(after['apiserver.crt'], before['apiserver.crt']);
    for (const f of ['ca.crt', 'ca.key', 'admin.crt', 'admin.key']) assert.equal(after[f], before[f], f);

    const again = await ensurePki({ dir: join(dir, 'pki'), bindAddress: '10.1.2.3', extraNames: ['fd00:0::5'] });
    assert.deepEqual(again.changes, [], 'a subset of the SANs it has keeps the certificate');
  });

  test('a wildcard bind address adds no SAN', async () => {
    const { dir: other, cleanup: done } = await tempDir();
    try {
      const pki = await ensurePki({ dir: other, bindAddress: '::' });
      assert.deepEqual([...subjectAltNames(parseCertificate(pki.servingCert.pem)).ipAddresses].sort(), ['127.0.0.1', '::1']);
    } finally {
      await done();
    }
  });

  test('leaves close to expiry are renewed; the CA is kept', async () => {
    const { dir: other, cleanup: done } = await tempDir();
    try {
      const start = await ensurePki({ dir: other });
      const later = new Date(Date.now() + 340 * 86_400_000);
      const renewed = await ensurePki({ dir: other, now: later });
      assert.deepEqual(renewed.changes.map((c) => `${c.name}: ${c.reason}`), [
        'apiserver: expired or expiring soon, replaced',
        'admin: expired or expiring soon, replaced',
      ]);
      assert.equal(renewed.caCert.pem, start.caCert.pem);
    } finally {
      await done();
    }
  });

  test('a new CA replaces the leaves it did not sign', async () => {
    const { dir: other, cleanup: done } = await tempDir();
    try {
      await ensurePki({ dir: other });
      await rm(join(other, 'ca.crt'));
      await rm(join(other, 'ca.key'));
      const next = await ensurePki({ dir: other });
      assert.deepEqual(next.changes.map((c) => `${c.name}: ${c.reason}`), [
        'ca: created',
        'apiserver: not signed by the CA, replaced',
        'admin: not signed by the CA, replaced',
      ]);
    } finally {
      await done();
    }
  });

  test('a valid CA without its key is an error, not silently replaced', async () => {
    const { dir: other, cleanup: done } = await tempDir();
    try {
      const pki = await ensurePki({ dir: other });
      await rm(pki.caKey.path);
      await assert.rejects(ensurePki({ dir: other }), /ca\.key is missing/);
      const stranger = await ensurePki({ dir: join(other, 'stranger') });
      await writeFile(pki.caKey.path, stranger.caKey.pem, { mode: 0o600 });
      await assert.rejects(ensurePki({ dir: other }), /not its key/);
    } finally {
      await done();
    }
  });

  test('a key file readable by others is narrowed to 0600 when reused', async () => {
    const { chmod } = await import('node:fs/promises');
    await chmod(first.adminKey.path, 0o644);
    await ensurePki({ dir: join(dir, 'pki'), bindAddress: '10.1.2.3', extraNames: ['api.example.com', 'fd00::5'] });
    assert.equal((await stat(first.adminKey.path)).mode & 0o777, 0o600);
  });

  test('processes starting together on one directory agree on one CA', async () => {
    const { dir: other, cleanup: done } = await tempDir();
    try {
      const all = await Promise.all([1, 2, 3, 4].map(() => ensurePki({ dir: other })));
      assert.equal(new Set(all.map((p) => p.caCert.pem)).size, 1);
      assert.equal(all.filter((p) => p.changes.length > 0).length, 1);
    } finally {
      await done();
    }
  });

  test('names that are neither a DNS name nor an IP are refused', async () => {
    await assert.rejects(ensurePki({ dir: join(dir, 'pki'), extraNames: ['not a name'] }), /not a DNS name or IP address/);
  });
});
