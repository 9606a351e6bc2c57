/**
 * The --oidc-* flags as one JWT authenticator, the way upstream translates them: the client id is
 * the one audience, the username prefix defaults to "<issuer>#" unless the claim is email, "-"
 * means no prefix.
 */
import type { Logger } from 'pino';
import type { Config } from '../../../config.ts';
import { audienceAgnostic, type TokenVerifier } from '../bearer-token-authenticator.ts';
import { IssuerKeys } from './issuer-keys.ts';
import { jwtUserVerifier } from './jwt-authenticator.ts';

export function usernamePrefix(issuer: string, claim: string, flag: string): string {
  if (flag === '-') return '';
  if (flag === '' && claim !== 'email') return `${issuer}#`;
  return flag;
}

export function parseRequiredClaims(pairs: readonly string[]): Map<string, string> {
  const out = new Map<string, string>();
  for (const pair of pairs) {
    const i = pair.indexOf('=');
    if (i < 0) throw new Error(`--oidc-required-claim: "${pair}" is not claim=value`);
    out.set(pair.slice(0, i), pair.slice(i + 1));
  }
  return out;
}

/** Upstream wraps OIDC as audience agnostic: its tokens are valid for the API's own audiences. */
export function oidcFlagsVerifier(config: Config, apiAudiences: readonly string[], logger: Logger): { verifier: TokenVerifier; start(): () => void } {
  const issuer = config.oidcIssuerUrl;
  if (!issuer.startsWith('https://')) throw new Error(`--oidc-issuer-url: URL scheme must be https, got "${issuer}"`);
  const keys = new IssuerKeys({ issuer, caPem: IssuerKeys.caFromFile(config.oidcCaFile), logger, retryMs: 2_000 });
  const claim = config.oidcUsernameClaim || 'sub';
  const user = jwtUserVerifier({
    issuer,
    audiences: [config.oidcClientId],
    signingAlgs: config.oidcSigningAlgs.length > 0 ? config.oidcSigningAlgs : ['RS256'],
    requiredClaims: parseRequiredClaims(config.oidcRequiredClaim),
    username: { claim, prefix: usernamePrefix(issuer, claim, config.oidcUsernamePrefix) },
    ...(config.oidcGroupsClaim ? { groups: { claim: config.oidcGroupsClaim, prefix: config.oidcGroupsPrefix } } : {}),
    keys,
  });
  return { verifier: audienceAgnostic(user, apiAudiences), start: () => keys.start() };
}
