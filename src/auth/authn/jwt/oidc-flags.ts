/**
 * The --oidc-* flags as one JWT authenticator, the way upstream translates them into an
 * AuthenticationConfiguration entry (and validates it with the file's rules): the client id is the
 * one audience, the username prefix defaults to "<issuer>#" unless the claim is email, "-" means no
 * prefix, each required claim is a claim validation rule.
 */
import type { Logger } from 'pino';
import type { Config } from '../../../config.ts';
import { StartupError } from '../../../startup-error.ts';
import { fieldErrorText } from '../../../api/errors.ts';
import { aggregateText } from '../../../api/selectors/label-validation.ts';
import type { TokenVerifier } from '../bearer-token-authenticator.ts';
import type { JwtAuthenticatorSpec } from './authentication-config.ts';
import { validateAuthenticationConfig } from './authentication-config-validation.ts';
import { IssuerKeys } from './issuer-keys.ts';
import { ALL_SIGNING_ALGS } from './jwt-authenticator.ts';
import { JwtAuthenticators } from './jwt-authenticators.ts';

export function usernamePrefix(issuer: string, claim: string, flag: string): string {
  if (flag === '-') return '';
  if (flag === '' && claim !== 'email') return `${issuer}#`;
  return flag;
}

export function parseRequiredClaims(pairs: readonly string[]): Map<string, string> {
  const out = new Map<string, string>();
  for (const pair of pairs) {
    const i = pair.indexOf('=');
    if (i < 0) throw new StartupError(`--oidc-required-claim: "${pair}" is not claim=value`);
    out.set(pair.slice(0, i), pair.slice(i + 1));
  }
  return out;
}

/** The flags as the authenticator upstream builds of them. */
export function oidcFlagsSpec(config: Config): JwtAuthenticatorSpec {
  const issuer = config.oidcIssuerUrl;
  const claim = config.oidcUsernameClaim || 'sub';
  let ca: string | undefined;
  try {
    ca = IssuerKeys.caFromFile(config.oidcCaFile);
  } catch (err) {
    throw new StartupError(`--oidc-ca-file: ${(err as Error).message}`);
  }
  return {
    issuer: { url: issuer, audiences: [config.oidcClientId], ...(ca ? { certificateAuthority: ca } : {}) },
    claimValidationRules: [...parseRequiredClaims(config.oidcRequiredClaim)].map(([c, value]) => ({ claim: c, requiredValue: value })),
    claimMappings: {
      username: { claim, prefix: usernamePrefix(issuer, claim, config.oidcUsernamePrefix) },
      groups: config.oidcGroupsClaim ? { claim: config.oidcGroupsClaim, prefix: config.oidcGroupsPrefix } : {},
      uid: {},
      extra: [],
    },
    userValidationRules: [],
  };
}

/** The authenticator of the flags; a start error (upstream's words) when they do not make a valid one. */
export function oidcFlagsVerifier(config: Config, apiAudiences: readonly string[], logger: Logger): { verifier: TokenVerifier; start(): () => void } {
  const spec = oidcFlagsSpec(config);
  const errors = validateAuthenticationConfig({ jwt: [spec] }, config.serviceAccountIssuer);
  if (errors.length > 0) throw new StartupError(`invalid authentication configuration: ${aggregateText(errors.map((e) => `${e.field}: ${fieldErrorText(e)}`))}`);
  const signingAlgs = config.oidcSigningAlgs.length > 0 ? config.oidcSigningAlgs : ['RS256'];
  for (const alg of signingAlgs) {
    if (!(ALL_SIGNING_ALGS as readonly string[]).includes(alg)) throw new StartupError(`oidc: unsupported signing alg: "${alg}"`);
  }
  const authenticators = new JwtAuthenticators([spec], { signingAlgs, apiAudiences, logger, retryMs: 2_000 });
  return {
    verifier: authenticators.verifier,
    start: () => {
      authenticators.start();
      return () => authenticators.close();
    },
  };
}
