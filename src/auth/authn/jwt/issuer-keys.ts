/**
 * An issuer's signing keys, found through OpenID discovery (<issuer>/.well-known/openid-configuration,
 * or the configured discoveryURL, then its jwks_uri). Discovery may fail at start (the issuer may be
 * down, or the issuer may be this very server): like upstream, it is retried in the background and
 * the authenticator answers "not initialized" meanwhile instead of blocking start.
 */
import { readFileSync } from 'node:fs';
import { request } from 'node:https';
import { createLocalJWKSet, type JSONWebKeySet, type JWTVerifyGetKey } from 'jose';
import type { Logger } from 'pino';

/** GET over https and parse JSON; `ca` (PEM) replaces the system roots when given. */
function getJson(url: string, ca: string | undefined): Promise<unknown> {
  return new Promise((resolve, reject) => {
    const req = request(url, { method: 'GET', ca, headers: { accept: 'application/json' }, timeout: 10_000 }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => {
        if (res.statusCode !== 200) return reject(new Error(`${url}: HTTP ${res.statusCode}`));
        try {
          resolve(JSON.parse(Buffer.concat(chunks).toString('utf8')));
        } catch (err) {
          reject(new Error(`${url}: not JSON: ${(err as Error).message}`));
        }
      });
    });
    req.on('timeout', () => req.destroy(new Error(`${url}: timed out`)));
    req.on('error', reject);
    req.end();
  });
}

export interface IssuerKeysOptions {
  readonly issuer: string;
  /** Where discovery is fetched when not at the issuer (AuthenticationConfiguration's discoveryURL). */
  readonly discoveryUrl?: string;
  /** PEM bundle trusted for the issuer's TLS; default: the system roots. */
  readonly caPem?: string;
  readonly logger: Logger;
  /** Delay between failed discovery attempts. */
  readonly retryMs?: number;
}

export class IssuerKeys {
  #keys: JWTVerifyGetKey | undefined;
  #jwksUri: string | undefined;
  #timer: NodeJS.Timeout | undefined;
  #closed = false;
  #lastError: string;
  #refreshing: Promise<void> | undefined;
  readonly #opts: IssuerKeysOptions;
  readonly #ready: Promise<void>;
  #markReady!: () => void;

  constructor(opts: IssuerKeysOptions) {
    this.#opts = opts;
    this.#lastError = `oidc: authenticator for issuer "${opts.issuer}" is not initialized`;
    this.#ready = new Promise((resolve) => (this.#markReady = resolve));
  }

  static caFromFile(file: string): string | undefined {
    return file ? readFileSync(file, 'utf8') : undefined;
  }

  /** Starts discovery in the background; returns a closer. */
  start(): () => void {
    void this.#attempt();
    return () => this.close();
  }

  close(): void {
    this.#closed = true;
    if (this.#timer) clearTimeout(this.#timer);
  }

  /** The key lookup, or undefined until discovery has succeeded. */
  get keys(): JWTVerifyGetKey | undefined {
    return this.#keys;
  }

  /** Why discovery has not succeeded yet (for upstream's health check message). */
  get lastError(): string {
    return this.#lastError;
  }

  /** Resolves once discovery has succeeded (never rejects: a caller bounds the wait itself). */
  get ready(): Promise<void> {
    return this.#ready;
  }

  /**
   * Fetches the key set again (a token names a key id we do not know: the issuer may have rotated).
   * Requests that arrive meanwhile share the one fetch.
   */
  refresh(): Promise<void> {
    if (!this.#jwksUri) return Promise.resolve();
    const uri = this.#jwksUri;
    this.#refreshing ??= (async () => {
      try {
        const jwks = (await getJson(uri, this.#opts.caPem)) as JSONWebKeySet;
        this.#keys = createLocalJWKSet(jwks);
      } finally {
        this.#refreshing = undefined;
      }
    })();
    return this.#refreshing;
  }

  async #attempt(): Promise<void> {
    const { issuer, logger } = this.#opts;
    const discovery = this.#opts.discoveryUrl || `${issuer.replace(/\/$/, '')}/.well-known/openid-configuration`;
    try {
      const doc = (await getJson(discovery, this.#opts.caPem)) as { issuer?: unknown; jwks_uri?: unknown };
      // As upstream: the document must name the issuer we were configured with, wherever it was fetched.
      if (doc.issuer !== issuer) throw new Error(`oidc: issuer did not match the issuer returned by provider, expected "${issuer}" got "${String(doc.issuer)}"`);
      if (typeof doc.jwks_uri !== 'string') throw new Error('discovery document has no jwks_uri');
      this.#jwksUri = doc.jwks_uri;
      await this.refresh();
      if (this.#closed) return;
      logger.info({ issuer }, 'OIDC issuer discovered');
      this.#markReady();
    } catch (err) {
      this.#lastError = (err as Error).message;
      if (this.#closed) return;
      logger.warn({ issuer, err: this.#lastError }, 'OIDC discovery failed; retrying');
      this.#timer = setTimeout(() => void this.#attempt(), this.#opts.retryMs ?? 10_000);
      this.#timer.unref();
    }
  }
}
