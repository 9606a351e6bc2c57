import { X509Certificate } from 'node:crypto';
import type { KeyObject } from 'node:crypto';
import { join, resolve } from 'node:path';
import { buildCertificate, selfSigner } from './certificate-builder.ts';
import type { CertificateSpec, Signer } from './certificate-builder.ts';
import { Oid, extendedKeyUsages, parseCertificate, subjectAltNames, subjectKeyIdentifier } from './certificate-info.ts';
import { generateKeyPair, loadPrivateKey, privateKeyPem } from './keys.ts';
import { CERT_FILE_MODE, KEY_FILE_MODE, readIfExists, restrictKeyFile, withDirectoryLock, writeFileAtomic } from './pem-files.ts';
import { missingNames, servingSubjectAltNames } from './subject-alt-names.ts';

const DAY = 24 * 60 * 60 * 1000;
export const CA_VALIDITY_MS = 3650 * DAY;
export const LEAF_VALIDITY_MS = 365 * DAY;
/** Certificates start this far in the past, so a client whose clock lags accepts them at once. */
const BACKDATE_MS = 5 * 60 * 1000;

export const ADMIN_USER = 'admin';
export const ADMIN_GROUP = 'system:masters';
export const SERVING_COMMON_NAME = 'kube-apiserver';

export interface EnsurePkiOptions {
  /** The PKI directory, normally `<data-dir>/pki`; created (mode 0700) when missing. */
  readonly dir: string;
  /** The server's bind address; becomes an IP SAN unless it is a wildcard. */
  readonly bindAddress?: string;
  /** Extra SANs (`--tls-sni-extra-names` style); IPs and DNS names are told apart by parsing. */
  readonly extraNames?: readonly string[];
  /** Leaves that expire sooner than this (ms) are replaced. Default 30 days. */
  readonly renewBefore?: number;
  /** The current time; for tests. */
  readonly now?: Date;
}

export interface PkiFile {
  readonly path: string;
  readonly pem: string;
}

/** Why ensurePki wrote a certificate, for the startup log. */
export interface PkiChange {
  readonly name: 'ca' | 'apiserver' | 'admin';
  readonly reason: string;
}

export interface Pki {
  readonly dir: string;
  readonly caCert: PkiFile;
  readonly caKey: PkiFile;
  readonly servingCert: PkiFile;
  readonly servingKey: PkiFile;
  readonly adminCert: PkiFile;
  readonly adminKey: PkiFile;
  /** What this call created or replaced; empty when everything was reused. */
  readonly changes: readonly PkiChange[];
}

interface Pair {
  readonly cert: PkiFile;
  readonly key: PkiFile;
}

interface Ca extends Pair {
  readonly x509: X509Certificate;
  readonly signer: Signer;
}

/**
 * Makes sure `dir` holds a CA, a serving certificate and an admin client certificate,
 * creating what is missing and reusing what is there and still fit for use. A serving
 * certificate that lacks a requested SAN, leaves that expire within `renewBefore`, or leaves
 * not signed by the current CA are replaced. An existing CA is never silently replaced
 * while it is valid: if its key is missing or does not match, this throws.
 *
 * @example
 * const pki = await ensurePki({ dir: join(dataDir, 'pki'), bindAddress: '10.0.0.5' });
 * https.createServer({ cert: pki.servingCert.pem, key: pki.servingKey.pem, ca: pki.caCert.pem,
 *   requestCert: true, rejectUnauthorized: false }, app);
 */
export async function ensurePki(options: EnsurePkiOptions): Promise<Pki> {
  const dir = resolve(options.dir);
  const now = options.now ?? new Date();
  const renewBefore = options.renewBefore ?? 30 * DAY;
  const wanted = servingSubjectAltNames({ bindAddress: options.bindAddress, extraNames: options.extraNames });
  return withDirectoryLock(dir, async () => {
    const changes: PkiChange[] = [];
    const ca = await ensureCa(dir, now, changes);
    const leafOptions = { dir, ca, now, renewBefore, changes };
    const serving = await ensureLeaf({
      ...leafOptions,
      name: 'apiserver',
      spec: (publicKey, notAfter) => ({
        subject: [{ oid: Oid.commonName, value: SERVING_COMMON_NAME }],
        publicKey,
        notBefore: new Date(now.getTime() - BACKDATE_MS),
        notAfter,
        keyUsage: ['digitalSignature'],
        extKeyUsage: [Oid.serverAuth],
        dnsNames: wanted.dnsNames,
        ipAddresses: wanted.ipAddresses,
      }),
      problem: (cert) => {
        const missing = missingNames(subjectAltNames(parseCertificate(cert.raw)), wanted);
        return missing.length > 0 ? `lacks SANs ${missing.join(', ')}` : null;
      },
    });
    const admin = await ensureLeaf({
      ...leafOptions,
      name: 'admin',
      spec: (publicKey, notAfter) => ({
        subject: [
          { oid: Oid.organization, value: ADMIN_GROUP },
          { oid: Oid.commonName, value: ADMIN_USER },
        ],
        publicKey,
        notBefore: new Date(now.getTime() - BACKDATE_MS),
        notAfter,
        keyUsage: ['digitalSignature'],
        extKeyUsage: [Oid.clientAuth],
      }),
      problem: (cert) => (hasUsage(cert, Oid.clientAuth) ? null : 'lacks the clientAuth usage'),
    });
    return {
      dir,
      caCert: ca.cert,
      caKey: ca.key,
      servingCert: serving.cert,
      servingKey: serving.key,
      adminCert: admin.cert,
      adminKey: admin.key,
      changes,
    };
  });
}

function hasUsage(cert: X509Certificate, usage: string): boolean {
  const usages = extendedKeyUsages(parseCertificate(cert.raw));
  return usages === null || usages.includes(usage) || usages.includes(Oid.anyExtendedKeyUsage);
}

function isCurrent(cert: X509Certificate, now: Date, margin = 0): boolean {
  return new Date(cert.validFrom) <= now && new Date(cert.validTo).getTime() - margin > now.getTime();
}

async function readPair(dir: string, name: string): Promise<{ cert: PkiFile; key: PkiFile; certPem: string | null; keyPem: string | null }> {
  const certPath = join(dir, `${name}.crt`);
  const keyPath = join(dir, `${name}.key`);
  const [certPem, keyPem] = await Promise.all([readIfExists(certPath), readIfExists(keyPath)]);
  return { cert: { path: certPath, pem: certPem ?? '' }, key: { path: keyPath, pem: keyPem ?? '' }, certPem, keyPem };
}

async function writePair(pair: Pair): Promise<void> {
  // the key first: a crash in between leaves a certificate that does not match it, which is replaced
  await writeFileAtomic(pair.key.path, pair.key.pem, KEY_FILE_MODE);
  await writeFileAtomic(pair.cert.path, pair.cert.pem, CERT_FILE_MODE);
}

function tryParse<T>(fn: () => T): T | null {
  try {
    return fn();
  } catch {
    return null;
  }
}

async function ensureCa(dir: string, now: Date, changes: PkiChange[]): Promise<Ca> {
  const existing = await readPair(dir, 'ca');
  const x509 = existing.certPem === null ? null : tryParse(() => new X509Certificate(existing.certPem!));
  if (x509 && x509.ca && isCurrent(x509, now)) {
    const key = existing.keyPem === null ? null : tryParse(() => loadPrivateKey(existing.keyPem!));
    if (!key || !x509.checkPrivateKey(key)) {
      throw new Error(
        `${existing.cert.path} is a valid CA but ${existing.key.path} is ${key ? 'not its key' : 'missing or unreadable'}; ` +
          'restore the key, or remove both files to create a new CA',
      );
    }
    await restrictKeyFile(existing.key.path);
    const info = parseCertificate(x509.raw);
    return { ...existing, x509, signer: { rawName: info.rawSubject, keyId: subjectKeyIdentifier(info), privateKey: key } };
  }
  const reason = existing.certPem === null ? 'created' : !x509 ? 'unreadable, replaced' : !x509.ca ? 'not a CA, replaced' : 'expired or not yet valid, replaced';
  const { privateKey, publicKey } = await generateKeyPair();
  const spec: CertificateSpec = {
    // a unique name keeps clients that still trust an older CA from mixing the two up
    subject: [{ oid: Oid.commonName, value: `pgkube-ca@${Math.floor(now.getTime() / 1000)}` }],
    publicKey,
    notBefore: new Date(now.getTime() - BACKDATE_MS),
    notAfter: new Date(now.getTime() + CA_VALIDITY_MS),
    isCa: true,
    keyUsage: ['digitalSignature', 'keyCertSign', 'cRLSign'],
  };
  const signer = selfSigner(spec, privateKey);
  const pair: Pair = {
    cert: { path: existing.cert.path, pem: buildCertificate(spec, signer) },
    key: { path: existing.key.path, pem: privateKeyPem(privateKey) },
  };
  await writePair(pair);
  changes.push({ name: 'ca', reason });
  return { ...pair, x509: new X509Certificate(pair.cert.pem), signer };
}

interface LeafOptions {
  readonly dir: string;
  readonly name: 'apiserver' | 'admin';
  readonly ca: Ca;
  readonly now: Date;
  readonly renewBefore: number;
  readonly changes: PkiChange[];
  readonly spec: (publicKey: KeyObject, notAfter: Date) => CertificateSpec;
  /** A reason specific to this leaf why the existing certificate will not do, or null. */
  readonly problem: (cert: X509Certificate) => string | null;
}

function leafProblem(options: LeafOptions, certPem: string | null, keyPem: string | null): string | null {
  if (certPem === null || keyPem === null) return 'created';
  const cert = tryParse(() => new X509Certificate(certPem));
  const key = tryParse(() => loadPrivateKey(keyPem));
  if (!cert || !key) return 'unreadable, replaced';
  if (!cert.checkPrivateKey(key)) return 'key does not match, replaced';
  if (!cert.checkIssued(options.ca.x509) || !cert.verify(options.ca.x509.publicKey)) return 'not signed by the CA, replaced';
  if (!isCurrent(cert, options.now, options.renewBefore)) return 'expired or expiring soon, replaced';
  let specific: string | null;
  try {
    specific = options.problem(cert);
  } catch {
    specific = 'unreadable extensions';
  }
  return specific === null ? null : `${specific}, replaced`;
}

async function ensureLeaf(options: LeafOptions): Promise<Pair> {
  const existing = await readPair(options.dir, options.name);
  const reason = leafProblem(options, existing.certPem, existing.keyPem);
  if (reason === null) {
    await restrictKeyFile(existing.key.path);
    return existing;
  }
  const { privateKey, publicKey } = await generateKeyPair();
  // a leaf never outlives its CA
  const caEnd = new Date(options.ca.x509.validTo).getTime();
  const notAfter = new Date(Math.min(options.now.getTime() + LEAF_VALIDITY_MS, caEnd));
  const pair: Pair = {
    cert: { path: existing.cert.path, pem: buildCertificate(options.spec(publicKey, notAfter), options.ca.signer) },
    key: { path: existing.key.path, pem: privateKeyPem(privateKey) },
  };
  await writePair(pair);
  options.changes.push({ name: options.name, reason });
  return pair;
}
