import { createHash, createPrivateKey, generateKeyPair as generateKeyPairCallback, sign } from 'node:crypto';
import type { KeyObject } from 'node:crypto';
import { promisify } from 'node:util';
import { Tag, children, expectTag, nullValue, oid, readNode, sequence } from './der.ts';

const generate = promisify(generateKeyPairCallback);

export interface KeyPair {
  readonly privateKey: KeyObject;
  readonly publicKey: KeyObject;
}

/** A new ECDSA P-256 key pair: fast to make, accepted by Go, OpenSSL and browsers alike. */
export async function generateKeyPair(): Promise<KeyPair> {
  return generate('ec', { namedCurve: 'prime256v1' });
}

/** PEM `PRIVATE KEY` (PKCS#8), which Go's tls.X509KeyPair and Node's TLS both load. */
export function privateKeyPem(key: KeyObject): string {
  return key.export({ type: 'pkcs8', format: 'pem' }).toString();
}

/** Loads a private key from PEM in any of PKCS#8, SEC1 (`EC PRIVATE KEY`) or PKCS#1. */
export function loadPrivateKey(pem: string): KeyObject {
  return createPrivateKey(pem);
}

/** The DER SubjectPublicKeyInfo of a key (a certificate embeds it as is). */
export function subjectPublicKeyInfo(key: KeyObject): Buffer {
  return key.export({ type: 'spki', format: 'der' });
}

/** RFC 5280 key identifier (method 1): SHA-1 of the subjectPublicKey bits. */
export function keyIdentifier(publicKey: KeyObject): Buffer {
  const [, bits] = children(readNode(subjectPublicKeyInfo(publicKey)));
  const key = expectTag(bits, Tag.BIT_STRING, 'subjectPublicKey');
  return createHash('sha1').update(key.content.subarray(1)).digest(); // skip the unused-bits byte
}

/** How a certificate signed by a key names its algorithm, and how to make the signature. */
export interface SignatureScheme {
  /** DER AlgorithmIdentifier. */
  readonly algorithm: Buffer;
  sign(data: Buffer): Buffer;
}

const EC_SCHEMES: Record<string, { oid: string; hash: string }> = {
  prime256v1: { oid: '1.2.840.10045.4.3.2', hash: 'sha256' },
  secp384r1: { oid: '1.2.840.10045.4.3.3', hash: 'sha384' },
  secp521r1: { oid: '1.2.840.10045.4.3.4', hash: 'sha512' },
};

/** The signature scheme for a signing key: ECDSA, RSA (PKCS#1 v1.5, SHA-256) or Ed25519. */
export function signatureScheme(key: KeyObject): SignatureScheme {
  switch (key.asymmetricKeyType) {
    case 'ec': {
      const curve = key.asymmetricKeyDetails?.namedCurve ?? '';
      const scheme = EC_SCHEMES[curve];
      if (!scheme) throw new Error(`unsupported EC curve ${curve} for signing certificates`);
      return { algorithm: sequence(oid(scheme.oid)), sign: (data) => sign(scheme.hash, data, key) };
    }
    case 'rsa':
      return {
        algorithm: sequence(oid('1.2.840.113549.1.1.11'), nullValue()),
        sign: (data) => sign('sha256', data, key),
      };
    case 'ed25519':
      return { algorithm: sequence(oid('1.3.101.112')), sign: (data) => sign(null, data, key) };
    default:
      throw new Error(`unsupported key type ${key.asymmetricKeyType ?? 'unknown'} for signing certificates`);
  }
}
