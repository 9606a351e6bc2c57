/**
 * The issuer's OpenID Connect discovery documents, as upstream serves them so that relying parties
 * can verify service account tokens: `/.well-known/openid-configuration` and the key set at
 * `/openid/v1/jwks`. Both are computed once (the keys do not change while the server runs).
 */
import type Router from '@koa/router';
import type { JsonWebKey } from 'node:crypto';
import type { VerificationKey } from './keys.ts';

export const OPENID_CONFIGURATION_PATH = '/.well-known/openid-configuration';
export const JWKS_PATH = '/openid/v1/jwks';
const CACHE_CONTROL = 'public, max-age=3600';

/** `jwksUri`: --service-account-jwks-uri, for relying parties that reach the keys elsewhere than at the issuer. */
export function openIdConfiguration(issuer: string, keys: readonly VerificationKey[], jwksUri = ''): Record<string, unknown> {
  return {
    issuer,
    jwks_uri: jwksUri || `${issuer.replace(/\/+$/, '')}${JWKS_PATH}`,
    response_types_supported: ['id_token'],
    subject_types_supported: ['public'],
    id_token_signing_alg_values_supported: [...new Set(keys.map((k) => k.alg))].sort(),
  };
}

export function jwks(keys: readonly VerificationKey[]): { keys: Record<string, unknown>[] } {
  return {
    keys: keys.map((k) => {
      const jwk = k.key.export({ format: 'jwk' }) as JsonWebKey;
      return { use: 'sig', kty: jwk.kty, kid: k.kid, alg: k.alg, ...(jwk.kty === 'RSA' ? { n: jwk.n, e: jwk.e } : { crv: jwk.crv, x: jwk.x, y: jwk.y }) };
    }),
  };
}

export function discoveryRoutes(issuer: string, keys: readonly VerificationKey[], jwksUri = ''): (router: Router) => void {
  const configuration = JSON.stringify(openIdConfiguration(issuer, keys, jwksUri));
  const keySet = JSON.stringify(jwks(keys));
  return (router) => {
    router.get(OPENID_CONFIGURATION_PATH, (ctx) => {
      ctx.set('Cache-Control', CACHE_CONTROL);
      ctx.type = 'application/json';
      ctx.body = configuration;
    });
    router.get(JWKS_PATH, (ctx) => {
      ctx.set('Cache-Control', CACHE_CONTROL);
      ctx.type = 'application/jwk-set+json';
      ctx.body = keySet;
    });
  };
}
