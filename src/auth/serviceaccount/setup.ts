/**
 * Service account tokens as the --service-account-* flags configure them: the keys, the issuer
 * behind the TokenRequest subresource, the bearer token verifier and the discovery routes.
 */
import type Router from '@koa/router';
import type { Logger } from 'pino';
import type { Closers } from '../../closers.ts';
import type { Config } from '../../config.ts';
import type { ApiSurface } from '../../registry/api-surface.ts';
import { discoveryRoutes } from './discovery.ts';
import { ServiceAccountTokens, storeGetter } from './issuer.ts';
import { loadServiceAccountKeys } from './keys.ts';
import { informerLookup } from './lookup.ts';
import { ServiceAccountTokenVerifier } from './verifier.ts';

export interface ServiceAccountSetup {
  readonly verifier: ServiceAccountTokenVerifier;
  readonly issuer: ServiceAccountTokens;
  readonly routes: (router: Router) => void;
}

export async function setUpServiceAccounts(
  deps: { config: Config; surface: ApiSurface; logger: Logger; closers: Closers },
  apiAudiences: readonly string[],
): Promise<ServiceAccountSetup> {
  const { config } = deps;
  const keys = await loadServiceAccountKeys({ signingKeyFile: config.serviceAccountSigningKeyFile, keyFiles: config.serviceAccountKeyFile, dataDir: config.dataDir });
  // The first issuer signs; all of them are accepted (upstream's issuer rotation).
  const issuerName = config.serviceAccountIssuer[0]!;
  const issuer = new ServiceAccountTokens({
    issuer: issuerName,
    key: keys.signing,
    apiAudiences,
    maxExpirationSeconds: Math.floor(config.serviceAccountMaxTokenExpirationMs / 1000),
    extendExpiration: config.serviceAccountExtendTokenExpiration,
    get: storeGetter(deps.surface),
  });
  const verifier = new ServiceAccountTokenVerifier({
    issuers: config.serviceAccountIssuer,
    keys: keys.verification,
    lookup: await informerLookup(deps),
    lookupEnabled: config.serviceAccountLookup,
  });
  deps.logger.info({ issuer: issuerName, keys: keys.verification.map((k) => k.kid) }, 'service account tokens configured');
  // As upstream: discovery is served for an issuer relying parties could fetch from (an https URL),
  // or wherever --service-account-jwks-uri says the keys are.
  const discoverable = isHttpsUrl(issuerName) || config.serviceAccountJwksUri !== '';
  if (!discoverable) deps.logger.info({ issuer: issuerName }, 'service account issuer is not an https URL: OpenID discovery is not served');
  return { verifier, issuer, routes: discoverable ? discoveryRoutes(issuerName, keys.verification, config.serviceAccountJwksUri) : () => {} };
}

function isHttpsUrl(value: string): boolean {
  try {
    return new URL(value).protocol === 'https:';
  } catch {
    return false;
  }
}
