import { randomBytes } from 'node:crypto';
import type { KeyObject } from 'node:crypto';
import {
  bitString,
  boolean,
  explicit,
  implicitPrimitive,
  octetString,
  oid,
  sequence,
  setOf,
  smallInteger,
  time,
  unsignedInteger,
  utf8String,
} from './der.ts';
import { Oid } from './certificate-info.ts';
import { ipToBytes } from './ip.ts';
import { keyIdentifier, signatureScheme, subjectPublicKeyInfo } from './keys.ts';

/** KeyUsage bits (RFC 5280 §4.2.1.3) by name. */
const KEY_USAGE_BITS = {
  digitalSignature: 0,
  keyEncipherment: 2,
  keyCertSign: 5,
  cRLSign: 6,
} as const;
export type KeyUsage = keyof typeof KEY_USAGE_BITS;

/** One subject attribute; each becomes its own RDN, in the order given. */
export interface NameAttributeSpec {
  readonly oid: string;
  readonly value: string;
}

export interface CertificateSpec {
  readonly subject: readonly NameAttributeSpec[];
  readonly publicKey: KeyObject;
  readonly notBefore: Date;
  readonly notAfter: Date;
  /** A CA certificate (basicConstraints cA=true); leaves get cA=false. */
  readonly isCa?: boolean;
  readonly keyUsage: readonly KeyUsage[];
  /** Extended key usage OIDs; omitted when empty. */
  readonly extKeyUsage?: readonly string[];
  readonly dnsNames?: readonly string[];
  readonly ipAddresses?: readonly string[];
}

/** Who signs: the issuer's encoded subject Name, its key identifier (if any) and private key. */
export interface Signer {
  readonly rawName: Buffer;
  readonly keyId: Buffer | null;
  readonly privateKey: KeyObject;
}

export function encodeName(attributes: readonly NameAttributeSpec[]): Buffer {
  return sequence(...attributes.map((a) => setOf(sequence(oid(a.oid), utf8String(a.value)))));
}

/** The signer of a self-signed certificate for `spec`. */
export function selfSigner(spec: CertificateSpec, privateKey: KeyObject): Signer {
  return { rawName: encodeName(spec.subject), keyId: keyIdentifier(spec.publicKey), privateKey };
}

/** A random positive serial number of 16 bytes (RFC 5280 allows up to 20). */
function serialNumber(): Buffer {
  const bytes = randomBytes(16);
  bytes[0] = (bytes[0]! & 0x7f) || 0x01; // positive and minimally encoded
  return bytes;
}

/** A named-bit BIT STRING: DER drops trailing zero bits and counts them as unused. */
function keyUsageBits(usages: readonly KeyUsage[]): Buffer {
  const bits = usages.map((u) => KEY_USAGE_BITS[u]);
  const last = Math.max(...bits);
  const bytes = Buffer.alloc(Math.floor(last / 8) + 1);
  for (const bit of bits) bytes[bit >> 3] = bytes[bit >> 3]! | (0x80 >> (bit & 7));
  return bitString(bytes, bytes.length * 8 - (last + 1));
}

function extension(id: string, critical: boolean, value: Buffer): Buffer {
  return critical ? sequence(oid(id), boolean(true), octetString(value)) : sequence(oid(id), octetString(value));
}

function generalNames(spec: CertificateSpec): Buffer {
  const dns = (spec.dnsNames ?? []).map((n) => implicitPrimitive(2, Buffer.from(n, 'latin1')));
  const ips = (spec.ipAddresses ?? []).map((ip) => {
    const bytes = ipToBytes(ip);
    if (!bytes) throw new Error(`not an IP address: ${ip}`);
    return implicitPrimitive(7, bytes);
  });
  return sequence(...dns, ...ips);
}

function extensions(spec: CertificateSpec, signer: Signer): Buffer[] {
  const out = [
    extension(Oid.basicConstraints, true, spec.isCa ? sequence(boolean(true)) : sequence()),
    extension(Oid.keyUsage, true, keyUsageBits(spec.keyUsage)),
  ];
  if (spec.extKeyUsage?.length) out.push(extension(Oid.extKeyUsage, false, sequence(...spec.extKeyUsage.map(oid))));
  if (spec.dnsNames?.length || spec.ipAddresses?.length) {
    out.push(extension(Oid.subjectAltName, false, generalNames(spec)));
  }
  out.push(extension(Oid.subjectKeyIdentifier, false, octetString(keyIdentifier(spec.publicKey))));
  if (signer.keyId) out.push(extension(Oid.authorityKeyIdentifier, false, sequence(implicitPrimitive(0, signer.keyId))));
  return out;
}

/** Builds and signs an X.509 v3 certificate; returns it as PEM. */
export function buildCertificate(spec: CertificateSpec, signer: Signer): string {
  for (const name of spec.dnsNames ?? []) {
    if (!/^[\x21-\x7e]+$/.test(name)) throw new Error(`DNS name must be printable ASCII: ${JSON.stringify(name)}`);
  }
  const scheme = signatureScheme(signer.privateKey);
  const tbs = sequence(
    explicit(0, smallInteger(2)), // v3
    unsignedInteger(serialNumber()),
    scheme.algorithm,
    signer.rawName,
    sequence(time(spec.notBefore), time(spec.notAfter)),
    encodeName(spec.subject),
    subjectPublicKeyInfo(spec.publicKey),
    explicit(3, sequence(...extensions(spec, signer))),
  );
  const der = sequence(tbs, scheme.algorithm, bitString(scheme.sign(tbs)));
  return toPem(der, 'CERTIFICATE');
}

export function toPem(der: Buffer, label: string): string {
  const lines = der.toString('base64').match(/.{1,64}/g) ?? [];
  return `-----BEGIN ${label}-----\n${lines.join('\n')}\n-----END ${label}-----\n`;
}
