/**
 * Compact JWS signing and checking with node:crypto, for the four algorithms service account keys
 * use (RS256, ES256/384/512). jose is only a transitive dependency here, and this is all we need of it.
 */
import { sign, verify } from 'node:crypto';
import type { JwsAlgorithm, SigningKey, VerificationKey } from './keys.ts';

const HASH: Record<JwsAlgorithm, string> = { RS256: 'sha256', ES256: 'sha256', ES384: 'sha384', ES512: 'sha512' };

function b64json(value: unknown): string {
  return Buffer.from(JSON.stringify(value), 'utf8').toString('base64url');
}

export function signJws(payload: Record<string, unknown>, key: SigningKey): string {
  const input = `${b64json({ alg: key.alg, kid: key.kid })}.${b64json(payload)}`;
  // JWS ECDSA signatures are r||s (IEEE P1363), not DER.
  const signature = sign(HASH[key.alg], Buffer.from(input), { key: key.privateKey, dsaEncoding: 'ieee-p1363' });
  return `${input}.${signature.toString('base64url')}`;
}

export interface ParsedJws {
  readonly header: Record<string, unknown>;
  readonly payload: Record<string, unknown>;
  readonly signingInput: string;
  readonly signature: Buffer;
}

function decodeObject(part: string): Record<string, unknown> | null {
  try {
    const value: unknown = JSON.parse(Buffer.from(part, 'base64url').toString('utf8'));
    return value !== null && typeof value === 'object' && !Array.isArray(value) ? (value as Record<string, unknown>) : null;
  } catch {
    return null;
  }
}

/** Three dot-separated parts with JSON header and payload, or null (not a JWT). The signature is not checked. */
export function parseJws(token: string): ParsedJws | null {
  const parts = token.split('.');
  if (parts.length !== 3) return null;
  const header = decodeObject(parts[0]!);
  const payload = decodeObject(parts[1]!);
  if (!header || !payload) return null;
  return { header, payload, signingInput: `${parts[0]}.${parts[1]}`, signature: Buffer.from(parts[2]!, 'base64url') };
}

/**
 * True when one of the keys of the header's algorithm made the signature. The header's kid narrows
 * the keys tried when one of them has it; otherwise every key is tried, as upstream's key getter does.
 */
export function checkSignature(jws: ParsedJws, keys: readonly VerificationKey[]): boolean {
  const alg = jws.header.alg;
  const kid = typeof jws.header.kid === 'string' ? jws.header.kid : '';
  const named = keys.filter((k) => k.kid === kid);
  for (const k of named.length > 0 ? named : keys) {
    if (k.alg !== alg) continue;
    try {
      if (verify(HASH[k.alg], Buffer.from(jws.signingInput), { key: k.key, dsaEncoding: 'ieee-p1363' }, jws.signature)) return true;
    } catch {
      // A malformed signature is simply not a match.
    }
  }
  return false;
}
