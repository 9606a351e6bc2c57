/**
 * One JWT issuer's ID tokens as a bearer token source (upstream's oidc authenticator for one
 * JWTAuthenticator): a token whose unverified `iss` is another issuer is not ours (null); ours must
 * have a valid signature with an allowed algorithm, the issuer, one of the audiences, be unexpired,
 * and carry the required claims; then the user comes from the claim mappings.
 */
import { decodeJwt, errors as joseErrors, jwtVerify, type JWTPayload } from 'jose';
import type { UserInfo } from '../../user.ts';
import type { IssuerKeys } from './issuer-keys.ts';

/** go-oidc's allowance for clocks that disagree, applied to nbf (exp is checked without it, as upstream). */
const CLOCK_SKEW_SECONDS = 5 * 60;

export interface ClaimMapping {
  readonly claim: string;
  readonly prefix: string;
}

export interface JwtAuthenticatorOptions {
  readonly issuer: string;
  readonly audiences: readonly string[];
  readonly signingAlgs: readonly string[];
  /** claim → value that every token must carry. */
  readonly requiredClaims: ReadonlyMap<string, string>;
  readonly username: ClaimMapping;
  readonly groups?: ClaimMapping;
  readonly keys: IssuerKeys;
}

/** The user a token of this issuer names; null when the token is not this issuer's. */
export function jwtUserVerifier(opts: JwtAuthenticatorOptions): { name: string; verifyUser(token: string): Promise<UserInfo | null> } {
  return {
    name: `jwt ${opts.issuer}`,
    async verifyUser(token: string) {
      let unverified: JWTPayload;
      try {
        unverified = decodeJwt(token);
      } catch {
        return null; // not a JWT: some other source's token
      }
      if (unverified.iss !== opts.issuer) return null;
      const getKey = opts.keys.keys;
      if (!getKey) throw new Error('oidc: authenticator not initialized');
      const payload = await verifySignature(token, opts, getKey);
      return userFrom(payload, opts);
    },
  };
}

async function verifySignature(token: string, opts: JwtAuthenticatorOptions, getKey: NonNullable<IssuerKeys['keys']>): Promise<JWTPayload> {
  const options = { issuer: opts.issuer, audience: [...opts.audiences], algorithms: [...opts.signingAlgs], clockTolerance: CLOCK_SKEW_SECONDS };
  let payload: JWTPayload;
  try {
    payload = (await jwtVerify(token, getKey, options)).payload;
  } catch (err) {
    if (err instanceof joseErrors.JWKSNoMatchingKey) {
      // The issuer may have rotated its keys since we fetched them.
      await opts.keys.refresh();
      const again = opts.keys.keys;
      if (!again) throw new Error('oidc: authenticator not initialized');
      payload = (await jwtVerify(token, again, options).catch(rethrow)).payload;
    } else {
      rethrow(err);
    }
  }
  // exp without the skew allowance, as upstream.
  if (typeof payload.exp !== 'number') throw new Error('oidc: verify token: token has no exp');
  if (payload.exp * 1000 < Date.now()) throw new Error('oidc: verify token: oidc: token is expired');
  for (const [claim, value] of opts.requiredClaims) {
    if (payload[claim] !== value) throw new Error(`oidc: required claim ${claim} value does not match`);
  }
  return payload;
}

function rethrow(err: unknown): never {
  throw new Error(`oidc: verify token: ${(err as Error).message}`);
}

function userFrom(claims: JWTPayload, opts: JwtAuthenticatorOptions): UserInfo {
  const { claim, prefix } = opts.username;
  const name = claims[claim];
  if (typeof name !== 'string' || name === '') throw new Error(`oidc: parse username claims "${claim}": claim not present`);
  if (claim === 'email' && 'email_verified' in claims) {
    // Upstream: an email is only trusted when the issuer says it was verified.
    if (claims.email_verified !== true) throw new Error(`oidc: email not verified`);
  }
  const groups: string[] = [];
  if (opts.groups && opts.groups.claim in claims) {
    const raw = claims[opts.groups.claim];
    const list = typeof raw === 'string' ? [raw] : Array.isArray(raw) && raw.every((g) => typeof g === 'string') ? (raw as string[]) : null;
    if (!list) throw new Error(`oidc: parse groups claim "${opts.groups.claim}": not a string or an array of strings`);
    for (const g of list) groups.push(opts.groups.prefix + g);
  }
  return { name: prefix + name, groups };
}
