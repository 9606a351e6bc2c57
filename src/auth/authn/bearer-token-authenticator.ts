import type { IncomingMessage } from 'node:http';
import { unauthorized } from '../../api/errors.ts';
import type { TokenReviewer, TokenReviewResult } from '../services.ts';
import type { UserInfo } from '../user.ts';
import type { Authenticator } from './authenticator.ts';

/** A token a verifier accepted: its user and the audiences (of those asked for) it is valid for. */
export interface TokenVerified {
  readonly user: UserInfo;
  readonly audiences: readonly string[];
}

/**
 * A source of bearer tokens (a token file, bootstrap tokens, service account tokens, OIDC): the user a
 * token names, or null when the token is not of this source. Throws when the token is of this
 * source but invalid (expired, revoked, bad signature): the union then answers 401 unless another
 * source accepts it. `audiences` are the ones the token must be for: the API's (--api-audiences)
 * for requests, the TokenReview's for reviews; the answer names those it matched.
 */
export interface TokenVerifier {
  readonly name: string;
  verify(token: string, audiences: readonly string[]): Promise<TokenVerified | null> | TokenVerified | null;
}

/**
 * Upstream's WrapAudienceAgnosticToken: a source whose tokens carry no audience (static tokens,
 * bootstrap tokens) is valid for the API's own audiences only. A review asking for other audiences
 * gets no user from it; asking for none means the API's.
 */
export function audienceAgnostic(verifier: Pick<TokenVerifier, 'name'> & { verifyUser(token: string): Promise<UserInfo | null> | UserInfo | null }, apiAudiences: readonly string[]): TokenVerifier {
  return {
    name: verifier.name,
    async verify(token, audiences) {
      const wanted = audiences.length === 0 ? apiAudiences : audiences.filter((a) => apiAudiences.includes(a));
      if (audiences.length > 0 && wanted.length === 0) return null;
      const user = await verifier.verifyUser(token);
      return user ? { user, audiences: wanted } : null;
    },
  };
}

/**
 * `Authorization: Bearer <token>`, checked against every token source in turn. A token that none
 * of them knows is invalid credentials (401), as upstream's bearer-token authenticator rules, not an
 * anonymous request. A request without the header has no opinion (null). It is also the
 * TokenReview's reviewer: the same sources, with the review's audiences.
 */
export class BearerTokenAuthenticator implements Authenticator, TokenReviewer {
  readonly name = 'bearer-token';
  readonly #verifiers: readonly TokenVerifier[];
  readonly #apiAudiences: readonly string[];

  constructor(verifiers: readonly TokenVerifier[], apiAudiences: readonly string[] = []) {
    this.#verifiers = verifiers;
    this.#apiAudiences = apiAudiences;
  }

  async authenticate(req: IncomingMessage): Promise<UserInfo | null> {
    const header = req.headers.authorization;
    if (!header) return null;
    const match = /^Bearer\s+(.*)$/i.exec(header.trim());
    if (!match) return null;
    const token = match[1].trim();
    // An empty token is no credential at all, as upstream.
    if (token === '') return null;
    const result = await this.review(token, this.#apiAudiences);
    if (result.authenticated) return result.user;
    const err = unauthorized();
    err.cause = new Error(result.error ?? 'invalid bearer token');
    throw err;
  }

  /** Every source in turn: the first that accepts wins; the errors of those that refused are joined, as upstream's union does. */
  async review(token: string, audiences: readonly string[]): Promise<TokenReviewResult> {
    const errors: string[] = [];
    const wanted = audiences.length > 0 ? audiences : this.#apiAudiences;
    for (const v of this.#verifiers) {
      try {
        const found = await v.verify(token, wanted);
        if (found) return { authenticated: true, user: found.user, audiences: found.audiences };
      } catch (err) {
        errors.push(err instanceof Error ? err.message : String(err));
      }
    }
    return { authenticated: false, ...(errors.length > 0 ? { error: errors.length === 1 ? errors[0]! : `[${errors.join(', ')}]` } : {}) };
  }
}
