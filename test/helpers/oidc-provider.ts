/**
 * A real OpenID Connect provider (panva's oidc-provider) on loopback HTTPS, for the authentication
 * tests: the server under test discovers it and fetches its key set as it would any issuer's, and
 * the tokens are ID tokens the provider itself signs (its IdToken class) with the keys it publishes.
 *
 * @example
 * const idp = await startOidcProvider();
 * const srv = await startTestServer([`--oidc-issuer-url=${idp.issuer}`, `--oidc-client-id=${idp.clientId}`, `--oidc-ca-file=${idp.caFile}`]);
 * const token = await idp.idToken({ sub: 'alice', groups: ['dev'] });
 */
import { generateKeyPairSync } from 'node:crypto';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import https from 'node:https';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import Provider from 'oidc-provider';
import { makeTestCa } from './test-ca.ts';

export const DEFAULT_CLIENT_ID = 'my-client';
/** A second client: its tokens are for an audience the server does not expect. */
export const OTHER_CLIENT_ID = 'other-client';

export interface IdTokenOptions {
  /** The audience (a client registered with the provider); default DEFAULT_CLIENT_ID. */
  readonly clientId?: string;
  /** Lifetime from now in seconds; negative for a token that has already expired. Default 10 minutes. */
  readonly expiresIn?: number;
}

export interface OidcProvider {
  /** https://127.0.0.1:<port>, as the provider names itself in `iss`. */
  readonly issuer: string;
  /** The CA that signed the provider's serving certificate, and a file holding it. */
  readonly caPem: string;
  readonly caFile: string;
  readonly clientId: string;
  /** Where the discovery document is also served (for AuthenticationConfiguration's discoveryURL). */
  readonly altDiscoveryUrl: string;
  /**
   * An ID token for `claims`, signed by the provider. `iss`, `aud`, `exp` and `iat` are the
   * provider's to set (see options); every other claim is put in as given.
   */
  idToken(claims: Record<string, unknown>, options?: IdTokenOptions): Promise<string>;
  /** An ID token signed, by a provider of the same issuer, with a key this one does not publish. */
  unpublishedKeyToken(claims: Record<string, unknown>): Promise<string>;
  /** Replaces the signing key; the old one stays published only with `keepOld`. */
  rotateKeys(options?: { keepOld?: boolean }): void;
  /** Serve discovery only at altDiscoveryUrl (the standard path answers 404) when true. */
  hideStandardDiscovery(hidden: boolean): void;
  close(): Promise<void>;
}

type Jwk = Record<string, unknown> & { kid: string };

let keyCount = 0;
function signingKey(): Jwk {
  const { privateKey } = generateKeyPairSync('rsa', { modulusLength: 2048 });
  return { ...(privateKey.export({ format: 'jwk' }) as Record<string, unknown>), kid: `key-${++keyCount}`, use: 'sig', alg: 'RS256' };
}

/** The provider keeps nothing for the tokens minted here; sessions and grants are never made. */
class NoStorage {
  async upsert(): Promise<void> {}
  async find(): Promise<undefined> {
    return undefined;
  }
  async findByUserCode(): Promise<undefined> {
    return undefined;
  }
  async findByUid(): Promise<undefined> {
    return undefined;
  }
  async consume(): Promise<void> {}
  async destroy(): Promise<void> {}
  async revokeByGrantId(): Promise<void> {}
}

function provider(issuer: string, keys: readonly Jwk[]): Provider {
  return new Provider(issuer, {
    adapter: NoStorage,
    clients: [DEFAULT_CLIENT_ID, OTHER_CLIENT_ID].map((id) => ({ client_id: id, client_secret: `${id}-secret-that-is-long-enough`, redirect_uris: ['https://127.0.0.1/callback'] })),
    jwks: { keys },
    features: { devInteractions: { enabled: false } },
    cookies: { keys: ['test-cookie-key'] },
    ttl: { IdToken: 600 },
  });
}

async function mint(p: Provider, claims: Record<string, unknown>, options: IdTokenOptions): Promise<string> {
  const clientId = options.clientId ?? DEFAULT_CLIENT_ID;
  const client = await p.Client.find(clientId);
  if (!client) throw new Error(`no client ${clientId}`);
  const { sub, ...rest } = claims;
  const token = new p.IdToken(sub === undefined ? {} : { sub }, { client });
  token.scope = 'openid';
  for (const [claim, value] of Object.entries(rest)) token.set(claim, value);
  // The provider counts the lifetime from now; 0 would mean its default.
  const expiresIn = options.expiresIn ?? 600;
  return token.issue({ use: 'idtoken', expiresAt: Math.floor(Date.now() / 1000) + (expiresIn === 0 ? -1 : expiresIn) });
}

/** Starts a provider on a free loopback port. */
export async function startOidcProvider(): Promise<OidcProvider> {
  const ca = await makeTestCa('oidc-provider-test-ca');
  const leaf = await ca.issue({ commonName: '127.0.0.1', ipAddresses: ['127.0.0.1'], dnsNames: ['localhost'], usage: 'server' });
  const dir = await mkdtemp(path.join(tmpdir(), 'pgkube-oidc-'));
  const caFile = path.join(dir, 'ca.crt');
  await writeFile(caFile, ca.certPem);

  let handler: (req: IncomingMessage, res: ServerResponse) => void = (_req, res) => res.writeHead(503).end();
  let standardHidden = false;
  const server = https.createServer({ cert: leaf.certPem, key: leaf.keyPem }, (req, res) => {
    if (req.url === '/.well-known/openid-configuration' && standardHidden) return void res.writeHead(404).end();
    if (req.url === '/alt/discovery') req.url = '/.well-known/openid-configuration';
    handler(req, res);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const issuer = `https://127.0.0.1:${(server.address() as AddressInfo).port}`;

  let keys = [signingKey()];
  let current = provider(issuer, keys);
  handler = current.callback();

  return {
    issuer,
    caPem: ca.certPem,
    caFile,
    clientId: DEFAULT_CLIENT_ID,
    altDiscoveryUrl: `${issuer}/alt/discovery`,
    idToken: (claims, options = {}) => mint(current, claims, options),
    unpublishedKeyToken: (claims) => mint(provider(issuer, [signingKey()]), claims, {}),
    rotateKeys(options = {}) {
      // The first key signs; the provider is made anew, as its key store is fixed at construction.
      keys = options.keepOld ? [signingKey(), ...keys] : [signingKey()];
      current = provider(issuer, keys);
      handler = current.callback();
    },
    hideStandardDiscovery(hidden) {
      standardHidden = hidden;
    },
    async close() {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
      await rm(dir, { recursive: true, force: true });
    },
  };
}

/** The token with its signature altered (a token no key of the issuer signed). */
export function withBrokenSignature(token: string): string {
  const [header, payload, signature] = token.split('.');
  const bytes = Buffer.from(signature!, 'base64url');
  bytes[0] = bytes[0]! ^ 0xff;
  return `${header}.${payload}.${bytes.toString('base64url')}`;
}
