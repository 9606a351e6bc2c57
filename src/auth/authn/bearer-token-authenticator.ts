import type { IncomingMessage } from 'node:http';
import { unauthorized } from '../../api/errors.ts';
import type { UserInfo } from '../user.ts';
import type { Authenticator } from './authenticator.ts';

/** A source of bearer tokens (a token file, service account tokens, OIDC): the user a token names, or null. */
export interface TokenVerifier {
  readonly name: string;
  verify(token: string): Promise<UserInfo | null> | UserInfo | null;
}

/**
 * `Authorization: Bearer <token>`, checked against every token source in turn. A token that none
 * of them knows is invalid credentials (401), as upstream's bearer-token authenticator rules, not an
 * anonymous request. A request without the header has no opinion (null).
 */
export class BearerTokenAuthenticator implements Authenticator {
  readonly name = 'bearer-token';
  readonly #verifiers: readonly TokenVerifier[];

  constructor(verifiers: readonly TokenVerifier[]) {
    this.#verifiers = verifiers;
  }

  async authenticate(req: IncomingMessage): Promise<UserInfo | null> {
    const header = req.headers.authorization;
    if (!header) return null;
    const match = /^Bearer\s+(.*)$/i.exec(header.trim());
    if (!match) return null;
    const token = match[1].trim();
    // An empty token is no credential at all, as upstream.
    if (token === '') return null;
    for (const v of this.#verifiers) {
      const user = await v.verify(token);
      if (user) return user;
    }
    const err = unauthorized();
    err.cause = new Error('invalid bearer token');
    throw err;
  }
}
