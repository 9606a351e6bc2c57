import { X509Certificate } from 'node:crypto';
import { Tag, children, decodeOid, decodeString, expectTag, readNode } from './der.ts';
import type { Node } from './der.ts';
import { ipFromBytes } from './ip.ts';

/** Object identifiers this package reads or writes. */
export const Oid = {
  commonName: '2.5.4.3',
  organization: '2.5.4.10',
  /** The LDAP `UID` attribute Kubernetes reads as the user's uid. */
  userId: '1.3.6.1.4.1.14677.1.1.1',
  subjectKeyIdentifier: '2.5.29.14',
  keyUsage: '2.5.29.15',
  subjectAltName: '2.5.29.17',
  basicConstraints: '2.5.29.19',
  authorityKeyIdentifier: '2.5.29.35',
  extKeyUsage: '2.5.29.37',
  anyExtendedKeyUsage: '2.5.29.37.0',
  serverAuth: '1.3.6.1.5.5.7.3.1',
  clientAuth: '1.3.6.1.5.5.7.3.2',
} as const;

export interface NameAttribute {
  readonly oid: string;
  /** The decoded string, or null when the value is not a directory string. */
  readonly value: string | null;
}

export interface CertificateExtension {
  readonly oid: string;
  readonly critical: boolean;
  /** The DER inside the extension's OCTET STRING. */
  readonly value: Buffer;
}

/** The parts of a certificate that Node's X509Certificate does not expose. */
export interface CertificateInfo {
  readonly der: Buffer;
  /** The subject Name exactly as encoded: an issued certificate copies it as its issuer. */
  readonly rawSubject: Buffer;
  /** Subject attributes in encoding order. */
  readonly subject: readonly NameAttribute[];
  readonly extensions: readonly CertificateExtension[];
}

/** Parses a DER certificate (or the first certificate of a PEM text). Throws on malformed input. */
export function parseCertificate(input: Buffer | string): CertificateInfo {
  const der = typeof input === 'string' ? new X509Certificate(input).raw : input;
  const certificate = expectTag(readNode(der), Tag.SEQUENCE, 'a certificate');
  const tbs = children(expectTag(children(certificate)[0], Tag.SEQUENCE, 'tbsCertificate'));
  const fields = tbs[0]?.tag === 0xa0 ? tbs.slice(1) : tbs; // skip [0] version
  // serialNumber, signature, issuer, validity, subject, subjectPublicKeyInfo, then optional [1] [2] [3]
  const subject = expectTag(fields[4], Tag.SEQUENCE, 'subject');
  const extensionsNode = fields.slice(6).find((n) => n.tag === 0xa3);
  return {
    der,
    rawSubject: subject.bytes,
    subject: readName(subject),
    extensions: extensionsNode ? readExtensions(extensionsNode) : [],
  };
}

function readName(name: Node): NameAttribute[] {
  const out: NameAttribute[] = [];
  for (const rdn of children(name)) {
    for (const atv of children(expectTag(rdn, Tag.SET, 'a relative distinguished name'))) {
      const [type, value] = children(expectTag(atv, Tag.SEQUENCE, 'an attribute'));
      out.push({ oid: decodeOid(type!), value: value ? decodeString(value) : null });
    }
  }
  return out;
}

function readExtensions(wrapper: Node): CertificateExtension[] {
  const list = expectTag(children(wrapper)[0], Tag.SEQUENCE, 'extensions');
  return children(list).map((ext) => {
    const parts = children(expectTag(ext, Tag.SEQUENCE, 'an extension'));
    const critical = parts.length === 3 && parts[1]!.tag === Tag.BOOLEAN && parts[1]!.content[0] !== 0;
    const value = expectTag(parts[parts.length - 1], Tag.OCTET_STRING, 'an extension value');
    return { oid: decodeOid(parts[0]!), critical, value: value.content };
  });
}

export function findExtension(info: CertificateInfo, oid: string): CertificateExtension | undefined {
  return info.extensions.find((e) => e.oid === oid);
}

/** Values of one subject attribute, in order (a certificate may carry several O values). */
export function subjectValues(info: CertificateInfo, oid: string): string[] {
  return info.subject.filter((a) => a.oid === oid && a.value !== null).map((a) => a.value!);
}

export function subjectKeyIdentifier(info: CertificateInfo): Buffer | null {
  const ext = findExtension(info, Oid.subjectKeyIdentifier);
  return ext ? expectTag(readNode(ext.value), Tag.OCTET_STRING, 'a key identifier').content : null;
}

/** The extended key usage OIDs, or null when the certificate has no such extension. */
export function extendedKeyUsages(info: CertificateInfo): string[] | null {
  const ext = findExtension(info, Oid.extKeyUsage);
  return ext ? children(readNode(ext.value)).map(decodeOid) : null;
}

export interface SubjectAltNames {
  /** Lower-cased DNS names. */
  readonly dnsNames: readonly string[];
  /** IP addresses in canonical text form (`::1`, `10.0.0.1`). */
  readonly ipAddresses: readonly string[];
}

/** The DNS and IP entries of the subjectAltName extension; other name forms are ignored. */
export function subjectAltNames(info: CertificateInfo): SubjectAltNames {
  const ext = findExtension(info, Oid.subjectAltName);
  const dnsNames: string[] = [];
  const ipAddresses: string[] = [];
  for (const name of ext ? children(readNode(ext.value)) : []) {
    if (name.tag === 0x82) dnsNames.push(name.content.toString('latin1').toLowerCase());
    if (name.tag === 0x87) {
      const ip = ipFromBytes(name.content);
      if (ip) ipAddresses.push(ip);
    }
  }
  return { dnsNames, ipAddresses };
}
