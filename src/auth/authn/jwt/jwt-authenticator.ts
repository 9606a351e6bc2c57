/**
 * One JWT issuer's ID tokens as a bearer token source (upstream's oidc authenticator for one
 * JWTAuthenticator): a token whose unverified `iss` is another issuer is not ours (null); ours must
 * have a valid signature with an allowed algorithm, the issuer, one of the audiences (MatchAny) and
 * be unexpired; then jwt-user-mapping.ts makes the user of its claims.
 */
import { decodeJwt, errors as joseErrors, jwtVerify, type JWTPayload } from 'jose';
import type { UserInfo } from '../../user.ts';
import type { JwtAuthenticatorSpec } from './authentication-config.ts';
import type { IssuerKeys } from './issuer-keys.ts';
import { userMapping } from './jwt-user-mapping.ts';

/** go-oidc's allowance for clocks that disagree, applied to nbf (exp is checked without it, as upstream). */
const CLOCK_SKEW_SECONDS = 5 * 60;

/** Every algorithm upstream allows; a configuration file accepts them all (its keys decide). */
export const ALL_SIGNING_ALGS = ['ES256', 'ES384', 'ES512', 'PS256', 'PS384', 'PS512', 'RS256', 'RS384', 'RS512'] as const;

export interface JwtAuthenticatorOptions {
  /** A validated authenticator (validateJwtAuthenticator). */
  readonly spec: JwtAuthenticatorSpec;
  readonly signingAlgs: readonly string[];
  readonly keys: IssuerKeys;
}

export interface JwtUserVerifier {
  readonly name: string;
  /** The user a token of this issuer names; null when the token is not this issuer's. */
  verifyUser(token: string): Promise<UserInfo | null>;
}

export function jwtUserVerifier(opts: JwtAuthenticatorOptions): JwtUserVerifier {
  const issuer = opts.spec.issuer.url;
  const toUser = userMapping(opts.spec);
  return {
    name: `jwt ${issuer}`,
    async verifyUser(token: string) {
      let unverified: JWTPayload;
      try {
        unverified = decodeJwt(token);
      } catch {
        return null; // not a JWT: some other source's token
      }
      if (unverified.iss !== issuer) return null;
      if (!opts.keys.keys) throw new Error('oidc: authenticator not initialized');
      return toUser(await verify(token, opts));
    },
  };
}

async function verify(token: string, opts: JwtAuthenticatorOptions): Promise<JWTPayload> {
  const options = { issuer: opts.spec.issuer.url, algorithms: [...opts.signingAlgs], clockTolerance: CLOCK_SKEW_SECONDS };
  let payload: JWTPayload;
  try {
    payload = (await jwtVerify(token, opts.keys.keys!, options)).payload;
  } catch (err) {
    if (!(err instanceof joseErrors.JWKSNoMatchingKey)) rethrow(err);
    // The issuer may have rotated its keys since we fetched them.
    await opts.keys.refresh().catch(rethrow);
    payload = (await jwtVerify(token, opts.keys.keys!, options).catch(rethrow)).payload;
  }
  // exp without the skew allowance, as upstream.
  if (typeof payload.exp !== 'number') throw new Error('oidc: verify token: token has no exp');
  if (payload.exp * 1000 < Date.now()) throw new Error('oidc: verify token: oidc: token is expired');
  checkAudience(payload, opts.spec.issuer.audiences);
  return payload;
}

/** MatchAny: one of the token's audiences must be one of ours (go-oidc's words for one, upstream's for several). */
function checkAudience(payload: JWTPayload, audiences: readonly string[]): void {
  const got = typeof payload.aud === 'string' ? [payload.aud] : Array.isArray(payload.aud) ? payload.aud : [];
  if (got.some((a) => audiences.includes(a))) return;
  const quoted = (list: readonly string[]) => `[${list.map((a) => JSON.stringify(a)).join(' ')}]`;
  if (audiences.length === 1) throw new Error(`oidc: verify token: oidc: expected audience ${JSON.stringify(audiences[0])} got ${quoted(got)}`);
  throw new Error(`oidc: verify token: oidc: expected audience in ${quoted([...audiences].sort())} got ${quoted(got)}`);
}

function rethrow(err: unknown): never {
  throw new Error(`oidc: verify token: ${(err as Error).message}`);
}
