/**
 * The JWT authenticators of one configuration (the file's jwt[] or the --oidc-* flags) as one token
 * source: each issuer with its own discovery, asked in order, the first that claims the token
 * deciding (upstream's fail-on-error union: issuers are unique, so at most one claims a token), and
 * valid for the API's audiences only, as upstream wraps them.
 */
import type { Logger } from 'pino';
import { audienceAgnostic, type TokenVerifier } from '../bearer-token-authenticator.ts';
import type { JwtAuthenticatorSpec } from './authentication-config.ts';
import { IssuerKeys } from './issuer-keys.ts';
import { jwtUserVerifier, type JwtUserVerifier } from './jwt-authenticator.ts';

export interface JwtAuthenticatorsOptions {
  readonly signingAlgs: readonly string[];
  readonly apiAudiences: readonly string[];
  readonly logger: Logger;
  /** Delay between failed discovery attempts (upstream polls every 10 s). */
  readonly retryMs?: number;
}

export class JwtAuthenticators {
  readonly verifier: TokenVerifier;
  readonly #keys: readonly IssuerKeys[];

  /** Builds the authenticators of validated specs; nothing is fetched until start(). */
  constructor(specs: readonly JwtAuthenticatorSpec[], opts: JwtAuthenticatorsOptions) {
    const built = specs.map((spec) => {
      const keys = new IssuerKeys({
        issuer: spec.issuer.url,
        ...(spec.issuer.discoveryURL ? { discoveryUrl: spec.issuer.discoveryURL } : {}),
        ...(spec.issuer.certificateAuthority ? { caPem: spec.issuer.certificateAuthority } : {}),
        logger: opts.logger,
        retryMs: opts.retryMs ?? 10_000,
      });
      return { keys, user: jwtUserVerifier({ spec, signingAlgs: opts.signingAlgs, keys }) };
    });
    this.#keys = built.map((b) => b.keys);
    this.verifier = audienceAgnostic(firstClaiming(built.map((b) => b.user)), opts.apiAudiences);
  }

  /** Starts every issuer's discovery in the background. */
  start(): void {
    for (const k of this.#keys) k.start();
  }

  close(): void {
    for (const k of this.#keys) k.close();
  }

  /**
   * Resolves once every issuer is discovered; rejects after `timeoutMs` with upstream's health check
   * words for those that are not (a reloaded configuration replaces the running one only when ready).
   */
  async ready(timeoutMs: number): Promise<void> {
    let timer: NodeJS.Timeout | undefined;
    const timedOut = new Promise<'timeout'>((resolve) => (timer = setTimeout(() => resolve('timeout'), timeoutMs)));
    const outcome = await Promise.race([Promise.all(this.#keys.map((k) => k.ready)), timedOut]);
    clearTimeout(timer);
    if (outcome !== 'timeout') return;
    const pending = this.#keys.filter((k) => !k.keys);
    throw new Error(pending.map((k) => k.lastError).join(', ') || 'timed out');
  }
}

function firstClaiming(verifiers: readonly JwtUserVerifier[]): JwtUserVerifier {
  return {
    name: 'jwt',
    async verifyUser(token) {
      for (const v of verifiers) {
        const user = await v.verifyUser(token);
        if (user) return user;
      }
      return null;
    },
  };
}
