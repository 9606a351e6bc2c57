/**
 * The part of oidc-provider (which ships no types) that test/helpers/oidc-provider.ts uses: the
 * provider as a request handler, its clients and its IdToken class.
 */
declare module 'oidc-provider' {
  import type { IncomingMessage, ServerResponse } from 'node:http';

  export interface OidcClient {
    readonly clientId: string;
  }

  export interface OidcIdToken {
    scope: string;
    set(claim: string, value: unknown): void;
    issue(options: { use: 'idtoken'; expiresAt?: number }): Promise<string>;
  }

  export default class Provider {
    constructor(issuer: string, configuration?: Record<string, unknown>);
    readonly issuer: string;
    callback(): (req: IncomingMessage, res: ServerResponse) => void;
    readonly Client: { find(id: string): Promise<OidcClient | undefined> };
    readonly IdToken: new (claims: Record<string, unknown>, context: { client: OidcClient }) => OidcIdToken;
  }
}
