/**
 * The service account signing key and the keys tokens are verified with. The signing key comes from
 * --service-account-signing-key-file or, when none is given, is generated once (RSA 2048, as
 * kubeadm makes `sa.key`) into `<data-dir>/pki/sa.key` and kept for later starts, so tokens stay
 * valid across restarts. Verification keys are every key of every --service-account-key-file (public
 * or private PEM blocks; a private key counts for its public half) plus the signing key's public half.
 */
import { createHash, createPrivateKey, createPublicKey, generateKeyPair as generateKeyPairCallback, type KeyObject } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { KEY_FILE_MODE, readIfExists, restrictKeyFile, withDirectoryLock, writeFileAtomic } from '../pki/pem-files.ts';

const generate = promisify(generateKeyPairCallback);

export type JwsAlgorithm = 'RS256' | 'ES256' | 'ES384' | 'ES512';

/** A public key tokens may be signed with, as the JWKS document and the verifier know it. */
export interface VerificationKey {
  readonly kid: string;
  readonly alg: JwsAlgorithm;
  readonly key: KeyObject;
}

export interface SigningKey extends VerificationKey {
  readonly privateKey: KeyObject;
}

/** Upstream's key id: base64url (no padding) of the SHA-256 of the DER SubjectPublicKeyInfo. */
export function keyId(publicKey: KeyObject): string {
  return createHash('sha256').update(publicKey.export({ type: 'spki', format: 'der' })).digest('base64url');
}

/** The JWS algorithm a key signs with: RS256 for RSA, ES256/384/512 by the EC curve; others are refused. */
export function algorithmOf(key: KeyObject): JwsAlgorithm {
  if (key.asymmetricKeyType === 'rsa') return 'RS256';
  if (key.asymmetricKeyType === 'ec') {
    switch (key.asymmetricKeyDetails?.namedCurve) {
      case 'prime256v1':
        return 'ES256';
      case 'secp384r1':
        return 'ES384';
      case 'secp521r1':
        return 'ES512';
    }
  }
  throw new Error(`unsupported service account key type ${key.asymmetricKeyType}${key.asymmetricKeyDetails?.namedCurve ? ` (${key.asymmetricKeyDetails.namedCurve})` : ''}: RSA or ECDSA P-256/P-384/P-521 is needed`);
}

export function verificationKey(publicKey: KeyObject): VerificationKey {
  return { kid: keyId(publicKey), alg: algorithmOf(publicKey), key: publicKey };
}

const PEM_BLOCK = /-----BEGIN ([A-Z0-9 ]+)-----[\s\S]*?-----END \1-----/g;

/** Every key of a PEM text: public blocks as they are, private blocks as their public half. Certificates give their key. */
export function publicKeysFromPem(pem: string, source: string): KeyObject[] {
  const keys: KeyObject[] = [];
  for (const match of pem.matchAll(PEM_BLOCK)) {
    const label = match[1]!;
    try {
      if (label.includes('PRIVATE KEY')) keys.push(createPublicKey(createPrivateKey(match[0])));
      else if (label.includes('PUBLIC KEY') || label === 'CERTIFICATE') keys.push(createPublicKey(match[0]));
    } catch {
      // Name the file and block, never its content.
      throw new Error(`${source}: the ${label} block cannot be read as a key`);
    }
  }
  if (keys.length === 0) throw new Error(`${source}: no public or private key found`);
  return keys;
}

/** The private key of a PEM text: the first private key block. */
export function privateKeyFromPem(pem: string, source: string): KeyObject {
  for (const match of pem.matchAll(PEM_BLOCK)) {
    if (!match[1]!.includes('PRIVATE KEY')) continue;
    try {
      return createPrivateKey(match[0]);
    } catch {
      throw new Error(`${source}: the ${match[1]} block cannot be read as a private key`);
    }
  }
  throw new Error(`${source}: no private key found`);
}

export function signingKey(privateKey: KeyObject): SigningKey {
  const publicKey = createPublicKey(privateKey);
  return { ...verificationKey(publicKey), privateKey };
}

/** `<data-dir>/pki/sa.key` (and `sa.pub`): made at the first start, read afterwards. */
export async function ensureGeneratedSigningKey(dataDir: string): Promise<SigningKey> {
  const dir = join(dataDir, 'pki');
  const keyPath = join(dir, 'sa.key');
  const pubPath = join(dir, 'sa.pub');
  // The lock keeps two servers sharing a data dir from each writing a key of its own.
  return withDirectoryLock(dir, async () => {
    const existing = await readIfExists(keyPath);
    if (existing !== null) {
      await restrictKeyFile(keyPath);
      const key = signingKey(privateKeyFromPem(existing, keyPath));
      if ((await readIfExists(pubPath)) === null) await writeFileAtomic(pubPath, key.key.export({ type: 'spki', format: 'pem' }).toString(), 0o644);
      return key;
    }
    const { privateKey, publicKey } = await generate('rsa', { modulusLength: 2048 });
    await writeFileAtomic(keyPath, privateKey.export({ type: 'pkcs8', format: 'pem' }).toString(), KEY_FILE_MODE);
    await writeFileAtomic(pubPath, publicKey.export({ type: 'spki', format: 'pem' }).toString(), 0o644);
    return signingKey(privateKey);
  });
}

export interface ServiceAccountKeys {
  readonly signing: SigningKey;
  /** Distinct by key id; the signing key's public half is among them. */
  readonly verification: readonly VerificationKey[];
}

export async function loadServiceAccountKeys(options: { signingKeyFile: string; keyFiles: readonly string[]; dataDir: string }): Promise<ServiceAccountKeys> {
  const signing = options.signingKeyFile
    ? signingKey(privateKeyFromPem(await readFile(options.signingKeyFile, 'utf8'), options.signingKeyFile))
    : await ensureGeneratedSigningKey(options.dataDir);
  const byKid = new Map<string, VerificationKey>([[signing.kid, { kid: signing.kid, alg: signing.alg, key: signing.key }]]);
  for (const file of options.keyFiles) {
    for (const key of publicKeysFromPem(await readFile(file, 'utf8'), file)) {
      const vk = verificationKey(key);
      byKid.set(vk.kid, vk);
    }
  }
  return { signing, verification: [...byKid.values()] };
}
